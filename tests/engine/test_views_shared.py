"""``engine.views`` (several viewers of one state, the shared fields worked out once): each
viewer gets its own legal actions, cards and hand-guide fields, and every viewer the same
table, in every variant, at every step of a game."""
from __future__ import annotations

import dataclasses
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import (DealKind, Phase, advance, all_legal_actions, get_ruleset, legal_actions, new_match,
                    variant_catalog, view, views)

VARIANTS = [spec.name for spec in variant_catalog()]
# What differs from one viewer to another; every other field is the table's.
OWN = {"viewer", "own_cards", "legal", "own_envido", "own_envido_cards", "own_flor", "card_refusals",
       "call_refusals"}
# What a lean view leaves blank (engine/core/views.py: the searching bot reads none of it).
LEFT_OUT_OF_LEAN = OWN - {"viewer", "own_cards", "legal"} | {
    "awaiting", "card_marks", "ranking", "count_rule", "bets", "truco_steps", "malas"}


@pytest.mark.parametrize("variant", VARIANTS)
@settings(max_examples=6, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), players=st.sampled_from([2, 4]))
def test_each_viewer_sees_its_own_hand_and_the_same_table(variant: str, seed: int, players: int) -> None:
    rng = random.Random(seed)
    state, _ = new_match(get_ruleset(variant), players, rng)
    viewers = [*range(players), None]
    for _ in range(120):
        shared = views(state, viewers)
        assert list(shared) == viewers
        awaiting = tuple(s for s in range(players) if legal_actions(state, s))
        blind = state.deal_kind is DealKind.BLIND and state.phase is not Phase.DEAL
        for seat, seen in shared.items():
            assert seen.viewer == seat
            assert seen.legal == (() if seat is None else tuple(legal_actions(state, seat)))
            assert seen.own_cards == (() if seat is None or blind else state.hands[seat])
            assert seen.awaiting == awaiting
            assert seen == views(state, [seat])[seat]  # nothing of another viewer's in it
            table = {f.name: getattr(seen, f.name) for f in dataclasses.fields(seen) if f.name not in OWN}
            assert table == {name: getattr(shared[None], name) for name in table}
            lean = view(state, seat, lean=True)  # built without views: the same table
            assert {name: value for name, value in table.items() if name not in LEFT_OUT_OF_LEAN} == {
                name: getattr(lean, name) for name in table if name not in LEFT_OUT_OF_LEAN}
        actions = all_legal_actions(state)
        if not actions:
            break
        state, _ = advance(state, rng.choice(actions), rng)


def test_views_refuses_a_seat_that_is_not_there() -> None:
    state, _ = new_match(get_ruleset("argentino"), 2, random.Random(1))
    with pytest.raises(ValueError):
        views(state, [0, 2])
    with pytest.raises(ValueError):
        view(state, 2)
    assert list(views(state, [1, 1, None])) == [1, None]  # each viewer once
