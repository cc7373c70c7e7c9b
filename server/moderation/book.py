"""The bans and mutes in force: one book per process, read by the SSH layer at each
handshake and by the hub at each chat line, written by the hub when an operator acts."""
from __future__ import annotations

import time
from typing import Iterable, Protocol

from protocol import moderation as m
from server.moderation.reports import Report
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


class ModerationRecords(Protocol):
    """Where restrictions and the operators' actions are kept: the SQLite store in one
    process (server/store/database.py), a bucket and a stream in a cluster
    (server/cluster/moderation.py), whose watch keeps every process's book."""

    async def restrict(self, what: str, on: str, target: str, until: float, reason: str, by: str
                       ) -> Restriction: ...

    async def lift(self, number: int, by: str) -> bool: ...

    async def note_action(self, by: str, action: str, target: str, reason: str) -> None: ...

    async def moderation_log(self, limit: int) -> list[tuple[float, str, str, str, str]]: ...

    async def add_report(self, report: Report) -> int:
        """Keep a report; its number."""

    async def latest_reports(self) -> list[Report]:
        """The latest reports not yet settled."""

    async def settle_reports(self, number: int, by: str, reason: str) -> list[Report]:
        """Settle report ``number`` and the earlier unsettled ones of the same player
        (``reports.settled_by``), recorded as the operator ``by``'s action; the reports settled,
        oldest first (none: no unsettled report of that number)."""

    async def named_operators(self) -> dict[str, tuple[str, float]]:
        """The keys operators named operators: fingerprint -> (by whom, when)."""

    async def name_operator(self, fingerprint: str, on: bool, by: str) -> bool:
        """Name a key an operator (``on``) or no longer, recorded as ``by``'s action; False:
        nothing changed (it already was; it was not)."""

    async def listening(self, fingerprint: str) -> tuple[list[str], str]:
        """Whom a key ignores (the names as written) and whose chat it hears."""

    async def keep_listening(self, fingerprint: str, names: list[str], hear: str) -> None: ...


class Moderation:
    """The server's operators, its book of restrictions and where they are kept (None:
    nowhere, as in tests of the lobby alone). Operators are the keys of the settings
    (``operators``: DATA_DIR/operators, --operator-key) and those operators named (``named``,
    fingerprint -> (by whom, when): kept in the store; in a cluster, a bucket's copy that its
    watch keeps, so a key named through one process is an operator at every process)."""

    def __init__(self, operators: frozenset[str] = frozenset(), book: RestrictionBook | None = None,
                 records: ModerationRecords | None = None,
                 named: dict[str, tuple[str, float]] | None = None) -> None:
        self.operators = operators
        self.named = named if named is not None else {}
        self.book = book if book is not None else RestrictionBook()
        self.records = records

    def is_operator(self, fingerprint: str | None) -> bool:
        return fingerprint is not None and (fingerprint in self.operators or fingerprint in self.named)
