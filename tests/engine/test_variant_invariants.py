"""Property tests for the muestra and manilha variants: random legal games for every player
count of uruguayo and paulista, with the invariants of test_invariants.py (legal actions are
exactly what apply accepts, views hide cards, scores follow the events, replay rebuilds)."""

from __future__ import annotations

import json
import random
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_invariants import MAX_STEPS, _all_calls, _choose

from engine import (
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

UY_OPTIONS = st.fixed_dictionaries({
    "target": st.sampled_from([30, 15]),
    "match_games": st.sampled_from([1, 2]),
    "flor": st.booleans(),
    "envido_max_replies": st.sampled_from(["unlimited", "a", "b"]),
    "truco_timing": st.sampled_from(["any_time", "own_turn"]),
    "mazo": st.sampled_from(["always", "two_player", "off"]),
})
BR_OPTIONS = st.fixed_dictionaries({
    "match_games": st.sampled_from([1, 2]),
    "forfeit_scope": st.sampled_from(["game", "hand"]),
    "deck": st.sampled_from(["french28", "french40"]),
})
GAMES = st.one_of(
    st.tuples(st.just("uruguayo"), st.sampled_from([2, 3, 4, 6]), UY_OPTIONS),
    st.tuples(st.just("paulista"), st.sampled_from([2, 4]), BR_OPTIONS),
)


def _hidden_from(state: State, viewer: int | None) -> set[str]:
    public = {str(c) for summary in state.history for _, cards in summary.shown for c in cards}
    blind = state.deal_kind.value == "blind"
    return {
        str(c)
        for seat, hand in enumerate(state.hands)
        if seat != viewer or blind
        for c in hand
        if str(c) not in public
    }


def _check_views(state: State) -> None:
    for viewer in [None, *range(state.n)]:
        v = view(state, viewer)
        text = json.dumps(v.to_wire())
        shown = {str(c) for c in state.rules.deck if f'"{c}"' in text}
        leaked = shown & _hidden_from(state, viewer)
        assert not leaked, f"seat {viewer} sees hidden {leaked}"
        assert all(a.seat == viewer for a in v.legal)
        assert len(v.scores) == len(v.score_holders) == len(v.scores_text)


@settings(max_examples=70, database=None, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(game=GAMES, seed=st.integers(0, 2**32))
def test_random_variant_games_keep_every_invariant(game: tuple[str, int, dict[str, Any]],
                                                   seed: int) -> None:
    variant, n, options = game
    rules = get_ruleset(variant, **options)
    deck = rules.card_notation
    rng = random.Random(seed)
    state, log = new_match(rules, n, rng)
    scores = state.scores
    game_ended = False
    steps = 0
    while not state.match_over:
        steps += 1
        assert steps < MAX_STEPS, "the match does not end"
        legal = all_legal_actions(state)
        assert legal, f"nobody can act in phase {state.phase}"
        for action in legal:
            apply(state, action)
            assert action_from_wire(action.to_wire(), deck) == action
        for _ in range(3):
            probe = _all_calls(state, rng)
            if probe not in legal_actions(state, probe.seat):
                try:
                    apply(state, probe)
                except IllegalAction as exc:
                    assert exc.reason
                else:
                    raise AssertionError(f"{probe} accepted but not listed as legal")
        if steps % 5 == 0:
            _check_views(state)
        state, events = advance(state, _choose(legal, rng), rng)
        log += events
        for event in events:
            if isinstance(event, PointsScored):
                # every score holder either gains exactly the points or nothing
                assert len(event.scores) == len(scores)
                gains = {b - a for a, b in zip(scores, event.scores)}
                assert gains <= {0, event.points} and event.points in gains
                scores = event.scores
            if isinstance(event, HandDealt) and game_ended:
                scores, game_ended = (0,) * len(scores), False  # the next game starts at 0
            if isinstance(event, GameEnded):
                assert event.scores == scores
                game_ended = True
            for viewer in [None, *range(n)]:
                seen = project_event(event, viewer)
                if isinstance(seen, HandDealt):
                    for seat, hand in enumerate(seen.hands):
                        visible = seat == viewer and seen.deal_kind != "blind"
                        assert (hand is not None) == visible
        assert state.scores == scores
    _check_views(state)
    assert replay(rules, n, log) == state
    assert replay(rules, n, [event_from_wire(e.to_wire(), deck) for e in log]) == state
