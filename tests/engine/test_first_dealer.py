"""new_match(first_dealer=...): a rematch chooses who deals first; the log still replays."""
from __future__ import annotations

import random

import pytest

import engine


@pytest.mark.parametrize("variant, players", [("argentino", 2), ("argentino", 6), ("paulista", 4),
                                              ("uruguayo", 3), ("venezolano", 2)])
def test_a_given_first_dealer_is_recorded_and_the_next_seat_is_mano(variant: str, players: int) -> None:
    rules = engine.get_ruleset(variant)
    for dealer in range(players):
        state, events = engine.new_match(rules, players, random.Random(1), first_dealer=dealer)
        started = events[0]
        assert isinstance(started, engine.MatchStarted) and started.first_dealer == dealer
        hand = next(e for e in events if isinstance(e, engine.HandStarted))
        assert hand.mano == (dealer + 1) % players
        replayed = engine.replay(rules, players, events)
        assert engine.view(replayed, None).to_wire() == engine.view(state, None).to_wire()


def test_without_one_it_is_drawn_as_before_and_a_bad_seat_is_refused() -> None:
    rules = engine.get_ruleset("argentino")
    drawn, _ = engine.new_match(rules, 2, random.Random(5))
    again, _ = engine.new_match(rules, 2, random.Random(5), first_dealer=None)
    assert drawn.dealer == again.dealer
    with pytest.raises(ValueError):
        engine.new_match(rules, 2, random.Random(5), first_dealer=2)
