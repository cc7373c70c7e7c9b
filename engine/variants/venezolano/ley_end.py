"""The end of an a-ley hand (docs/RULES.md 4.9): the envite and flor points kept for it, the
hidden flores shown, La Reservada kept quiet (V-R4..V-R9) and the penalties withheld."""

from __future__ import annotations

from dataclasses import replace


from engine.core.events import Event, PointsWithheld, Scoring
from engine.core.ledger import credit_now
from engine.core.state import Work
from engine.variants.venezolano.record import hand_of
from engine.variants.venezolano.ley import ENVITE_SIN_LEY, FLOR_POINTS, el_pie, holds, reservada, settle


def _team_has(w: Work, team: int, rules: tuple[str, ...]) -> str | None:
    for seat, rule in hand_of(w).flor_lost:
        if seat % 2 == team and rule in rules:
            return str(rule)
    return None


_HIDDEN = ("V-F1", "V-F2", "V-F9", "V-F10")


def _withhold(w: Work, events: list[Event], team: int, points: int, reason: Scoring, rule: str) -> None:
    events.append(PointsWithheld(team, points, reason, rule))
    w.variant_hand = replace(hand_of(w), penalties=hand_of(w).penalties + ((team, rule, points),))


def _silent_rule(w: Work, seat: int) -> str:
    """V-R4..V-R6 for La Reservada kept quiet."""
    opp = 1 - seat % 2
    if any(s % 2 == opp for s in w.flor_announced):
        return "V-R6"
    if seat == el_pie(w) and not any(s % 2 == opp for s in hand_of(w).ley_seats):
        return "V-R4"
    return "V-R5"


def _sinley_void(w: Work) -> bool:
    """V-F3: a declared flor makes the envite sin ley worth nothing, unless a Reservada
    holder without a partner's flor took part in it (V-R8)."""
    if not w.flor_announced:
        return False
    for seat in hand_of(w).sinley_seats:
        if reservada(w, seat) and not any(
            holds(w, p) for p in w.players if p != seat and p % 2 == seat % 2
        ):
            return False
    return True


def final(w: Work, events: list[Event], game_over: bool) -> bool:
    """Collect the deferred envite and flor points with the penalties; show hidden flores.
    Returns True when the game is over."""
    if not hand_of(w).ley_closed:
        settle(w, events, betting=False)
    deferred = list(hand_of(w).ley_deferred)
    conley = _conley_won(w, deferred)
    for i in range(len(deferred)):
        team, points, reason = deferred[i]
        if game_over:
            break
        rule = None
        if reason in ENVITE_SIN_LEY:
            rule = _sinley_rule(w, team, points)
            if rule is None and conley is not None and conley[0] == team and _reservada_team(w, team):
                # V-R9: both envites won by a Reservada team: only the larger counts, only
                # the envite con ley when the holder's partner has a flor.
                partner_flor = sum(1 for s in w.players if s % 2 == team and holds(w, s)) > 1
                if partner_flor or points <= conley[1]:
                    rule = "V-R9"
                else:
                    _drop_conley(w, events, deferred, team, conley[1])
        if rule is not None:
            _withhold(w, events, team, points, reason, rule)
            continue
        game_over = credit_now(w, events, team, points, reason)
    if hand_of(w).ley_deferred:
        w.variant_hand = replace(hand_of(w), ley_deferred=())
    for seat, rule in hand_of(w).flor_lost:
        if seat not in hand_of(w).passed_seats:  # passed cards are never shown (OP-VE-23)
            w.shown = w.shown + ((seat, w.dealt[seat]),)
        if rule not in ("V-R4", "V-R5") or game_over:
            continue
        team = seat % 2
        silent = _silent_rule(w, seat)
        opp_flor = any(holds(w, s) for s in w.players if s % 2 != team)
        # 3 flor + 1 envite point (V-R2); with a partner's flor the team has 6 (V-R7).
        worth = FLOR_POINTS + (0 if any(s % 2 == team for s in w.flor_announced) else 1)
        if silent == "V-R4" or (silent == "V-R5" and not opp_flor):
            game_over = credit_now(w, events, team, worth, Scoring.RESERVADA)
        else:
            _withhold(w, events, team, worth, Scoring.RESERVADA, silent)
    return game_over


def _sinley_rule(w: Work, team: int, points: int) -> str | None:
    """Why the envite sin ley won by `team` is not collected, or None."""
    if _sinley_void(w):
        return "V-F3"
    if _team_has(w, team, _HIDDEN):
        return "V-F9"
    for seat, rule in hand_of(w).flor_lost:
        if seat % 2 == team and rule in ("V-R4", "V-R5") and _silent_rule(w, seat) != "V-R4":
            return _silent_rule(w, seat)
    return None


def _reservada_team(w: Work, team: int) -> bool:
    return any(reservada(w, s) for s in w.players if s % 2 == team)


def _conley_won(w: Work, deferred: list[tuple[int, int, Scoring]]) -> tuple[int, int] | None:
    """(team, stake) of an envite con ley won in this hand, if any."""
    rec = hand_of(w)
    for team, points, reason in deferred:
        if reason == Scoring.CON_LEY_DECLINED:
            return team, points
    if rec.conley_stake and w.flor_result is not None:
        return int(w.flor_result[0]), int(rec.conley_stake)
    return None


def _drop_conley(
    w: Work, events: list[Event], deferred: list[tuple[int, int, Scoring]], team: int, stake: int
) -> None:
    """V-R9, the envite sin ley is the larger: the stake of the envite con ley is withheld."""
    for i, (t, points, reason) in enumerate(deferred):
        if t == team and reason in (Scoring.CON_LEY_DECLINED, Scoring.FLOR_ENVITE):
            _withhold(w, events, team, stake, reason, "V-R9")
            deferred[i] = (t, points - stake, reason)


def truco_points(w: Work, events: list[Event], winner: int, points: int, reason: Scoring) -> int:
    """V-F9, V-F10: a team with a hidden flor does not collect the truco points it wins."""
    rule = _team_has(w, winner, _HIDDEN)
    if rule is None or points <= 0:
        return points
    _withhold(w, events, winner, points, reason, rule)
    return 0
