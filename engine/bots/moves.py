"""The bot's moves by family: envido, declaring and flor, truco, card play."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from engine.bots.seat import (
    ACCEPT,
    DECLARE,
    DECLINE,
    ENVIDO_BET,
    FLOR_ACCEPT,
    FLOR_ANNOUNCE,
    FLOR_CONCEDE,
    FLOR_PASS,
    FLOR_RAISE,
    MAZO,
    PLAY,
    SON_BUENAS,
    Seat,
    TRUCO,
    share_below,
)
from engine.bots.style import Style
from engine.core.actions import Action
from engine.core.ruleset import FlorDeclaration, RuleSet


# ---------------------------------------------------------------- envido


def _envido_steps(rules: RuleSet) -> dict[str, Any]:
    return {step.call.value: step for step in rules.envido_ladder}


def _is_falta(step: Any) -> bool:
    return step.points == 0 or "falta" in step.call.value


def _stake(seat: Seat, calls: Sequence[str]) -> int:
    steps = _envido_steps(seat.rules)
    total = 0
    for name in calls:
        step = steps.get(name)
        if step is None:
            total += 2
        elif _is_falta(step):
            return seat.falta_points()
        else:
            total += step.points
    return total


def open_envido(seat: Seat, openings: list[Action], rng: random.Random) -> Action | None:
    if seat.rules.flor and seat.flor_value() is not None:
        return None
    view = seat.view
    if view.flor_announced or seat.me in view.ley_seats:
        return None  # the envite would be con ley (a bet on a flor): not without one
    value = seat.envido_value()
    chance = seat.envido_chance(value)
    bluff = rng.random() < seat.style.envido_bluff
    if chance < seat.style.envido_call and not bluff:
        return None
    steps = _envido_steps(seat.rules)
    plain = [a for a in openings if not _is_falta(steps[a.call.value])]
    falta = [a for a in openings if _is_falta(steps[a.call.value])]
    plain.sort(key=lambda a: steps[a.call.value].points)
    if bluff and chance < seat.style.envido_call:
        return plain[0] if plain else None
    behind = seat.my_score < seat.their_score
    if falta and chance > 0.95 and (behind or seat.falta_points() <= 6) and (
            not seat.style.falta_to_win or seat.falta_points() >= seat.target - seat.my_score):
        return falta[0]
    if chance > 0.9 and len(plain) > 1:
        return plain[1]
    return plain[0] if plain else None


def caller_quantile(calls: Sequence[str], rules: RuleSet, style: Style) -> float:
    """Where in the range of envido values the other side's bet `calls` puts the caller's
    (a quantile: the rule-based bot opens with the top ~55%, a falta or a raise says more),
    moved by the level's `caller_shift`."""
    steps = _envido_steps(rules)
    last = steps.get(calls[-1]) if calls else None
    level = 0.45
    if last is not None and _is_falta(last):
        level = 0.65
    elif last is not None and last.points >= 3:
        level = 0.6
    if len(calls) > 1:
        level += 0.1
    level += style.caller_shift
    return min(level, 0.95 if style.caller_shift else 0.9)


def answer_envido(seat: Seat, known: dict[str, list[Action]], rng: random.Random) -> Action:
    view = seat.view
    calls = view.envido_calls
    steps = _envido_steps(seat.rules)
    accept = known.get(ACCEPT, [None])[0]
    decline = known.get(DECLINE, [None])[0]
    raises = known.get(ENVIDO_BET, [])
    if seat.rules.flor and seat.flor_value() is not None and accept is not None:
        return accept  # a flor outranks any envido (only reachable in new variants)
    stake = _stake(seat, calls)
    refused = 1 if len(calls) <= 1 else _stake(seat, calls[:-1])
    value = seat.envido_value()
    chance = seat.envido_chance(value, caller_quantile=caller_quantile(calls, seat.rules, seat.style))
    if raises and chance > seat.style.envido_raise:
        ordered = sorted(raises, key=lambda a: (_is_falta(steps[a.call.value]),
                                               steps[a.call.value].points))
        falta = [a for a in ordered if _is_falta(steps[a.call.value])]
        if falta and chance > 0.92 and seat.my_score < seat.their_score:
            return falta[0]
        return ordered[0]
    if accept is None:
        return decline if decline is not None else raises[0]
    if decline is None:
        return accept
    return accept if _take_bet(seat, chance, stake, refused, rng) else decline


def _take_bet(seat: Seat, chance: float, stake: int, refused: int, rng: random.Random) -> bool:
    """Accept a bet worth `stake` (won or lost) whose refusal costs `refused` now?"""
    need_them = seat.target - seat.their_score
    need_us = seat.target - seat.my_score
    if refused >= need_them:
        return True  # refusing hands them the game: play for it
    if stake >= need_them and chance < 0.5:
        # Losing it loses the game; winning it must be likely to be worth it unless it
        # wins us the game too.
        return stake >= need_us and chance > 0.4
    gain = (2 * chance - 1) * stake
    margin = 0.25 * rng.random()  # a little noise near the edge
    return gain > -refused + margin - seat.style.accept_margin


