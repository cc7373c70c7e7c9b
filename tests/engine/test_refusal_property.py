"""One reading of each rule: `refusal(state, action)` is the engine's single check, so over
random games of every variant and player count, for every action one could ask about
(every call, with each card and each amount a call may name, and malformed ones),
`legal_actions` lists it exactly when `refusal` finds nothing against it, `apply` accepts
it then, and otherwise raises IllegalAction quoting that same reason."""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import Action, Call, IllegalAction, advance, all_legal_actions, apply, get_ruleset, legal_actions, new_match
from engine.core.calls import AMOUNT_CALLS
from engine.core.game import refusal
from engine.core.state import State
from tests.engine.test_invariants import OPTIONS, VE_OPTIONS, _choose
from tests.engine.test_variant_invariants import BR_OPTIONS, UY_OPTIONS

MAX_STEPS = 400  # a match is long; the positions of its first hands are enough here

GAMES = st.one_of(
    st.tuples(st.just("argentino"), st.sampled_from([2, 4, 6]), OPTIONS),
    st.tuples(st.just("uruguayo"), st.sampled_from([2, 3, 4, 6]), UY_OPTIONS),
    st.tuples(st.just("paulista"), st.sampled_from([2, 4]), BR_OPTIONS),
    st.tuples(st.just("venezolano"), st.sampled_from([2, 4]), VE_OPTIONS),
)

_WITH_CARD = (Call.PLAY, Call.DISCARD, Call.LAS_QUE_PINTAN)


def universe(state: State, seat: int) -> list[Action]:
    """Every action `seat` could send now: each call bare, each card call with every card
    dealt (held, played, another seat's) and a card nobody holds, each amount call with
    0 .. target + 2, and malformed shapes (a card or an amount where none belongs)."""
    cards = {c for hand in state.dealt for c in hand}
    spare = next((c for c in state.rules.deck if c not in cards and c != state.face_up), None)
    if spare is not None:
        cards.add(spare)
    acts = [Action(seat, call) for call in Call]
    acts += [Action(seat, call, card) for call in _WITH_CARD for card in sorted(cards, key=str)]
    acts += [Action(seat, call, None, n) for call in AMOUNT_CALLS for n in range(0, state.rules.target + 3)]
    some_card = next(iter(sorted(cards, key=str)))
    acts += [Action(seat, Call.QUIERO, some_card), Action(seat, Call.TRUCO, None, 3),
             Action(seat, Call.PIEDRAS, some_card, 2)]
    return acts


def check_position(state: State) -> None:
    for seat in range(state.n + 1):  # one seat past the table too
        listed = set(legal_actions(state, seat)) if seat < state.n else set()
        for action in universe(state, seat):
            reason = refusal(state, action)
            assert (reason is None) == (action in listed), (action, reason, state.phase)
            if reason is None:
                apply(state, action)
                continue
            assert reason and getattr(reason, "code", None), f"{action}: a reason without a code"
            try:
                apply(state, action)
            except IllegalAction as exc:
                assert exc.reason == reason and exc.code == getattr(reason, "code")
            else:
                raise AssertionError(f"{action} refused ({reason}) but applied")


# Every action at every position of 10 random matches, asked twice: 11 s of CPU (measured
# with os.times around the test); each run draws other matches.
@pytest.mark.slow
@settings(max_examples=10, database=None, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(game=GAMES, seed=st.integers(0, 2**32))
def test_listed_exactly_when_not_refused(game: tuple[str, int, dict[str, Any]], seed: int) -> None:
    variant, n, options = game
    rules = get_ruleset(variant, **options)
    rng = random.Random(seed)
    state, _ = new_match(rules, n, rng)
    for _ in range(MAX_STEPS):
        if state.match_over:
            break
        check_position(state)
        state, _ = advance(state, _choose(all_legal_actions(state), rng), rng)
    check_position(state)  # also a finished match refuses everything, with a reason


def test_a_ley_hands_list_exactly_what_is_not_refused() -> None:
    """The Venezuelan a-ley calls (a ley, tengo flor, con ley, pido flor) depend on the seat
    having an ordinary action: a longer run of a-ley games, every position checked."""
    rules = get_ruleset("venezolano", flor=True, flor_declaration="a_ley")
    for seed in range(6):
        rng = random.Random(seed)
        state, _ = new_match(rules, 2 + 2 * (seed % 2), rng)
        for _ in range(250):
            if state.match_over:
                break
            check_position(state)
            legal = all_legal_actions(state)
            ley = [a for a in legal if a.call in (Call.A_LEY, Call.FLOR, Call.TENGO_FLOR, Call.PEDIR_FLOR)]
            action = rng.choice(ley) if ley and rng.random() < 0.5 else _choose(legal, rng)
            state, _ = advance(state, action, rng)
