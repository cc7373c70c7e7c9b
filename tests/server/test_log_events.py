"""The log's records (protocol/log_events.py) stay in step with the engine's events
(engine/core/events.py): same kinds, same fields, and the server's mapping gives the
engine's own wire form, so the protocol's frames are what they were before the records."""
from __future__ import annotations

import dataclasses
import random
from collections import Counter

import pytest

import engine
import protocol as p
from engine.core.events import EVENT_TYPES
from protocol.schema import to_plain
from server.lobby.history import replay_records, split_hands
from server.table.log_events import log_event, log_events


def test_every_engine_event_has_a_record_with_the_same_fields() -> None:
    assert set(p.LOG_EVENT_TYPES) == set(EVENT_TYPES)
    for kind, cls in EVENT_TYPES.items():
        record = p.LOG_EVENT_TYPES[kind]
        assert record.KIND == kind
        assert [f.name for f in dataclasses.fields(record)] == [f.name for f in dataclasses.fields(cls)], kind
    assert set(p.LogEvent.__args__) == set(p.LOG_EVENT_TYPES.values())  # type: ignore[attr-defined]


def _match(variant: str, n: int, seed: int, **options: object) -> list[engine.Event]:
    rules = engine.get_ruleset(variant, **options)
    rng = random.Random(seed)
    state, events = engine.new_match(rules, n, rng)
    log = list(events)
    for _ in range(400):
        if state.match_over:
            break
        state, more = engine.advance(state, rng.choice(engine.all_legal_actions(state)), rng)
        log += more
    return log


MATCHES = [("argentino", 2, 1, {}), ("argentino", 4, 2, {"flor": True}), ("uruguayo", 3, 3, {}),
           ("paulista", 2, 4, {}), ("venezolano", 2, 5, {}), ("venezolano", 4, 6, {})]
# Kinds a random match may not reach: built by hand so every kind is checked.
EXTRA: list[engine.Event] = [
    engine.SeatCovered(1, "away"), engine.PointsWithheld(0, 3, "flor", "V-F3"), engine.FlorAnswered(1, True),
    engine.Acted(0, "piedras", value=5),
]


@pytest.mark.parametrize(("variant", "n", "seed", "options"), MATCHES)
def test_each_event_as_each_viewer_sees_it_maps_to_the_engines_wire_form(
        variant: str, n: int, seed: int, options: dict[str, object]) -> None:
    log = _match(variant, n, seed, **options) + EXTRA
    deck = engine.get_ruleset(variant, **options).card_notation
    kinds: Counter[str] = Counter()
    for seat in (*range(n), None):
        records = log_events(log, seat)
        seen = [e for e in (engine.project_event(x, seat) for x in log) if e is not None]
        assert len(records) == len(seen)
        for event, record in zip(seen, records):
            kinds[record.KIND] += 1
            assert type(record) is p.LOG_EVENT_TYPES[event.kind]
            assert to_plain(record) == event.to_wire()  # the same bytes as before the records
            assert engine.event_from_wire(to_plain(record), deck) == event
        # Through the codec: validated, and equal to what was sent.
        update = p.TableUpdate(table_id="t", seq=1, seat=seat, seats=(), view=p.TableView(),
                               events=tuple(records[:64]), history=tuple(records[-p.HISTORY_MAX:]))
        assert p.decode(p.encode(update)) == update
    assert {"match_started", "hand_dealt", "hand_started", "acted", "points_scored", "hand_ended"} <= set(kinds)


def test_a_replayed_hand_is_the_stored_events_as_records() -> None:
    log = _match("paulista", 2, 8)
    stored = [e.to_wire() for e in log]
    hands = split_hands(stored)
    records = replay_records(hands[0], "french")
    assert records == [log_event(engine.event_from_wire(row, "french")) for row in hands[0]]
    assert isinstance(records[0], p.MatchStarted) and isinstance(records[1], p.HandDealt)
    assert all(h is not None for h in records[1].hands)  # a finished game: every hand shown
    # A damaged row is left out; the rest of the hand is still replayed.
    assert replay_records([{"type": "nonsense"}, *hands[0]], "french") == records
