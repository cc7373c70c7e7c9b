from __future__ import annotations

import random

import msgpack
import pytest
from engine.testing import act, scenario

from engine import (
    Action,
    Call,
    HandDealt,
    apply,
    HandStarted,
    action_from_fields,
    action_from_wire,
    advance,
    all_legal_actions,
    event_from_wire,
    get_ruleset,
    new_match,
    parse_cards,
    view,
)


def test_get_ruleset_errors() -> None:
    with pytest.raises(ValueError):
        get_ruleset("argentino", colour="red")
    with pytest.raises(ValueError):
        get_ruleset("nope")


def test_action_wire_round_trip_and_rejects_bad_input() -> None:
    a = Action(2, Call.PLAY, parse_cards("12c")[0])
    assert a.to_wire() == {"seat": 2, "call": "play", "card": "12c"}
    assert action_from_wire(a.to_wire()) == a
    assert action_from_wire({"seat": 0, "call": "truco"}) == Action(0, Call.TRUCO)
    for bad in ([], {"seat": "0", "call": "truco"}, {"seat": 0, "call": "turco"},
                {"seat": 0, "call": "play"}, {"seat": 0, "call": "play", "card": "9e"},
                {"seat": 0, "call": "truco", "card": "1e"}, {"seat": 0, "call": "truco", "x": 1},
                {"seat": True, "call": "truco"}):
        with pytest.raises(ValueError):
            action_from_wire(bad)
    # A command's own fields reach the engine without a wire map in between.
    assert action_from_fields(2, "play", "12c") == a
    assert action_from_fields(1, Call.ENVIDO_PUNTOS.value, None, 7) == Action(1, Call.ENVIDO_PUNTOS, None, 7)
    for seat, name, card, amount in ((0, "play", None, None), (0, "truco", None, 2), (0, Call.ENVIDO_PUNTOS.value, None, True),
                                     (16, "truco", None, None), (0, "play", "1e", 3)):
        with pytest.raises(ValueError):
            action_from_fields(seat, name, card, amount)
    for bad_event in ({}, {"type": "nope"}, {"type": "trick_ended", "number": 1}):
        with pytest.raises(ValueError):
            event_from_wire(bad_event)


def test_views_and_events_are_plain_msgpack_data() -> None:
    rng = random.Random(5)
    state, events = new_match(get_ruleset("argentino"), 4, rng)
    for _ in range(30):
        if state.match_over:
            break
        state, more = advance(state, rng.choice(all_legal_actions(state)), rng)
        events += more
    for event in events:
        assert event_from_wire(msgpack.unpackb(msgpack.packb(event.to_wire()))) == event
    for seat in (None, 0, 1, 2, 3):
        wire = view(state, seat).to_wire()
        assert msgpack.unpackb(msgpack.packb(wire)) == wire


def _private_part(wire: dict[str, object]) -> dict[str, object]:
    """A view without the fields that list cards by the rules alone (the card ranking and
    the special cards of the face-up card): what is left names only cards a seat may see."""
    return {k: v for k, v in wire.items() if k not in ("ranking", "card_marks", "special_cards")}


def test_view_shows_own_cards_only_and_spectator_none() -> None:
    state, _ = scenario({0: "1e 2o 3c", 1: "4e 5o 6c"}, n=2, flor=False)
    assert [str(c) for c in view(state, 0).own_cards] == ["1e", "2o", "3c"]
    assert view(state, None).own_cards == () and view(state, None).legal == ()
    assert "4e" not in str(_private_part(view(state, 0).to_wire()))
    assert view(state, 0).hand_sizes == (3, 3)
    assert view(state, 0).turn == 0 and view(state, 0).mano == 0 and view(state, 0).dealer == 1


def test_envido_proof_cards_become_public_at_hand_end() -> None:
    state, _ = scenario({0: "7e 6e 4o", 1: "1c 2b 3o"}, n=2, flor=False)
    state, _ = act(state, (0, "envido"), (1, "quiero"), (0, "declare_envido"), (1, "son_buenas"))
    assert state.envido_result == (0, 2)
    assert "6e" not in str(_private_part(view(state, 1).to_wire()))  # shown only when the hand ends
    state, _ = act(state, (0, "mazo"))
    seen = view(state, 1).history[-1].shown
    assert [(s, [str(c) for c in cards]) for s, cards in seen] == [(0, ["7e", "6e"])]


def test_pica_pica_plays_three_duels_of_opposite_seats() -> None:
    import dataclasses

    from engine.core.game import deal, initial_state

    rules = get_ruleset("argentino", flor=False)
    state = dataclasses.replace(initial_state(rules, 6, 5), next_pica=True)
    state, events = deal(state, random.Random(2))
    duels = []
    for _ in range(200):
        duels += [e.players for e in events if isinstance(e, HandStarted)]
        if state.needs_deal:
            break
        legal = all_legal_actions(state)
        plays = [a for a in legal if a.call is Call.PLAY]
        state, events = apply(state, (plays or legal)[0])
    assert duels == [(0, 3), (1, 4), (2, 5)]
    state, events = deal(state, random.Random(3))
    assert isinstance(events[0], HandDealt) and events[0].deal_kind == "redonda"
    assert state.players == (1, 2, 3, 4, 5, 0)
