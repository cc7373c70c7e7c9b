"""What a front end's sessions send the lobby host, kept until the host has it (cluster mode).

A front end learns that the lobby host died only when the host's lease runs out
(``--lease-ttl``): until then its sessions' frames go to a host that is gone, and are lost
(a chat line, a lobby action, a card: game actions reach a table through the lobby host
too). So each session frame carries a number, one count per front end (``IN_HEADER``), and
is kept (``Unconfirmed``) until the host says it has taken the frames up to it
(``InputAck``, at most every ``ACK_EVERY`` seconds). When the host changes, the frames it
did not confirm, and those the sessions send while there is no host, wait (``Held``) behind
each session's attachment, and go to the new host once it is ready, in order.

A frame the old host took in its last moments, before its acknowledgement left, reaches
the new host again. So a frame sent again carries the number it was first sent with
(``FIRST_HEADER``): with its front end's name, its ``origin``, which the lobby's chat stream
and a table's owner keep for their last lines, so a chat line is not said twice (a game
action carries its command id too: a table ignores a repeat). Both lists are bounded, by frames and by bytes: the oldest frames
the host has not confirmed yet are forgotten past ``SENT_FRAMES``/``SENT_BYTES`` (a host
that keeps up confirms them within ``ACK_EVERY``), and a session that sends more than
``HELD_FRAMES``/``HELD_BYTES`` while it waits has the rest dropped, and is told once.

A live host can miss a frame too: NATS delivers at most once, and while the host's
connection moves to another NATS node (its node died, restarted, was cut off) what the
front ends publish to it meanwhile goes nowhere (measured: a player who connected just after
a nats-server restart was never answered). So everything a front end sends the host is
numbered, its sessions' openings and closings too, and carries the oldest number the front
end has not had confirmed (``LOW_HEADER``) and its name (``FRONT_HEADER``). The host takes
a front end's messages strictly in turn (``InTurn``): one after a gap is left (it comes
again), a repeat is confirmed again and left. The front end sends everything unconfirmed
again, in order, when nothing has been confirmed for ``RESEND_AFTER`` seconds (doubling up
to ``RESEND_MAX`` while it still is not; not while its own NATS connection is down).
"""
from __future__ import annotations

import logging
import time
from collections import deque

from server.cluster.bus import CONN_HEADER

log = logging.getLogger(__name__)

IN_HEADER = "Truco-In"  # a session frame's number from its front end (1, 2, ...)
FIRST_HEADER = "Truco-First"  # on a frame sent again: its number the first time
LOW_HEADER = "Truco-Low"  # the oldest number the front end had not had confirmed when it sent this
FRONT_HEADER = "Truco-Front"  # the front end that numbered it
RESEND_AFTER = 0.5  # seconds without a confirmation before what is unconfirmed is sent again
RESEND_MAX = 2.0  # (a lost one must not wait long once the host is back)
ACK_EVERY = 0.02  # seconds: the host confirms what it took at most this often, per front end
SENT_FRAMES = 4096  # frames of all sessions the host has not confirmed yet, kept at most
SENT_BYTES = 2 * 1024 * 1024
HELD_FRAMES = 64  # one session's frames waiting for a new host (after its attachment)
HELD_BYTES = 64 * 1024

Item = tuple[dict[str, str] | None, bytes]  # what the front end publishes: headers, data


