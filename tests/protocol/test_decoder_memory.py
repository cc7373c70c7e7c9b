"""``p.Decoder``: a receiver's frames decoded knowing the last one give what ``p.decode``
gives, frame by frame, and a hostile frame is refused however much it shares with the
last good one."""
from __future__ import annotations

import random

import msgpack
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import engine
import protocol as p
from protocol.codec import PROTOCOL_VERSION
from protocol.schema import to_plain
from server.table.log_events import log_events
from server.table.table_view import table_view

from tests.protocol.test_fuzz import plain
from tests.protocol.tests_protocol_examples import EXAMPLES


def _game_frames(seed: int, moves: int, seat: int) -> list[bytes]:
    """One seat's table updates over a seeded game, as the server encodes them."""
    rng = random.Random(seed)
    state, events = engine.new_match(engine.get_ruleset("argentino", flor=True), 4, rng)
    frames = []
    for seq in range(moves):
        view = engine.view(state, seat)
        frames.append(p.encode(p.TableUpdate(
            table_id="t1", seq=seq, seat=seat, seats=tuple(p.SeatInfo(name=f"p{i}") for i in range(4)),
            view=table_view(view), events=tuple(log_events(events, seat)), waiting=tuple(view.awaiting))))
        actions = engine.all_legal_actions(state)
        if not actions:
            break
        state, events = engine.advance(state, rng.choice(actions), rng)
    return frames


def _decoded(decode, frames: list[bytes]) -> list[object]:  # type: ignore[no-untyped-def]
    out: list[object] = []
    for frame in frames:
        try:
            out.append(decode(frame))
        except p.ProtocolError as error:
            out.append(("refused", str(error)))
    return out


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 10_000), st.integers(0, 3))
def test_a_game_decodes_as_decode_alone_decodes_it(seed: int, seat: int) -> None:
    frames = _game_frames(seed, 40, seat)
    assert _decoded(p.Decoder().decode, frames) == _decoded(p.decode, frames)


def _with_view(frame: bytes, **fields: object) -> bytes:
    body = msgpack.unpackb(frame)
    body["view"].update(fields)
    return msgpack.packb(body, use_bin_type=True)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 10_000), st.data())
def test_hostile_fields_between_good_frames_are_refused_as_decode_refuses_them(seed: int,
                                                                                data: st.DataObject) -> None:
    """Fields replaced by random data in some frames of a game: the decoder with a memory
    refuses exactly the frames ``decode`` refuses, with the same reason, and decodes the rest
    (the good frames after a refused one too) to the same messages."""
    frames = _game_frames(seed, 20, 0)
    names = sorted(f for f in to_plain(p.decode(frames[-1]).view))  # type: ignore[attr-defined]
    seen: dict[str, list[object]] = {}  # each field's data so far
    mixed = []
    for frame in frames:
        view = msgpack.unpackb(frame)["view"]
        if data.draw(st.booleans()):
            field = data.draw(st.sampled_from(names))
            value = data.draw(plain)
            # (The one documented difference: data Python calls equal to what the field held
            # before, of other scalar types, [False] for [0], is taken as that was.)
            if not any(value == old and repr(value) != repr(old) for old in seen.get(field, [])):
                frame, view = _with_view(frame, **{field: value}), {**view, field: value}
        for field, value in view.items():
            seen.setdefault(field, []).append(value)
        mixed.append(frame)
    assert _decoded(p.Decoder().decode, mixed) == _decoded(p.decode, mixed)


def test_a_field_refused_after_the_same_field_was_good_names_it() -> None:
    first, second = _game_frames(7, 2, 0)
    decoder = p.Decoder()
    decoder.decode(first)
    bad = msgpack.unpackb(second)
    bad["view"]["ranking"] = bad["view"]["ranking"] + [["x" * 40]]
    with pytest.raises(p.ProtocolError, match=r"view\.ranking\[\d+\]\[0\]: longer than"):
        decoder.decode(msgpack.packb(bad, use_bin_type=True))
    assert decoder.decode(second) == p.decode(second)  # and the next good frame is whole


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(EXAMPLES), min_size=1, max_size=8))
def test_any_sequence_of_messages_decodes_as_alone(messages: list[p.Message]) -> None:
    frames = [p.encode(m) for m in messages]
    assert _decoded(p.Decoder().decode, frames) == messages


def test_a_frame_reader_decodes_its_stream_with_a_memory() -> None:
    frames = _game_frames(3, 30, 1)
    reader = p.FrameReader()
    out = [m for frame in frames for m in reader.feed(p.with_length(frame))]
    assert out == [p.decode(f) for f in frames]


def test_an_unchanged_field_is_the_value_decoded_before() -> None:
    """What the memory saves: the ranking of the deck, the same in two frames of a hand,
    is one value, not checked into a new one again."""
    first, second = _game_frames(11, 2, 0)
    decoder = p.Decoder()
    a, b = decoder.decode(first), decoder.decode(second)
    assert a.view.ranking == b.view.ranking and a.view.ranking is b.view.ranking  # type: ignore[attr-defined]
    c, d = p.decode(first), p.decode(second)
    assert c.view.ranking is not d.view.ranking  # type: ignore[attr-defined]


def test_the_version_and_type_are_still_checked() -> None:
    frame = _game_frames(1, 1, 0)[0]
    decoder = p.Decoder()
    decoder.decode(frame)
    body = msgpack.unpackb(frame)
    for change, says in (({"v": PROTOCOL_VERSION + 1}, "unsupported protocol version"),
                         ({"t": "nope"}, "unknown message type")):
        with pytest.raises(p.ProtocolError, match=says):
            decoder.decode(msgpack.packb({**body, **change}, use_bin_type=True))
