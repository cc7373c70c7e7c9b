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
"""
from __future__ import annotations

import logging
from collections import deque

log = logging.getLogger(__name__)

IN_HEADER = "Truco-In"  # a session frame's number from its front end (1, 2, ...)
FIRST_HEADER = "Truco-First"  # on a frame sent again: its number the first time
ACK_EVERY = 0.02  # seconds: the host confirms what it took at most this often, per front end
SENT_FRAMES = 4096  # frames of all sessions the host has not confirmed yet, kept at most
SENT_BYTES = 2 * 1024 * 1024
HELD_FRAMES = 64  # one session's frames waiting for a new host (after its attachment)
HELD_BYTES = 64 * 1024

Item = tuple[dict[str, str] | None, bytes]  # what the front end publishes: headers, data


class Unconfirmed:
    """Session frames sent to the host, oldest first, until it confirms them."""

    def __init__(self) -> None:
        # (number, conn id, frame, its first number): numbers grow, as the host confirms them
        self._frames: deque[tuple[int, int, bytes, int]] = deque()
        self._bytes = 0
        self._last = 0  # the last number given

    def number(self, conn_id: int, data: bytes, first: int = 0) -> int:
        """The next frame's number (``first``: the frame's number when it was first sent, if
        it is sent again); it is kept until confirmed."""
        self._last += 1
        self._frames.append((self._last, conn_id, data, first or self._last))
        self._bytes += len(data)
        while len(self._frames) > SENT_FRAMES or self._bytes > SENT_BYTES:
            old = self._frames.popleft()[2]  # the host is far behind: forgotten, not resent
            self._bytes -= len(old)
        return self._last

    def confirmed(self, n: int) -> None:
        """The host has taken every frame up to number ``n``."""
        frames = self._frames
        while frames and frames[0][0] <= n:
            self._bytes -= len(frames.popleft()[2])

    def take(self) -> list[tuple[int, bytes, int]]:
        """The frames never confirmed, oldest first (conn id, frame, its first number); none
        kept after."""
        taken = [(conn_id, data, first) for _, conn_id, data, first in self._frames]
        self._frames.clear()
        self._bytes = 0
        return taken

    def __len__(self) -> int:
        return len(self._frames)


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
