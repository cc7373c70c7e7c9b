"""Property tests: random legal games for 2, 4 and 6 players over the option combinations."""

from __future__ import annotations

import json
import random
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.calls import AMOUNT_CALLS
from engine import (
    Action,
    Call,
    GameEnded,
    HandDealt,
    IllegalAction,
    PointsScored,
    State,
    action_from_wire,
    advance,
    all_legal_actions,
    apply,
    event_from_wire,
    get_ruleset,
    legal_actions,
    new_match,
    project_event,
    replay,
    view,
)

OPTIONS = st.fixed_dictionaries(
    {
        "target": st.sampled_from([30, 15]),
        "match_games": st.sampled_from([1, 2]),
        "flor": st.booleans(),
        "reales": st.booleans(),
        "envido_max_replies": st.sampled_from(["unlimited", "a", "b"]),
        "truco_timing": st.sampled_from(["any_time", "own_turn"]),
        "mazo": st.sampled_from(["always", "two_player", "off"]),
        "simultaneous": st.booleans(),
        "negras_30": st.booleans(),
        "cfar_malas": st.booleans(),
        "cfar_no_flor_points": st.booleans(),
        "cfar_achico_all_flores": st.booleans(),
        "cfar_wins_chico": st.booleans(),
        "flor_optional": st.booleans(),
        "maldon": st.sampled_from(["off", "any", "mano"]),
    }
)

MAX_STEPS = 4000


def _hidden_from(state: State, viewer: int | None) -> set[str]:
    public = {str(c) for summary in state.history for _, cards in summary.shown for c in cards}
    return {
        str(c)
        for seat, hand in enumerate(state.hands)
        if seat != viewer
        for c in hand
        if str(c) not in public
    }


def _cards_in(wire: Any) -> set[str]:
    text = json.dumps(wire)
    from engine.cards import SPANISH_DECK

    return {str(c) for c in SPANISH_DECK if f'"{c}"' in text}


def _check_views(state: State) -> None:
    for viewer in [None, *range(state.n)]:
        v = view(state, viewer)
        wire = v.to_wire()
        # Which cards the vira promotes is public; it says nothing about who holds them.
        wire.pop("special_cards")
        leaked = _cards_in(wire) & _hidden_from(state, viewer)
        assert not leaked, f"seat {viewer} sees hidden {leaked}"
        for action in v.legal:
            assert action.seat == viewer


def _all_calls(state: State, rng: random.Random) -> Action:
    seat = rng.randrange(state.n)
    call = rng.choice(list(Call))
    card = rng.choice(state.rules.deck) if call in (Call.PLAY, Call.LAS_QUE_PINTAN) else None
    amount = rng.randrange(1, 40) if call in AMOUNT_CALLS else None
    return Action(seat, call, card, amount)


def _choose(legal: list[Action], rng: random.Random) -> Action:
    """Mostly play cards, so that hands reach their tricks instead of ending in bets."""
    plays = [a for a in legal if a.call is Call.PLAY]
    if plays and rng.random() < 0.75:
        return rng.choice(plays)
    return rng.choice(legal)


VE_OPTIONS = st.fixed_dictionaries(
    {
        "target": st.sampled_from([24, 12]),
        "match_games": st.sampled_from([1, 2]),
        "flor": st.booleans(),
        "late_raises": st.booleans(),
        "hasta_igualar_level": st.sampled_from(["illegal", "two"]),
        "las_que_pintan_figure": st.sampled_from(["illegal", "two"]),
    }
)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(n=st.sampled_from([2, 4, 6]), seed=st.integers(0, 2**32), options=OPTIONS)
def test_random_games_keep_every_invariant(n: int, seed: int, options: dict[str, Any]) -> None:
    _play_random_match("argentino", n, seed, options)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(n=st.sampled_from([2, 4]), seed=st.integers(0, 2**32), options=VE_OPTIONS)
def test_random_venezuelan_games_keep_every_invariant(
    n: int, seed: int, options: dict[str, Any]
) -> None:
    _play_random_match("venezolano", n, seed, options)


def _play_random_match(variant: str, n: int, seed: int, options: dict[str, Any]) -> None:
    rules = get_ruleset(variant, **options)
    rng = random.Random(seed)
    state, log = new_match(rules, n, rng)
    tally = [0, 0]
    game_ended = False
    steps = 0
    while not state.match_over:
        steps += 1
        assert steps < MAX_STEPS, "the match does not end"
        legal = all_legal_actions(state)
        assert legal, f"nobody can act in phase {state.phase}"
        # legal_actions never contains an action that apply rejects
        for action in legal:
            apply(state, action)
            assert action_from_wire(action.to_wire()) == action
        # and anything else is rejected with a reason
        for _ in range(3):
            probe = _all_calls(state, rng)
            if probe not in legal_actions(state, probe.seat):
                try:
                    apply(state, probe)
                except IllegalAction as exc:
                    assert exc.reason
                else:
                    raise AssertionError(f"{probe} accepted but not listed as legal")
        if steps % 7 == 0:
            _check_views(state)
        state, events = advance(state, _choose(legal, rng), rng)
        log += events
        for event in events:
            if isinstance(event, HandDealt) and game_ended:
                tally, game_ended = [0, 0], False  # the next game starts from 0-0
            if isinstance(event, PointsScored):
                tally[event.team] += event.points
                assert tuple(tally) == event.scores
            if isinstance(event, GameEnded):
                assert tuple(tally) == event.scores
                game_ended = True
            for viewer in [None, *range(n)]:
                seen = project_event(event, viewer)
                if isinstance(seen, HandDealt):
                    for seat, hand in enumerate(seen.hands):
                        assert (hand is not None) == (seat == viewer)
        # scores only change as the events say
        assert list(state.scores) == tally
    _check_views(state)
    # a replayed log (also through the wire form) rebuilds the identical state
    assert replay(rules, n, log) == state
    assert replay(rules, n, [event_from_wire(e.to_wire()) for e in log]) == state