# ---------------------------------------------------------------- declaring and flor


def declare(seat: Seat, known: dict[str, list[Action]]) -> Action:
    if DECLARE in known:
        return known[DECLARE][0]
    return known[SON_BUENAS][0]


def flor(seat: Seat, known: dict[str, list[Action]], rng: random.Random) -> Action:
    view = seat.view
    value = seat.flor_value()
    announce = known.get(FLOR_ANNOUNCE, [])
    accept = known.get(FLOR_ACCEPT, [])
    raises = known.get(FLOR_RAISE, [])
    concede = known.get(FLOR_CONCEDE, [])
    pas = known.get(FLOR_PASS, [])
    opposing = sum(1 for s in view.flor_announced if view.teams[s] != seat.team)
    if value is None:
        # No flor of our own (a new variant's call): accept or announce, never raise.
        for group in (accept, announce, pas, concede):
            if group:
                return group[0]
        return _first_known(known)
    single = share_below(seat.tables.flor, value)
    chance = single ** max(opposing, 1)
    pending = view.flor_pending_by is not None and view.flor_pending_by != seat.team
    if pending and accept:
        # A flor bet of the other team: quiero, raise once more, or give up.
        if raises and chance > 0.9:
            return _cheapest_raise(raises)
        bet_is_resto = view.flor_level >= 2
        stake = seat.falta_points() + 6 if bet_is_resto else 6
        if concede and not _take_bet(seat, 0.8 * chance + 0.1 * (1 - chance), stake, 4, rng):
            return concede[0]
        return accept[0]
    if opposing and raises and chance > seat.style.flor_raise_at:
        return _cheapest_raise(raises)
    if opposing and concede and chance < seat.style.flor_concede_at:
        return concede[0]
    for group in (announce, pas, accept, concede, raises):
        if group:
            return group[0]
    return _first_known(known)


def _cheapest_raise(raises: list[Action]) -> Action:
    plain = [a for a in raises if "resto" not in a.call.value]
    return (plain or raises)[0]


def _first_known(known: dict[str, list[Action]]) -> Action:
    for f in (PLAY, ACCEPT, DECLARE, SON_BUENAS, FLOR_ANNOUNCE, FLOR_ACCEPT, FLOR_PASS,
              DECLINE, FLOR_CONCEDE, ENVIDO_BET, TRUCO, FLOR_RAISE, MAZO):
        if f in known:
            return known[f][0]
    raise ValueError("no known action")


# ---------------------------------------------------------------- truco


def _ladder_index(rules: RuleSet, name: str | None) -> int:
    for i, step in enumerate(rules.truco_ladder):
        if step.call.value == name:
            return i
    return -1


def call_truco(seat: Seat, calls: list[Action], rng: random.Random) -> Action | None:
    rules = seat.rules
    call = calls[0]
    idx = _ladder_index(rules, call.call.value)
    threshold = seat.style.truco_call[min(max(idx, 0), len(seat.style.truco_call) - 1)]
    equity = seat.equity()
    if equity >= 0.999:
        return call  # the hand is ours: raise the stake
    if equity >= threshold:
        # Early in the hand a strong hand sometimes waits to be called (slow play).
        if not seat.view.tricks and rng.random() < seat.style.truco_slowplay:
            return None
        return call
    if idx <= 0 and equity < 0.35 and rng.random() < seat.style.truco_bluff:
        return call
    return None


def answer_truco(seat: Seat, known: dict[str, list[Action]], rng: random.Random) -> Action:
    view, rules = seat.view, seat.rules
    accept = known.get(ACCEPT, [None])[0]
    decline = known.get(DECLINE, [None])[0]
    counter = known.get(TRUCO, [])
    idx = _ladder_index(rules, view.truco_pending)
    if idx >= 0:
        stake = rules.truco_ladder[idx].accepted
        refused = rules.truco_ladder[idx].declined
    else:
        refused = view.truco_value
        stake = refused + 1
    read = seat.beliefs is not None and seat.beliefs.read_caller
    equity = seat.equity() * (seat.style.read_discount if read else seat.style.caller_discount)
    if counter and equity > 0.8:
        return counter[0]
    if accept is None:
        if decline is not None and not counter:
            return decline
        return counter[0] if counter else _first_known(known)
    if decline is None or _decline_loses_game(seat, refused):
        return accept
    return accept if _take_bet(seat, equity, stake, refused, rng) else decline



# ---------------------------------------------------------------- the order of the bets


def bet_first(seat: Seat, known: dict[str, list[Action]], rng: random.Random, *,
              envido: bool = True) -> Action | None:
    """An initiative on one's own turn: the envido is opened first (it is only offered
    before the truco settles it), else the truco is called; None: no bet (play a card).
    `envido=False` keeps the envido shut (a partner's flor settles it: engine/bots/senas.py)."""
    if envido and ENVIDO_BET in known:
        opening = open_envido(seat, known[ENVIDO_BET], rng)
        if opening is not None:
            return opening
    if TRUCO in known:
        return call_truco(seat, known[TRUCO], rng)
    return None


