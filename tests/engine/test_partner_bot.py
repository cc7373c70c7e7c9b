"""The normal level plays as a partner at 4 and 6 players (issue 36): a seat with a partner
still to play in the trick leaves it to him when it decides nothing yet (engine/bots/moves.py
`_team_card`). Its strength is measured by tests/bench/bench_bots.py, not here."""
from __future__ import annotations

import random

import pytest

import engine
from engine import get_ruleset, new_match, view
from engine.bots import normal
from engine.bots.seat import Seat

from tests.engine.test_bot import short_options


def _first_trick_leads(variant: str, n: int, seeds: range) -> list[tuple[engine.View, engine.RuleSet]]:
    """Views of the seat leading the first trick of a hand, with its team still untouched."""
    found = []
    for seed in seeds:
        rng = random.Random(seed)
        rules = get_ruleset(variant, **short_options(variant))
        state, _ = new_match(rules, n, rng)
        for _ in range(400):
            if state.match_over:
                break
            seat = next(s for s in range(n) if engine.legal_actions(state, s))
            v = view(state, seat)
            if (v.phase == "play" and v.turn == seat and not v.tricks and not v.current_trick
                    and len(v.players) == n and any(a.call is engine.Call.PLAY for a in v.legal)):
                found.append((v, rules))
            action = normal.choose(v, rules, rng) or v.legal[0]
            state, _ = engine.advance(state, action, rng)
    return found


@pytest.mark.parametrize(("variant", "n"), [("argentino", 4), ("argentino", 6), ("paulista", 4)])
def test_the_first_of_a_team_leads_its_lowest_card(variant: str, n: int) -> None:
    leads = _first_trick_leads(variant, n, range(4))
    played = 0
    for v, rules in leads:
        action = normal.choose(v, rules, random.Random(0), strict=True)
        assert action is not None and action in v.legal
        if action.call is not engine.Call.PLAY:
            continue  # a bet first
        seat = Seat(v, rules)
        assert action.card is not None
        assert seat.s(action.card) == min(seat.s(c) for c in v.own_cards)
        played += 1
    assert played >= 5, played


def test_two_players_keep_their_own_lead() -> None:
    """No partner, no change: the 2-player normal level leads as before (not always low)."""
    leads = _first_trick_leads("argentino", 2, range(6))
    lows = 0
    cards = 0
    for v, rules in leads:
        action = normal.choose(v, rules, random.Random(1))
        if action is None or action.call is not engine.Call.PLAY or action.card is None:
            continue
        seat = Seat(v, rules)
        cards += 1
        lows += seat.s(action.card) == min(seat.s(c) for c in v.own_cards)
    assert cards >= 5 and lows < cards
