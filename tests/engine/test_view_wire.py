"""A view read back from its wire form is the view (issue 17: programs at a table)."""
from __future__ import annotations

import random

import msgpack
import pytest

from engine import advance, choose_action, get_ruleset, new_match, view, view_from_wire, variant_catalog

IMPLEMENTED = [(spec.name, n) for spec in variant_catalog() if spec.implemented
               for n in spec.player_counts if n <= 4]


@pytest.mark.parametrize(("variant", "n"), IMPLEMENTED)
def test_every_seat_view_of_random_games_comes_back_from_its_wire_form(variant: str, n: int) -> None:
    rules = get_ruleset(variant)
    checked = 0
    for seed in range(1):  # (each seat of every step of a whole match: thousands of views)
        rng = random.Random(seed)
        state, _ = new_match(rules, n, rng)
        steps = 0
        while not state.match_over and steps < 400:
            steps += 1
            # every seat's view at every other step: half the CPU, and the same kinds of position
            for seat in [*range(n), None] if steps % 2 else []:
                seen = view(state, seat)
                wire = msgpack.unpackb(msgpack.packb(seen.to_wire()), raw=False)
                assert view_from_wire(wire) == seen
                checked += 1
            awaiting = list(view(state, None).awaiting)
            rng.shuffle(awaiting)
            for seat in awaiting:
                seat_view = view(state, seat)
                action = choose_action(seat_view, rules, rng) if seat_view.legal else None
                if action is None and seat_view.legal:
                    action = rng.choice(seat_view.legal)
                if action is not None:
                    state, _ = advance(state, action, rng)
                    break
    assert checked > 50


@pytest.mark.parametrize("bad", [
    None, [], {"viewer": 0}, {"card_notation": "spanish"},
])
def test_malformed_wire_views_raise_value_error(bad: object) -> None:
    with pytest.raises(ValueError):
        view_from_wire(bad)


def test_a_wrong_value_inside_is_named() -> None:
    rules = get_ruleset("argentino")
    state, _ = new_match(rules, 2, random.Random(1))
    wire = view(state, 0).to_wire()
    for field, value in (("own_cards", ["9e"]), ("scores", ["x"]), ("legal", [{"seat": 0, "call": "turco"}]),
                         ("viewer", "0")):
        broken = dict(wire, **{field: value})
        with pytest.raises(ValueError, match=field if field != "legal" else "legal"):
            view_from_wire(broken)
