""""¡Quiero retruco!" in one breath: a truco-ladder raise said to a pending bet accepts it and
raises (docs/RULES.md 1.7.1, 1.8.1: "Quiero, retruco" / "Quiero, vale cuatro"; 2.7-2.8 the same in
Uruguay; 3.7 the Brazilian counter-raise; 4.8.1 the Venezuelan "quiero y retruco")."""

from __future__ import annotations

import random
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import (Action, Call, HandEnded, advance, all_legal_actions, get_ruleset, legal_actions,
                    new_match, replay, view)
from engine.core.calls import TRUCO_CALLS
from engine.testing import E, N, S, W, act, illegal, points, scenario
from tests.engine.test_invariants import _play_random_match
from tests.engine.test_variant_invariants import BR_OPTIONS, UY_OPTIONS

ARGENTINE = {"flor": False}


def _play_out(state: Any) -> list[Any]:
    events: list[Any] = []
    while not state.needs_deal:
        state, ev = act(state, (state.turn, "play", str(state.hands[state.turn][0])))
        events += ev
    return events


# ---------------------------------------------------------------- the rules' examples


def test_AR21_quiero_retruco_in_one_breath_then_wanted_is_3() -> None:
    state, _ = scenario({0: "1e 1b 7e", 1: "4c 5c 6o"}, n=2, **ARGENTINE)
    state, _ = act(state, (1, "truco"), (0, "retruco"), (1, "quiero"))
    assert state.truco_level == 2
    assert points(_play_out(state)) == [(0, 3, "truco")]


def test_AR21_quiero_retruco_not_wanted_pays_the_accepted_truco() -> None:
    """The truco was accepted by the raise: refusing the retruco gives its caller 2."""
    state, _ = scenario({}, n=2, **ARGENTINE)
    state, _ = act(state, (1, "truco"), (0, "retruco"))
    _, ev = act(state, (1, "no_quiero"))
    assert points(ev) == [(0, 2, "truco_declined")]
    assert any(isinstance(e, HandEnded) for e in ev)


def test_AR21_quiero_vale_cuatro_in_one_breath() -> None:
    state, _ = scenario({0: "1e 1b 7e", 1: "4c 5c 6o"}, n=2, **ARGENTINE)
    state, _ = act(state, (0, "truco"), (1, "retruco"), (0, "vale_cuatro"))
    assert (state.truco_level, state.truco_pending, state.truco_by) == (2, 3, 0)
    _, ev = act(state, (1, "no_quiero"))
    assert points(ev) == [(0, 3, "truco_declined")]
    up, _ = act(state, (1, "quiero"))
    assert points(_play_out(up)) == [(0, 4, "truco")]
    assert "highest" in illegal(up, 1, "vale_cuatro") or "right" in illegal(up, 1, "vale_cuatro")


def test_AR23_west_says_quiero_retruco_and_north_quiero_vale_cuatro() -> None:
    """AR-23 said in one breath each: E-W answer North's truco with "quiero retruco" (they
    hold the right), North answers with "quiero, vale cuatro"; declined, N-S score 3."""
    state, _ = scenario({}, **ARGENTINE)
    state, _ = act(state, (N, "truco"))
    assert "waiting" in illegal(state, S, "retruco")  # N-S's own truco waits for its answer
    state, _ = act(state, (W, "retruco"))
    assert "waiting" in illegal(state, E, "vale_cuatro")  # E-W's retruco waits likewise
    up, _ = act(state, (N, "vale_cuatro"))
    _, ev = act(up, (E, "no_quiero"))
    assert points(ev) == [(1, 3, "truco_declined")]
    up, _ = act(up, (E, "quiero"))
    assert up.truco_level == 3 and not up.truco_pending


def test_quiero_retruco_ends_the_speakers_envido_not_his_partners() -> None:
    """OP-AR-7: accepting a truco in trick 1 ends one's envido window, raising too."""
    state, _ = scenario({}, **ARGENTINE)
    state, _ = act(state, (N, "truco"), (E, "retruco"))
    assert E in state.envido_barred and W not in state.envido_barred
    assert Action(S, Call.ENVIDO) in legal_actions(state, S)  # facing the retruco: envido first
    state, _ = act(state, (N, "quiero"))
    assert Action(W, Call.ENVIDO) in legal_actions(state, W)
    assert Action(E, Call.ENVIDO) not in legal_actions(state, E)


def test_the_hand_guide_and_the_keys_offer_the_raise_as_an_answer() -> None:
    state, _ = scenario({}, n=2, **ARGENTINE)
    state, _ = act(state, (0, "truco"))
    answer = view(state, 1)
    assert {a.call for a in answer.legal} >= {Call.QUIERO, Call.NO_QUIERO, Call.RETRUCO}
    assert "retruco" not in dict(answer.call_refusals)
    state, _ = act(state, (1, "retruco"))
    bet = next(b for b in view(state, 0).bets if b.kind == "truco")
    assert (bet.calls[-1], bet.wanted, bet.refused) == ("retruco", 3, 2)