class Unconfirmed:
    """What a front end sent the host, oldest first, until the host confirms it: its
    sessions' frames (with their connection id) and its own messages (``ConnOpened``,
    ``ConnClosed``...: connection id None)."""

    def __init__(self) -> None:
        # (number, conn id, data, its first number): numbers grow, as the host confirms them
        self._frames: deque[tuple[int, int | None, bytes, int]] = deque()
        self._bytes = 0
        self._last = 0  # the last number given
        self.progress_at = 0.0  # (monotonic) when the host last confirmed one, or one was sent to none waiting

    def number(self, conn_id: int | None, data: bytes, first: int = 0) -> int:
        """The next number (``first``: the frame's number when it was first sent, if it is
        sent again); it is kept until confirmed."""
        self._last += 1
        if not self._frames:
            self.progress_at = time.monotonic()
        self._frames.append((self._last, conn_id, data, first or self._last))
        self._bytes += len(data)
        while len(self._frames) > SENT_FRAMES or self._bytes > SENT_BYTES:
            old = self._frames.popleft()[2]  # the host is far behind: forgotten, not resent
            self._bytes -= len(old)
        return self._last

    def low(self) -> int:
        """The oldest number not confirmed yet (the next one if none waits)."""
        return self._frames[0][0] if self._frames else self._last + 1

    def confirmed(self, n: int) -> None:
        """The host has taken everything up to number ``n``."""
        frames = self._frames
        if frames and frames[0][0] <= n:
            self.progress_at = time.monotonic()
        while frames and frames[0][0] <= n:
            self._bytes -= len(frames.popleft()[2])

    def again(self) -> list[tuple[int, int | None, bytes, int]]:
        """Everything not confirmed yet, oldest first, to send again as it was (kept)."""
        return list(self._frames)

    def take(self) -> list[tuple[int, bytes, int]]:
        """The sessions' frames never confirmed, oldest first (conn id, frame, its first
        number), for the next host; nothing is kept after (the front end's own messages were
        for this host only)."""
        taken = [(conn_id, data, first) for _, conn_id, data, first in self._frames if conn_id is not None]
        self._frames.clear()
        self._bytes = 0
        return taken

    def __len__(self) -> int:
        return len(self._frames)


def numbered(n: int, conn_id: int | None, first: int) -> dict[str, str]:
    """The headers a message kept by ``Unconfirmed`` is sent again with, as it first was."""
    headers = {} if conn_id is None else {CONN_HEADER: str(conn_id)}
    if first != n:
        headers[FIRST_HEADER] = str(first)
    headers[IN_HEADER] = str(n)
    return headers


class InTurn:
    """The host's side: how far each front end's messages have come, taken strictly in turn."""

    def __init__(self) -> None:
        self.took: dict[str, int] = {}  # front end -> the last number taken

    def check(self, front: str, number: int, low: int | None) -> bool | None:
        """True: take it (it is the next); False: a repeat (confirm again, leave it); None: one
        before it is missing (leave it: it comes again)."""
        took = self.took.get(front, 0)
        if number <= took:
            return False
        if number != took + 1 and low != number:  # (low == number: all before it confirmed)
            return None
        self.took[front] = number
        return True

class Held:
    """Sessions waiting for a lobby host: each one's opening (or attachment) first, then
    what it sends meanwhile, within the bounds."""

    def __init__(self) -> None:
        self._items: dict[int, list[Item]] = {}
        self._bytes: dict[int, int] = {}
        self._told: set[int] = set()  # sessions told that some of their input was dropped

    def __contains__(self, conn_id: int) -> bool:
        return conn_id in self._items

    def __len__(self) -> int:
        return len(self._items)

    def start(self, conn_id: int, first: Item) -> None:
        """``conn_id`` waits, ``first`` (its opening or attachment) goes before its frames."""
        self._items[conn_id] = [first]
        self._bytes[conn_id] = 0

    def add(self, conn_id: int, item: Item) -> bool:
        """Keep a frame of a waiting session (False: over its bounds, dropped)."""
        size = self._bytes[conn_id] + len(item[1])
        if len(self._items[conn_id]) > HELD_FRAMES or size > HELD_BYTES:  # the first is not a frame
            return False
        self._items[conn_id].append(item)
        self._bytes[conn_id] = size
        return True

    def first_drop(self, conn_id: int) -> bool:
        """True the first time a session's input is dropped during this wait (it is told once)."""
        if conn_id in self._told:
            return False
        self._told.add(conn_id)
        return True

    def drop(self, conn_id: int) -> bool:
        """The session ended while waiting (True: it was waiting)."""
        self._bytes.pop(conn_id, None)
        self._told.discard(conn_id)
        return self._items.pop(conn_id, None) is not None

    def take(self) -> dict[int, list[Item]]:
        """Every waiting session's items, in order; none waits after."""
        items = self._items
        self._items, self._bytes = {}, {}
        self._told.clear()
        return items

    def waiting(self) -> list[int]:
        return list(self._items)
