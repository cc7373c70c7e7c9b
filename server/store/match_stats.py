"""What a finished match's log says about each team, for the stats screen.

Counted from the engine events' wire form (as logged), per team of a two-team match:
- points for: every point the team scored (envido, flor, truco, all games of the match);
- envidos won: hands where the team scored envido points (won, or refused by the others);
- trucos won: hands where a truco was called and the team took the truco points (by the
  tricks, or because the others refused it); a hand played without a truco call is no truco;
- trucos refused: trucos (or raises) the team answered "no quiero".
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable

TRUCO_CALLS = frozenset((
    "truco", "retruco", "vale_cuatro", "seis", "nueve", "doce", "vale_nueve", "vale_el_juego",
))
ENVIDO_REASONS = frozenset(("envido", "envido_declined"))
TRUCO_DECLINED = "truco_declined"


@dataclass(frozen=True)
class TeamStats:
    points_for: int = 0
    envidos_won: int = 0
    trucos_won: int = 0
    trucos_refused: int = 0


def match_stats(events: Iterable[dict[str, Any]], teams: int = 2) -> list[TeamStats]:
    """Per team (0, 1): what the match's events count (see the module's docstring)."""
    points = [0] * teams
    envidos = [0] * teams
    trucos = [0] * teams
    refused = [0] * teams
    truco_called = False
    envido_hand: set[int] = set()  # teams already credited an envido this hand
    for event in events:
        kind = event.get("type")
        if kind == "hand_dealt":
            truco_called, envido_hand = False, set()
        elif kind == "acted" and event.get("call") in TRUCO_CALLS:
            truco_called = True
        elif kind == "points_scored":
            team, reason = event.get("team"), event.get("reason")
            if not isinstance(team, int) or not 0 <= team < teams:
                continue
            points[team] += int(event.get("points") or 0)
            if reason in ENVIDO_REASONS and team not in envido_hand:
                envido_hand.add(team)
                envidos[team] += 1
            elif reason == "truco" and truco_called:
                trucos[team] += 1
            elif reason == TRUCO_DECLINED:
                trucos[team] += 1
                if teams == 2:
                    refused[1 - team] += 1
    return [TeamStats(points[t], envidos[t], trucos[t], refused[t]) for t in range(teams)]
