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


def queue(reports: Iterable[Report], limit: int) -> list[m.ReportLine]:
    """The latest report of each reported player, with how many distinct people reported
    them; the most reported first, then the latest."""
    by_player: dict[str, list[Report]] = defaultdict(list)
    for report in reports:
        by_player[report.reported_key or f"name:{name_key(report.reported)}"].append(report)
    ranked = sorted(by_player.values(), key=lambda rs: (-len({r.reporter for r in rs}), -max(r.at for r in rs)))
    return [max(rs, key=lambda r: r.at).line(len({r.reporter for r in rs})) for rs in ranked[:limit]]
