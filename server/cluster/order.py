"""One connection's frames in order, though two processes send them: the lobby host and the
owner of the connection's table, each on its own NATS connection.

NATS keeps the order of one connection's messages only. With one NATS server the two
streams happen to stay in order (the owner's frame is caused by a message the host
published after its own frame); with a NATS cluster and processes on different servers,
the owner's frame can overtake the host's: a table update before ``Seated``, or a table's
last frame after the lobby took the player back. So the streams carry stamps:

- the host numbers its frames to each connection (``SEQ_HEADER``: 1, 2, ...) and marks
  those that move the session (``MOVE_HEADER``: a ``Seated``, to a table or back to the lobby);
- what the host tells a table about a connection carries the number of the host's last frame
  to it so far (``TableCall.after``, ``Viewer.after``), and the owner stamps every frame it
  sends that connection with the latest it knows (``AFTER_HEADER``: "<n> <host>");
- the front end (``FrameOrder``) holds an owner's frame until the host's frame ``n`` has
  arrived, and drops one that was made before the host's last move of the session (the owner
  did not know of it yet: a table the player has left). A frame is held at most
  ``HOLD_SECONDS``, and at most ``HELD_MAX`` per connection: past either, the held frames go
  out as they are (the host's frame was lost, e.g. a failed publish) and a warning is logged.
  An owner's frame that arrives before a move the owner did not know of yet (NATS keeps no
  order between two publishers, even one flushed before the other sent) is passed on: the
  session it reaches moves with the next frame.

Stamps belong to one host: its numbers start again with the next one, so a frame stamped by
another host than the current one is passed on as it is.
"""
from __future__ import annotations

import asyncio
import logging
from collections import deque
from dataclasses import dataclass, field
from typing import Callable

import protocol as p

log = logging.getLogger(__name__)

SEQ_HEADER = "Truco-Seq"
MOVE_HEADER = "Truco-Move"
AFTER_HEADER = "Truco-After"
HOLD_SECONDS = 2.0
HELD_MAX = 256
SEQ_MAX = 2**53

# Every encoded message ends with its type (protocol/codec.py writes "t" last): a Seated is
# told from the bytes alone, without decoding every frame the host sends
_SEATED_TAIL = p.encode(p.Seated())[-len(b"\xa1t\xa6seated"):]
assert _SEATED_TAIL == b"\xa1t\xa6seated"


def is_move(data: bytes) -> bool:
    return data.endswith(_SEATED_TAIL)


def after_value(n: int, host: str) -> str:
    return f"{n} {host}"


def parse_after(value: str) -> tuple[int, str] | None:
    number, _, host = value.partition(" ")
    if not number.isdigit() or len(number) > 16 or not host:
        return None
    n = int(number)
    return (n, host) if n <= SEQ_MAX else None


def parse_seq(value: str) -> int | None:
    if not value.isdigit() or len(value) > 16:
        return None
    n = int(value)
    return n if n <= SEQ_MAX else None


class StampBook:
    """A table owner's latest stamp for each connection (from the host's messages)."""

    def __init__(self, host: str, limit: int) -> None:
        self.host = host
        self._limit = limit
        self._after: dict[int, int] = {}

    def new_host(self, host: str) -> None:
        """A new lobby host: its numbers start again."""
        if host != self.host:
            self.host, self._after = host, {}

    def note(self, host: str, conn_id: int, after: int, keep: Callable[[int], bool]) -> None:
        """What the host says it had sent ``conn_id`` (``keep``: connections still to remember
        when the book is full)."""
        self.new_host(host)
        if conn_id not in self._after and len(self._after) >= self._limit:
            for old in [c for c in self._after if not keep(c)]:
                del self._after[old]
        if after >= self._after.get(conn_id, 0):
            self._after[conn_id] = after

    def header(self, conn_id: int) -> str | None:
        after = self._after.get(conn_id)
        return None if after is None or not self.host else after_value(after, self.host)


@dataclass
class _Conn:
    seq: int = 0  # the host's last frame passed on
    moved: int = 0  # the host's last frame that moved the session
    held: deque[tuple[int, bytes]] = field(default_factory=deque)  # (after, frame), in arrival order
    timer: asyncio.TimerHandle | None = None


class FrameOrder:
    """A front end's side (see the module): ``deliver`` passes a frame on to the session."""

    def __init__(self, deliver: Callable[[int, bytes], None]) -> None:
        self._deliver = deliver
        self._conns: dict[int, _Conn] = {}

    def host_frame(self, conn_id: int, seq: int, move: bool, data: bytes) -> None:
        conn = self._conns.setdefault(conn_id, _Conn())
        conn.seq = max(conn.seq, seq)
        if move:
            conn.moved = conn.seq
        self._deliver(conn_id, data)
        if conn.held:
            self._release(conn_id, conn)

    def owner_frame(self, conn_id: int, after: int, data: bytes) -> None:
        conn = self._conns.setdefault(conn_id, _Conn())
        if after < conn.moved:
            return  # made before the session moved (e.g. the table it has left): stale
        if not conn.held and after <= conn.seq:
            self._deliver(conn_id, data)
            return
        conn.held.append((after, data))
        if len(conn.held) > HELD_MAX:
            self._give_up(conn_id, f"{HELD_MAX} frames")
        elif conn.timer is None:
            conn.timer = asyncio.get_running_loop().call_later(HOLD_SECONDS, self._give_up, conn_id,
                                                               f"{HOLD_SECONDS:.0f} s")

    def _release(self, conn_id: int, conn: _Conn) -> None:
        while conn.held:
            after, data = conn.held[0]
            if after < conn.moved:
                conn.held.popleft()  # stale now
                continue
            if after > conn.seq:
                return  # still waits (and so does everything behind it)
            conn.held.popleft()
            self._deliver(conn_id, data)
        if conn.timer is not None:
            conn.timer.cancel()
            conn.timer = None

    def _give_up(self, conn_id: int, why: str) -> None:
        conn = self._conns.get(conn_id)
        if conn is None:
            return
        if conn.timer is not None:
            conn.timer.cancel()
            conn.timer = None
        if conn.held:
            log.warning("conn %s: %d table frames waited %s for the lobby's frame %d (at %d): passed on",
                        conn_id, len(conn.held), why, conn.held[0][0], conn.seq)
        held, conn.held = conn.held, deque()
        conn.seq = max([conn.seq, *(after for after, _ in held)])  # what they waited for is lost
        for _, data in held:
            self._deliver(conn_id, data)

    def forget(self, conn_id: int) -> None:
        conn = self._conns.pop(conn_id, None)
        if conn is not None and conn.timer is not None:
            conn.timer.cancel()

    def reset(self) -> None:
        """A new host: what is held goes out, and every number starts again."""
        for conn_id in list(self._conns):
            self._give_up(conn_id, "for a host that is gone")
            self.forget(conn_id)
