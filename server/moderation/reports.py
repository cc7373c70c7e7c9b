"""Players' reports of each other: what a report keeps, the evidence the server adds to it,
and the operators' queue (the players reported by the most distinct people first)."""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Iterable

import protocol as p
from protocol import moderation as m
from protocol.text import name_key


@dataclass(frozen=True)
class Report:
    number: int
    at: float
    reported: str
    reported_key: str  # "" for a guest
    reported_address: str
    reason: str
    text: str
    by: str
    by_key: str  # "" for a guest
    by_address: str
    table_id: str | None
    seats: tuple[str, ...]
    evidence: tuple[str, ...]

    @property
    def group(self) -> str:
        """Whom the report is of, as one person: their key, else (a guest) their name."""
        return self.reported_key or f"name:{name_key(self.reported)}"

    @property
    def reporter(self) -> str:
        """Who reported, as one person: their key, else (a guest) their name and address."""
        return self.by_key or f"guest:{name_key(self.by)}@{self.by_address}"

    def line(self, reporters: int) -> m.ReportLine:
        return m.ReportLine(
            number=self.number, at=int(self.at), reported=self.reported[:p.NAME_MAX], reported_key=self.reported_key,
            reported_address=self.reported_address[:m.ADDRESS_MAX], reason=self.reason[:16],
            text=self.text[:m.REASON_MAX], by=self.by[:p.NAME_MAX], by_key=self.by_key, reporters=reporters,
            table_id=self.table_id, seats=tuple(s[:p.NAME_MAX + 8] for s in self.seats[:8]),
            evidence=tuple(e[:p.NAME_MAX + 202] for e in self.evidence[-m.EVIDENCE_LINES:]))


def evidence(chat: Iterable[p.ChatLine], reporter: str, reported: str) -> tuple[str, ...]:
    """The lobby chat lines either of the two said, the latest last: the words in question and
    the reporter's own, never anyone else's (a table's partner-only lines and señas are not in
    the lobby chat at all)."""
    keys = {name_key(reporter), name_key(reported)}
    said = [f"{line.sender}: {line.text}" for line in chat if not line.system and name_key(line.sender) in keys]
    return tuple(said[-m.EVIDENCE_LINES:])


SAID_KEPT = 64  # table chat lines a table keeps for reports (any two players' share of them)


@dataclass(frozen=True)
class TableLine:
    """A table chat line as the lobby passed it on (``partners``: to the sender's partners only)."""

    sender: str
    text: str
    partners: bool


def table_evidence(lines: Iterable[TableLine], seats: list[str | None], reporter: str, reported: str,
                   where: str) -> tuple[str, ...]:
    """What either of the two said at the table, after ``where`` (the table, match and log
    position, to find the hand): lines the whole table heard, and a partners-only line only
    when the two are partners (it was said to the other one). Never a seña: they do not pass
    through the chat, and no one else's words."""
    keys = {name_key(reporter), name_key(reported)}
    seat_of = {name_key(name): i for i, name in enumerate(seats) if name}
    mine, theirs = seat_of.get(name_key(reporter)), seat_of.get(name_key(reported))
    partners = (mine is not None and theirs is not None and mine != theirs and len(seats) % 2 == 0
                and mine % 2 == theirs % 2)
    said = [f"[{'partners' if line.partners else 'table'}] {line.sender}: {line.text}" for line in lines
            if name_key(line.sender) in keys and (partners or not line.partners)]
    return (where, *said[-(m.EVIDENCE_LINES - 1):]) if said or where else ()


def settled_by(reports: Iterable[Report], number: int) -> list[Report]:
    """The reports an operator settles by settling queue line ``number``: those of the same
    player numbered up to it (none: there is no report ``number`` among ``reports``)."""
    reports = list(reports)
    line = next((r for r in reports if r.number == number), None)
    return [] if line is None else [r for r in reports if r.group == line.group and r.number <= number]


def queue(reports: Iterable[Report], limit: int) -> list[m.ReportLine]:
    """The latest report of each reported player, with how many distinct people reported
    them; the most reported first, then the latest."""
    by_player: dict[str, list[Report]] = defaultdict(list)
    for report in reports:
        by_player[report.group].append(report)
    ranked = sorted(by_player.values(), key=lambda rs: (-len({r.reporter for r in rs}), -max(r.at for r in rs)))
    return [max(rs, key=lambda r: r.at).line(len({r.reporter for r in rs})) for rs in ranked[:limit]]