def answer_bet(seat: Seat, known: dict[str, list[Action]], rng: random.Random, *,
               envido: bool = True) -> Action:
    """A truco-ladder bet waits for our answer: the envido comes first (el envido está
    primero), else the truco is answered."""
    if envido and ENVIDO_BET in known:
        opening = open_envido(seat, known[ENVIDO_BET], rng)
        if opening is not None:
            return opening
    return answer_truco(seat, known, rng)

def _decline_loses_game(seat: Seat, refused: int) -> bool:
    """A ley: the callers' declared flores are paid at the end of the hand (3 each), so
    declining gives them those and the refused points; if that wins them the game, play."""
    view, rules = seat.view, seat.rules
    by = view.truco_pending_by
    if rules.flor_declaration is not FlorDeclaration.A_LEY or by is None or len(view.scores) != 2:
        return False
    flores = sum(1 for s in view.flor_announced if view.teams[s] == by)
    return bool(flores) and view.scores[by] + refused + 3 * flores >= view.target


# ---------------------------------------------------------------- card play


def play(seat: Seat, plays: list[Action], rng: random.Random) -> Action:
    s = seat.s
    ordered = sorted(plays, key=lambda a: s(a.card) if a.card is not None else 0)  # low first
    if len(ordered) == 1:
        return ordered[0]
    low = ordered[0]
    view = seat.view
    ours, theirs, opps_after, mates_after = seat.table()
    # Losing this trick loses the hand (or a parda already happened): it must be fought.
    critical = seat.lost > seat.won or seat.pardas > 0 or (seat.lost == 1 and seat.won == 1)

    if seat.style.team_play and mates_after and not critical:
        team = _team_card(seat, ordered, theirs, bool(view.tricks))
        if team is not None:
            return team
    if not view.current_trick:
        return _lead(seat, ordered, critical, rng)

    strengths = [s(a.card) for a in ordered]  # type: ignore[arg-type]
    winners = [a for a, st in zip(ordered, strengths) if st > theirs]
    ties = [a for a, st in zip(ordered, strengths) if st == theirs]

    if ours > theirs:
        # A partner holds the trick: keep good cards unless opponents are likely to beat it.
        hold = seat.trick_chance(ours, opps_after, 0)
        if hold >= 0.6 or not opps_after:
            return low
        better = [a for a in winners if s(a.card) > ours]  # type: ignore[arg-type]
        if better and (critical or hold < 0.35):
            return _safest(seat, better, opps_after, critical)
        return low

    if not opps_after:
        # Last of the opponents has played: take it as cheaply as possible, or tie, or throw.
        if winners:
            return winners[0]
        if ties and (critical or not view.tricks):
            return ties[0]
        return low

    # Opponents still to play after us.
    if winners:
        pick = _safest(seat, winners, opps_after, critical)
        chance = seat.trick_chance(s(pick.card), opps_after, mates_after)  # type: ignore[arg-type]
        if chance >= 0.5 or critical or not mates_after:
            return pick
    if ties and critical:
        return ties[-1]
    return low


def _team_card(seat: Seat, ordered: list[Action], theirs: int, later_trick: bool) -> Action | None:
    """A partner plays after us in this trick (4 and 6 players) and it decides nothing yet:
    the last of the team ("el pie") sees every card and plays to win or to save, so the
    others keep their good cards. Leading, the lowest card; in the first trick, the cheapest
    card that kills an opponent's strong one (the pie need not spend his), else the lowest.
    Measured with tests/bench/bench_bots.py (normal-today at 4 and 6 players, 1,200 games on
    the same deals): 58.8% -> 63.7% (seeds from 1000), 58.6% -> 62.7% (from 5000)."""
    if not seat.view.current_trick:
        return ordered[0]
    if later_trick:
        return None
    if seat.pct(theirs) >= 0.8:
        for a in ordered:
            if seat.s(a.card) > theirs:  # type: ignore[arg-type]
                return a
    return ordered[0]


def _safest(seat: Seat, winners: list[Action], opps_after: int, critical: bool) -> Action:
    """Among cards that beat the table (low first): the cheapest one that will probably hold
    against the opponents still to play, else the best one if the trick matters."""
    for a in winners:
        if seat.trick_chance(seat.s(a.card), opps_after, 0) >= 0.7:  # type: ignore[arg-type]
            return a
    return winners[-1] if critical else winners[0]


def _lead(seat: Seat, ordered: list[Action], critical: bool, rng: random.Random) -> Action:
    low, high = ordered[0], ordered[-1]
    if critical:
        return high
    if not seat.view.tricks:
        if seat.n_mate and rng.random() < 0.7:
            return low  # a partner plays after us: lead low and let him cover
        middle = ordered[len(ordered) // 2]
        return high if rng.random() < 0.15 else middle
    # We took the first trick: one more wins. Lead the best if it is strong, else keep it.
    if seat.won > seat.lost:
        return high if seat.pct(seat.s(high.card)) >= 0.6 else low  # type: ignore[arg-type]
    return high
