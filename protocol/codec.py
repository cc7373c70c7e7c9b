"""msgpack encoding of messages, with explicit limits, and stream framing."""
from __future__ import annotations

import struct
from typing import Any, Mapping

import msgpack

from protocol.errors import ProtocolError
from protocol.messages import MESSAGE_TYPES, Message
from protocol.checks import Remembered, from_plain
from protocol.schema import to_plain

# 2: TableUpdate.view is a typed TableView (sparse: fields at their default are left out)
PROTOCOL_VERSION = 2
MAX_FRAME = 64 * 1024  # bytes in one encoded message
_LENGTH = struct.Struct(">I")

_UNPACK_LIMITS: dict[str, Any] = dict(
    max_str_len=MAX_FRAME,
    max_bin_len=0,  # the protocol has no binary fields
    max_array_len=10_000,
    max_map_len=10_000,
    max_ext_len=64,  # small ones reach _no_ext, which names the problem
    strict_map_key=True,
    raw=False,
    use_list=True,
)


def _no_ext(code: int, data: bytes) -> Any:
    raise ProtocolError("extension types are not allowed")


def encode(message: Message) -> bytes:
    """One message as msgpack bytes (no length prefix)."""
    body = to_plain(message)
    body["v"] = PROTOCOL_VERSION
    body["t"] = message.TYPE
    data: bytes = msgpack.packb(body, use_bin_type=True)
    if len(data) > MAX_FRAME:
        raise ProtocolError(f"{message.TYPE}: frame of {len(data)} bytes exceeds {MAX_FRAME}")
    return data


def decode(data: bytes, types: Mapping[str, type[Message]] = MESSAGE_TYPES,
           last: Remembered | None = None) -> Message:
    """The message in ``data``, fully validated, or ProtocolError.

    ``types``: the messages accepted here (the bus has its own, ``protocol.bus``).
    ``last``: what this receiver decoded before (``Decoder`` keeps it).
    """
    if len(data) > MAX_FRAME:
        raise ProtocolError(f"frame of {len(data)} bytes exceeds {MAX_FRAME}")
    try:
        body = msgpack.unpackb(data, ext_hook=_no_ext, **_UNPACK_LIMITS)
    except ProtocolError:
        raise
    except Exception as exc:  # msgpack raises several unrelated types for bad input
        raise ProtocolError(f"undecodable frame ({type(exc).__name__})") from None
    if not isinstance(body, dict):
        raise ProtocolError("a message must be a map")
    version = body.get("v")
    if version != PROTOCOL_VERSION or type(version) is not int:
        raise ProtocolError(f"unsupported protocol version {version!r:.20}")
    kind = body.get("t")
    cls = types.get(kind) if type(kind) is str else None
    if cls is None:
        raise ProtocolError(f"unknown message type {kind!r:.40}")
    return from_plain(cls, body, last=last)  # type: ignore[no-any-return]


class Decoder:
    """``decode`` for one receiver of a stream of messages (a session reading its frames):
    fields that arrive as they did in the last message are taken from what that one was
    decoded into, not checked again (protocol/checks.py ``Remembered``). What it returns
    is what ``decode`` returns."""

    def __init__(self, types: Mapping[str, type[Message]] = MESSAGE_TYPES) -> None:
        self._types = types
        self._last = Remembered()

    def decode(self, data: bytes) -> Message:
        return decode(data, self._types, self._last)


def frame(message: Message) -> bytes:
    """A message with its 4-byte big-endian length prefix, for stream transports."""
    return with_length(encode(message))


def with_length(data: bytes) -> bytes:
    """An already encoded message with its length prefix (a relay passing frames on)."""
    if len(data) > MAX_FRAME:
        raise ProtocolError(f"frame of {len(data)} bytes exceeds {MAX_FRAME}")
    return _LENGTH.pack(len(data)) + data


class FrameReader:
    """Reassembles length-prefixed frames from arbitrary chunks.

    Holds at most one frame's worth of bytes: an announced length over
    ``max_frame`` is rejected before any of its body is buffered.
    """

    def __init__(self, max_frame: int = MAX_FRAME) -> None:
        self._max = max_frame
        self._buf = bytearray()
        self._decoder = Decoder()  # one stream: one receiver

    def feed(self, chunk: bytes) -> list[Message]:
        """The whole messages ``chunk`` completes, decoded (ProtocolError for a bad one)."""
        self._buf += chunk
        out: list[Message] = []
        while (data := self._next()) is not None:
            out.append(self._decoder.decode(data))
        return out

    def feed_raw(self, chunk: bytes) -> list[bytes]:
        """The whole frames ``chunk`` completes, still encoded (without their prefix): for a
        relay that passes them on to whoever decodes them (the hub, for the subsystem)."""
        self._buf += chunk
        out: list[bytes] = []
        while (data := self._next()) is not None:
            out.append(data)
        return out

    def _next(self) -> bytes | None:
        if len(self._buf) < _LENGTH.size:
            return None
        (size,) = _LENGTH.unpack_from(self._buf)
        if size > self._max:
            self._buf.clear()
            raise ProtocolError(f"announced frame of {size} bytes exceeds {self._max}")
        end = _LENGTH.size + size
        if len(self._buf) < end:
            return None
        data = bytes(self._buf[_LENGTH.size:end])
        del self._buf[:end]
        return data

    @property
    def pending(self) -> int:
        return len(self._buf)
