"""Property tests for the muestra and manilha variants: random legal games for every player
count of uruguayo and paulista, with the invariants of test_invariants.py (legal actions are
exactly what apply accepts, views hide cards, scores follow the events, replay rebuilds)."""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tests.engine.test_invariants import _play_random_match

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


@settings(max_examples=45, database=None, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(game=GAMES, seed=st.integers(0, 2**32))
def test_random_variant_games_keep_every_invariant(game: tuple[str, int, dict[str, Any]],
                                                   seed: int) -> None:
    variant, n, options = game
    _play_random_match(variant, n, seed, options, views_every=5)
