"""``to_plain``, with a function per record type made once (protocol/schema.py), gives what
walking each record's fields gives: every example message, and a seeded game's updates."""
from __future__ import annotations

import dataclasses
import random
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

import engine
import protocol as p
from protocol.schema import TAG, record_fields, tag_of, to_plain
from server.table.log_events import log_events
from server.table.table_view import table_view

from tests.protocol.tests_protocol_examples import EXAMPLES


def _walked(value: Any) -> Any:
    """To plain data by walking each record's fields (what to_plain did before it kept a
    function per type)."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        specs = record_fields(type(value))
        tag = tag_of(type(value))
        if tag is not None:  # every field, but a sparse one at its default
            return {TAG: tag, **{s.name: _walked(getattr(value, s.name)) for s in specs
                                 if not (s.sparse and getattr(value, s.name) == s.default)}}
        out = {}
        for s in specs:
            item = getattr(value, s.name)
            if s.sparse and item == s.default:
                continue
            out[s.name] = _walked(item) if s.holds_records else item
        return out
    if isinstance(value, (tuple, list)):
        return [_walked(v) for v in value]
    if isinstance(value, dict):
        return {k: _walked(v) for k, v in value.items()}
    return value


def _same(a: Any, b: Any) -> bool:
    """Equal, and of the same types all the way down (a tuple left a tuple, a list a list)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and list(a) == list(b) and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, (tuple, list)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    return bool(a == b)


def test_every_example_message_is_what_walking_its_fields_gives() -> None:
    for message in EXAMPLES:
        assert _same(to_plain(message), _walked(message)), type(message).__name__


@settings(max_examples=20, deadline=None)
@given(st.integers(0, 10_000), st.sampled_from([None, 0, 1, 2, 3]))
def test_a_games_updates_are_what_walking_their_fields_gives(seed: int, seat: int | None) -> None:
    rng = random.Random(seed)
    state, events = engine.new_match(engine.get_ruleset("argentino", flor=True), 4, rng)
    for seq in range(30):
        view = engine.view(state, seat)
        update = p.TableUpdate(table_id="t1", seq=seq, seat=seat,
                               seats=tuple(p.SeatInfo(name=f"p{i}", bot=i == 2) for i in range(4)),
                               view=table_view(view), events=tuple(log_events(events, seat)),
                               waiting=tuple(view.awaiting))
        assert _same(to_plain(update), _walked(update))
        actions = engine.all_legal_actions(state)
        if not actions:
            break
        state, events = engine.advance(state, rng.choice(actions), rng)


def test_values_that_are_not_records_are_left_or_listed_as_before() -> None:
    for value in ("a", 1, 2.5, True, None, b"x", (1, (2, 3)), [p.SeatInfo(name="x")], {"k": (1,)}):
        assert _same(to_plain(value), _walked(value))
