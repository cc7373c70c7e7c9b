"""``engine.views`` (several viewers of one state, the shared fields worked out once) gives
each viewer exactly ``engine.view``'s view, in every variant, at every step of a game."""
from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import advance, all_legal_actions, get_ruleset, new_match, variant_catalog, view, views

VARIANTS = [spec.name for spec in variant_catalog()]


@pytest.mark.parametrize("variant", VARIANTS)
@settings(max_examples=6, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), players=st.sampled_from([2, 4]))
def test_views_are_each_seats_view(variant: str, seed: int, players: int) -> None:
    rng = random.Random(seed)
    state, _ = new_match(get_ruleset(variant), players, rng)
    viewers = [*range(players), None]
    for _ in range(120):
        shared = views(state, viewers)
        assert list(shared) == viewers
        for seat in viewers:
            assert shared[seat] == view(state, seat), (variant, seat)
        actions = all_legal_actions(state)
        if not actions:
            break
        state, _ = advance(state, rng.choice(actions), rng)


def test_views_refuses_a_seat_that_is_not_there() -> None:
    state, _ = new_match(get_ruleset("argentino"), 2, random.Random(1))
    with pytest.raises(ValueError):
        views(state, [0, 2])
    assert list(views(state, [1, 1, None])) == [1, None]  # each viewer once
