"""Hypothesis fuzzing of the decoder: only a message or ProtocolError ever comes out."""
from __future__ import annotations

import msgpack
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import protocol as p
from protocol.codec import PROTOCOL_VERSION

from tests.protocol.tests_protocol_examples import EXAMPLES

FUZZ = settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])

plain = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**63), 2**64 - 1) | st.floats() | st.text(max_size=20)
    | st.binary(max_size=20),
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=10), inner, max_size=5),
    max_leaves=30,
)


def _decode_or_error(data: bytes) -> None:
    try:
        message = p.decode(data)
    except p.ProtocolError:
        return
    assert isinstance(message, p.Message)
    assert p.decode(p.encode(message)) == message


@FUZZ
@given(st.binary(max_size=2048))
def test_random_bytes(data: bytes) -> None:
    _decode_or_error(data)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(sorted(p.MESSAGE_TYPES)), st.dictionaries(st.text(max_size=12), plain, max_size=8))
def test_random_fields_for_real_types(kind: str, fields: dict) -> None:
    body = {**fields, "v": PROTOCOL_VERSION, "t": kind}
    _decode_or_error(msgpack.packb(body, use_bin_type=True))


@FUZZ
@given(st.sampled_from(EXAMPLES), st.data())
def test_mutated_valid_frames(message: p.Message, data: st.DataObject) -> None:
    raw = bytearray(p.encode(message))
    for _ in range(data.draw(st.integers(1, 4))):
        i = data.draw(st.integers(0, len(raw) - 1))
        raw[i] = data.draw(st.integers(0, 255))
    _decode_or_error(bytes(raw))


@FUZZ
@given(st.lists(st.sampled_from(EXAMPLES), min_size=1, max_size=6), st.data())
def test_random_chunking_of_frame_streams(messages: list[p.Message], data: st.DataObject) -> None:
    stream = b"".join(p.frame(m) for m in messages)
    reader = p.FrameReader()
    out: list[p.Message] = []
    pos = 0
    while pos < len(stream):
        size = data.draw(st.integers(1, 64))
        out += reader.feed(stream[pos : pos + size])
        pos += size
    assert out == messages


@FUZZ
@given(st.binary(max_size=4096), st.lists(st.integers(1, 300), min_size=1, max_size=30))
def test_random_bytes_through_frame_reader(data: bytes, cuts: list[int]) -> None:
    reader = p.FrameReader(max_frame=1024)
    pos = 0
    for cut in cuts:
        try:
            for message in reader.feed(data[pos : pos + cut]):
                assert isinstance(message, p.Message)
        except p.ProtocolError:
            reader = p.FrameReader(max_frame=1024)  # a stream transport would drop the peer
        assert reader.pending <= 1024 + 4
        pos += cut


@FUZZ
@given(st.lists(st.sampled_from(EXAMPLES), min_size=1, max_size=5), st.data())
def test_raw_frames_come_out_whole_and_in_order_from_any_chunking(messages: list[p.Message], data: st.DataObject) -> None:
    """What the `truco` subsystem relays: the frames' bytes, unchanged, however they arrive."""
    stream = b"".join(p.frame(m) for m in messages)
    cuts = sorted(data.draw(st.lists(st.integers(0, len(stream)), max_size=8)))
    reader = p.FrameReader()
    got: list[bytes] = []
    for a, b in zip([0, *cuts], [*cuts, len(stream)]):
        got += reader.feed_raw(stream[a:b])
    assert got == [p.encode(m) for m in messages]
    assert [p.with_length(g) for g in got] == [p.frame(m) for m in messages]
    assert reader.pending == 0
