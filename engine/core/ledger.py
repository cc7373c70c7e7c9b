"""The ledger: who holds the scores and how points are credited.

Rule functions settle (team, points, reason) and call `credit`; the ledger adds the points,
or keeps them for later (OPT-SIMULTANEOUS, or a variant's hook such as the Venezuelan a-ley
hand), and says whether the game just ended.
"""

from __future__ import annotations

from engine.core.events import Event, PointsScored, Scoring
from engine.core.state import HandState, Work


def holders(w: HandState, team: int) -> tuple[int, ...]:
    """Indices into `scores` credited when `team` (of the current hand) scores."""
    if len(w.scores) == 2:
        return (team,)
    return tuple(s for s in range(w.n) if w.team_of[s] == team)


def team_score(w: HandState, team: int) -> int:
    return int(max(w.scores[h] for h in holders(w, team)))


def add_points(w: Work, team: int, points: int) -> None:
    """Credit `team`; where the rules cap scores at the target (Brazil), a score stops there."""
    scores = list(w.scores)
    cap = w.rules.target if w.rules.score_cap else None
    for h in holders(w, team):
        scores[h] += points
        if cap is not None and scores[h] > cap:
            scores[h] = cap
    w.scores = tuple(scores)


def credit(w: Work, events: list[Event], team: int, points: int, reason: Scoring) -> bool:
    """Add points now (or defer them under OPT-SIMULTANEOUS, or to the end of an a-ley
    hand); True if the game just ended."""
    if points <= 0:
        return False
    if w.rules.simultaneous and reason != Scoring.TRUCO and reason != Scoring.TRUCO_DECLINED and reason != Scoring.MAZO:
        w.deferred = w.deferred + ((team, points, reason),)
        return False
    if w.rules.hooks.defer_credit(w, team, points, reason):
        return False
    return credit_now(w, events, team, points, reason)


def credit_now(w: Work, events: list[Event], team: int, points: int, reason: Scoring) -> bool:
    if points <= 0:
        return False
    add_points(w, team, points)
    events.append(PointsScored(team, points, reason, w.scores))
    return not w.rules.simultaneous and team_score(w, team) >= w.rules.target


def leader_needs(w: HandState, goal: int) -> int:
    """Points the leading team still needs to reach `goal` (falta envido, al resto)."""
    return int(max(goal - max(w.scores), 1))


def contraflor_stake(w: HandState) -> int:
    """What an accepted contraflor (level 1) or contraflor al resto (level 2) pays, whoever
    holds the best flor (RULES 1.9.3/1.9.4); the contraflor al resto that wins the game
    (OPT-CFAR-WINS-CHICO) is the exception, worth what the winner lacks. Settled here so the
    flor rules and the hand guide read one formula, and the guide needs no hidden card."""
    total = len(w.flor_announced)
    if w.flor_level != 2:
        return 3 * total
    rules = w.rules
    goal = rules.malas if rules.cfar_malas and max(w.scores) <= rules.malas else rules.target
    points = leader_needs(w, goal)
    return points if rules.cfar_no_flor_points else points + 3 * total


def truco_value(w: HandState) -> int:
    """What the hand is worth now; a game-deciding step shows the whole target."""
    level = w.truco_level
    if not level:
        return 1
    step = w.rules.truco_ladder[level - 1]
    return int(w.rules.target if step.wins_game else step.accepted)
