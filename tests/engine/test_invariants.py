"""Property tests: random legal games for 2, 4 and 6 players over the option combinations."""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.core.calls import AMOUNT_CALLS
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
    """Cards in hands that this viewer may not see (nobody sees his own in a blind hand)."""
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
        wire = v.to_wire()
        # Which cards the vira promotes is public; it says nothing about who holds them.
        wire.pop("special_cards")
        # So are the special cards it makes and the card ranking it gives (the whole deck).
        wire.pop("card_marks")
        wire.pop("ranking")
        text = json.dumps(wire)
        shown = {str(c) for c in state.rules.deck if f'"{c}"' in text}
        leaked = shown & _hidden_from(state, viewer)
        assert not leaked, f"seat {viewer} sees hidden {leaked}"
        assert all(a.seat == viewer for a in v.legal)
        assert len(v.scores) == len(v.score_holders) == len(v.scores_text)


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
        "flor_declaration": st.sampled_from(["a_ley", "automatic"]),
    }
)


@settings(max_examples=35, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(n=st.sampled_from([2, 4, 6]), seed=st.integers(0, 2**32), options=OPTIONS)
def test_random_games_keep_every_invariant(n: int, seed: int, options: dict[str, Any]) -> None:
    _play_random_match("argentino", n, seed, options)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(n=st.sampled_from([2, 4]), seed=st.integers(0, 2**32), options=VE_OPTIONS)
def test_random_venezuelan_games_keep_every_invariant(
    n: int, seed: int, options: dict[str, Any]
) -> None:
    _play_random_match("venezolano", n, seed, options)


def _play_random_match(variant: str, n: int, seed: int, options: dict[str, Any],
                       views_every: int = 7,
                       choose: Callable[[list[Action], random.Random], Action] = _choose) -> None:
    """Play one random legal match and check every invariant along the way.

    Shared by every variant: scores may be per team or per player (the three-player
    game), cards may be French, and a blind hand hides everyone's own cards.
    """
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
        # legal_actions never contains an action that apply rejects
        for action in legal:
            apply(state, action)
            assert action_from_wire(action.to_wire(), deck) == action
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
        if steps % views_every == 0:
            _check_views(state)
        state, events = advance(state, choose(legal, rng), rng)
        log += events
        for event in events:
            if isinstance(event, HandDealt) and game_ended:
                scores, game_ended = (0,) * len(scores), False  # the next game starts at 0
            if isinstance(event, PointsScored):
                # every score holder gains exactly the points or nothing; with two teams,
                # exactly the team the event names
                assert len(event.scores) == len(scores)
                gains = [b - a for a, b in zip(scores, event.scores)]
                # (where scores stop at the target, a score may gain less: up to the target)
                credited = {min(event.points, rules.target - a) if rules.score_cap else event.points
                            for a, gain in zip(scores, gains) if gain}
                assert set(gains) - {0} <= credited and credited
                if rules.score_cap:
                    assert max(event.scores) <= rules.target
                if len(scores) == 2:
                    assert gains[event.team] in credited and gains[1 - event.team] == 0
                scores = event.scores
            if isinstance(event, GameEnded):
                assert event.scores == scores
                game_ended = True
            for viewer in [None, *range(n)]:
                seen = project_event(event, viewer)
                if isinstance(seen, HandDealt):
                    for seat, hand in enumerate(seen.hands):
                        visible = seat == viewer and seen.deal_kind != "blind"
                        assert (hand is not None) == visible
        # scores only change as the events say
        assert state.scores == scores
    _check_views(state)
    # a replayed log (also through the wire form) rebuilds the identical state
    assert replay(rules, n, log) == state
    assert replay(rules, n, [event_from_wire(e.to_wire(), deck) for e in log]) == state