def test_uruguayan_three_players_the_pair_answers_with_quiero_retruco() -> None:
    state, _ = scenario({}, n=3, variant="uruguayo", **ARGENTINE)
    mano = state.mano
    state, _ = act(state, (mano, "discard", str(state.hands[mano][0])), (mano, "truco"))
    pair = [s for s in range(3) if s != mano]
    for seat in pair:
        assert Action(seat, Call.RETRUCO) in legal_actions(state, seat)
    state, _ = act(state, (pair[1], "retruco"))
    assert Action(mano, Call.VALE_CUATRO) in legal_actions(state, mano)
    _, ev = act(state, (mano, "no_quiero"))
    assert [(p[1], p[2]) for p in points(ev)] == [(2, "truco_declined")]


def test_brazilian_and_venezuelan_counter_raises_are_unchanged() -> None:
    state, _ = scenario({}, n=2, variant="paulista")
    state, _ = act(state, (state.turn, "truco"))
    other = 1 - state.truco_seat
    assert Action(other, Call.SEIS) in legal_actions(state, other)
    state, _ = scenario({}, n=2, variant="venezolano", flor=False)
    state, _ = act(state, (state.turn, "truco"))
    other = 1 - state.truco_seat
    assert Action(other, Call.RETRUCO) in legal_actions(state, other)


# ---------------------------------------------------------------- random games using it


def _raise_when_you_can(legal: list[Action], rng: random.Random) -> Action:
    """Take a raise whenever one is legal (most often the answer to a pending bet), else
    mostly play cards: hands climb the whole ladder by counter-raises."""
    raises = [a for a in legal if a.call in TRUCO_CALLS]
    if raises and rng.random() < 0.8:
        return rng.choice(raises)
    plays = [a for a in legal if a.call is Call.PLAY]
    if plays and rng.random() < 0.7:
        return rng.choice(plays)
    return rng.choice(legal)


GAMES = st.one_of(
    st.tuples(st.just("argentino"), st.sampled_from([2, 4, 6]),
              st.fixed_dictionaries({"flor": st.booleans(), "target": st.just(15),
                                     "truco_timing": st.sampled_from(["any_time", "own_turn"]),
                                     "mazo": st.sampled_from(["always", "off"])})),
    st.tuples(st.just("uruguayo"), st.sampled_from([2, 3, 4, 6]), UY_OPTIONS),
    st.tuples(st.just("paulista"), st.sampled_from([2, 4]), BR_OPTIONS),
    st.tuples(st.just("venezolano"), st.sampled_from([2, 4]),
              st.fixed_dictionaries({"late_raises": st.booleans(), "target": st.just(12)})),
)


@settings(max_examples=40, database=None, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(game=GAMES, seed=st.integers(0, 2**32))
def test_random_games_answering_with_raises_keep_every_invariant(game: tuple[str, int, dict[str, Any]],
                                                                 seed: int) -> None:
    """Legal actions are what apply accepts, views hide cards, scores follow the events, and
    the log (also through its wire form) replays to the same state."""
    variant, n, options = game
    _play_random_match(variant, n, seed, options, views_every=9, choose=_raise_when_you_can)


@settings(max_examples=40, database=None, deadline=None)
@given(seed=st.integers(0, 2**32), n=st.sampled_from([2, 4, 6]))
def test_a_counter_raise_accepts_the_step_it_answers(seed: int, n: int) -> None:
    """Each "quiero <raise>" leaves the answered step accepted and the raise pending from the
    speaker (his team holds no right until it is answered), and the log replays to the
    same state."""
    rules = get_ruleset("argentino", flor=False)
    rng = random.Random(seed)
    state, log = new_match(rules, n, rng)
    seen = 0
    while not state.match_over and seen < 8:
        legal = all_legal_actions(state)
        action = _raise_when_you_can(legal, rng)
        pending, by = state.truco_pending, state.truco_by
        state, events = advance(state, action, rng)
        log += events
        if pending and action.call in TRUCO_CALLS and not any(isinstance(e, HandEnded) for e in events):
            seen += 1
            assert rules.truco_ladder[pending].call is action.call
            assert state.team_of[action.seat] != by
            assert (state.truco_level, state.truco_pending) == (pending, pending + 1)
            assert state.truco_by == state.team_of[action.seat] and state.truco_seat == action.seat
    assert seen == 8 or state.match_over
    assert replay(rules, n, log) == state
