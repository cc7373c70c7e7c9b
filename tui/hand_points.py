"""Who scored what in a hand, and why, in words: one line per points event ("Us +2 (envido)")
and the hand's closing totals ("Us 3 (envido 2, truco 1)"), which the log's "Hand over" line
and the bets line at the end of a hand both show.

A refused truco-ladder bet is named by the call that was refused ("vale cuatro not wanted"),
the same way in every place: the call is the hand's last truco call before the points.
"""
from __future__ import annotations

from typing import Callable, Iterable, NamedTuple, Sequence

import protocol as p
from tui.i18n import Translator


# The truco family's raises, above the truco itself: a refused one is named in the points
# line ("retruco no querido"), as the table says it (seis, nueve and doce are the Brazilian
# game's, named in Portuguese: "nove recusado").
RAISES = frozenset(("retruco", "vale_cuatro", "seis", "nueve", "doce", "vale_nueve", "vale_el_juego"))
TRUCO_CALLS = RAISES | {"truco"}


class Scored(NamedTuple):
    """Points one side scored in a hand, and the truco call last made before them."""

    team: int
    points: int
    reason: str
    raised: str | None


def reason_text(tr: Translator, reason: str) -> str:
    key = f"reason.{reason}"
    return tr(key) if tr.has(key) or tr.has_default(key) else reason.replace("_", " ")


def points_reason(tr: Translator, reason: str, points: int, raised: str | None = None) -> str:
    """Why points were scored (or a hand was won). The engine books a hand won at cards as
    its truco stake; a hand nobody raised (worth 1) was won by the tricks, and says so, not
    "truco". A refused raise (``raised``: the hand's last truco call) is named: "retruco no
    querido", not "truco no querido"."""
    if reason == "truco" and points == 1:
        reason = "tricks"
    if reason == "truco_declined" and raised in RAISES:
        return str(tr(f"reason.declined.{raised}"))
    return reason_text(tr, reason)


def hand_scored(events: Iterable[p.LogEvent]) -> list[Scored]:
    """The points of the last hand among ``events`` (from its deal on), each with the truco
    call made last before them."""
    scored: list[Scored] = []
    raised: str | None = None
    for event in events:
        if isinstance(event, p.HandDealt):
            scored, raised = [], None
        elif isinstance(event, p.Acted) and event.call in TRUCO_CALLS:
            raised = event.call
        elif isinstance(event, p.PointsScored):
            scored.append(Scored(event.team, event.points, event.reason, raised))
    return scored


def hand_totals(tr: Translator, scored: Sequence[Scored], side: Callable[[int], str], first: int | None = None) -> str:
    """Each side's total for the hand and its parts: "Us 3 (envido 2, truco 1)", sides apart
    by "; ", the hand's winner (``first``) first. A side with one part names it alone: "Them 1
    (truco not wanted)". ``side(team)`` names a side. "" when nobody scored."""
    parts: dict[int, dict[str, int]] = {}
    if first is not None and any(s.team == first for s in scored):
        parts[first] = {}
    for s in scored:
        words = points_reason(tr, s.reason, s.points, s.raised)
        reasons = parts.setdefault(s.team, {})
        reasons[words] = reasons.get(words, 0) + s.points
    out = []
    for team, reasons in parts.items():
        if len(reasons) == 1:
            said = next(iter(reasons))
        else:
            said = ", ".join(tr("log.hand_part", reason=r, points=n) for r, n in reasons.items())
        out.append(tr("log.hand_total", team=side(team), points=sum(reasons.values()), parts=said))
    return "; ".join(out)
