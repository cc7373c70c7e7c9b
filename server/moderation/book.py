"""The bans and mutes in force: one book per process, read by the SSH layer at each
handshake and by the hub at each chat line, written by the hub when an operator acts."""
from __future__ import annotations

import time
from typing import Iterable

from protocol import moderation as m
from server.moderation.restrictions import Restriction


class RestrictionBook:
    def __init__(self, restrictions: Iterable[Restriction] = ()) -> None:
        self._by_number: dict[int, Restriction] = {r.number: r for r in restrictions}

    def add(self, restriction: Restriction) -> None:
        self._by_number[restriction.number] = restriction

    def lift(self, number: int) -> Restriction | None:
        return self._by_number.pop(number, None)

    def in_force(self, now: float | None = None) -> list[Restriction]:
        now = time.time() if now is None else now
        for number in [n for n, r in self._by_number.items() if not r.in_force(now)]:
            del self._by_number[number]  # past its time: forgotten here (the store keeps it)
        return sorted(self._by_number.values(), key=lambda r: r.number)

    def banned(self, fingerprint: str | None, name_key: str | None, ip: str) -> Restriction | None:
        return self._first(m.BAN, fingerprint, name_key, ip)

    def muted(self, fingerprint: str | None, name_key: str | None, ip: str) -> Restriction | None:
        return self._first(m.MUTE, fingerprint, name_key, ip)

    def _first(self, what: str, fingerprint: str | None, name_key: str | None, ip: str) -> Restriction | None:
        now = time.time()
        for restriction in self._by_number.values():
            if restriction.what == what and restriction.in_force(now) and restriction.holds_to(
                    fingerprint, name_key, ip):
                return restriction
        return None


class Moderation:
    """The server's operators (their keys' fingerprints) and its book of restrictions."""

    def __init__(self, operators: frozenset[str] = frozenset(), book: RestrictionBook | None = None) -> None:
        self.operators = operators
        self.book = book if book is not None else RestrictionBook()

    def is_operator(self, fingerprint: str | None) -> bool:
        return fingerprint is not None and fingerprint in self.operators
