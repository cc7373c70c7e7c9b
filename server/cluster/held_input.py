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
end has not had confirmed (``LOW_HEADER``) and its name (``SENDER_HEADER``). The host takes
a front end's messages strictly in turn (``InTurn``): one after a gap is left (it comes
again), a repeat is confirmed again and left. The front end sends everything unconfirmed
again, in order, when nothing has been confirmed for ``RESEND_AFTER`` seconds (doubling up
to ``RESEND_MAX`` while it still is not; not while its own NATS connection is down). The
host's messages to each front end go the same way (server/cluster/lobby_host.py,
``Outgoing``), and the front end takes them with a ``Taker`` too.
"""
from __future__ import annotations

import asyncio
import logging
import time
from collections import deque
from typing import Callable

from server.cluster.bus import CONN_HEADER

log = logging.getLogger(__name__)

IN_HEADER = "Truco-In"  # a message's number from its sender (1, 2, ...)
FIRST_HEADER = "Truco-First"  # on a frame sent again: its number the first time
LOW_HEADER = "Truco-Low"  # the oldest number the sender had not had confirmed when it sent this
SENDER_HEADER = "Truco-From"  # the process that numbered it
RESEND_AFTER = 0.5  # seconds without a confirmation before what is unconfirmed is sent again
RESEND_MAX = 2.0  # (a lost one must not wait long once the host is back)
ACK_EVERY = 0.02  # seconds: the host confirms what it took at most this often, per front end
SENT_FRAMES = 4096  # frames of all sessions the host has not confirmed yet, kept at most
SENT_BYTES = 2 * 1024 * 1024
HELD_FRAMES = 64  # one session's frames waiting for a new host (after its attachment)
HELD_BYTES = 64 * 1024

Item = tuple[dict[str, str] | None, bytes]  # what the front end publishes: headers, data


class Unconfirmed:
    """What one process sent another, oldest first, until the other confirms it. A front end's
    to the host: its sessions' frames (a connection id header) and its own messages
    (``ConnOpened``, ``ConnClosed``...); the host's to a front end: its frames to the
    sessions there and its messages about them. Each is kept with the headers it was first
    sent with; ``start``: the number before the first (a host that steps down and hosts
    again numbers on from a later start: its front ends have taken the earlier numbers)."""

    def __init__(self, start: int = 0) -> None:
        # (number, headers, data): numbers grow, as the other side confirms them
        self._frames: deque[tuple[int, dict[str, str], bytes]] = deque()
        self._bytes = 0
        self._last = start  # the last number given
        self.progress_at = 0.0  # (monotonic) when one was last confirmed, or one was sent to none waiting
        self._resent_at = 0.0  # (monotonic) when everything unconfirmed was last sent again
        self._wait = RESEND_AFTER  # seconds without progress before the next time, doubling while none comes

    def number(self, headers: dict[str, str], data: bytes) -> int:
        """The next number; the message is kept until confirmed."""
        self._last += 1
        if not self._frames:
            self.progress_at = time.monotonic()
        self._frames.append((self._last, dict(headers), data))
        self._bytes += len(data)
        while len(self._frames) > SENT_FRAMES or self._bytes > SENT_BYTES:
            old = self._frames.popleft()[2]  # the other side is far behind: forgotten, not resent
            self._bytes -= len(old)
        return self._last

    def low(self) -> int:
        """The oldest number not confirmed yet (the next one if none waits)."""
        return self._frames[0][0] if self._frames else self._last + 1

    def confirmed(self, n: int) -> None:
        """The other side has taken everything up to number ``n``."""
        frames = self._frames
        if frames and frames[0][0] <= n:
            self.progress_at = time.monotonic()
        while frames and frames[0][0] <= n:
            self._bytes -= len(frames.popleft()[2])

    def again(self) -> list[tuple[dict[str, str], bytes]]:
        """Everything not confirmed yet, oldest first, with the headers to send it again as it
        first was (its number included); kept."""
        return [({**headers, IN_HEADER: str(n)}, data) for n, headers, data in self._frames]

    def due(self, now: float) -> list[tuple[dict[str, str], bytes]]:
        """What to send again now (``again``): everything unconfirmed if nothing was
        confirmed for the wait (which then doubles, up to ``RESEND_MAX``: a receiver cut off
        is not flooded), else nothing."""
        if self.progress_at > self._resent_at:
            self._wait = RESEND_AFTER
        if not self._frames or now - max(self.progress_at, self._resent_at) < self._wait:
            return []
        self._resent_at, self._wait = now, min(self._wait * 2, RESEND_MAX)
        return self.again()

    def take(self) -> list[tuple[int, bytes, int]]:
        """The sessions' frames never confirmed, oldest first (conn id, frame, its first
        number), for the next host; nothing is kept after (the front end's own messages were
        for this host only)."""
        taken = [(int(headers[CONN_HEADER]), data, int(headers.get(FIRST_HEADER, n)))
                 for n, headers, data in self._frames if CONN_HEADER in headers]
        self._frames.clear()
        self._bytes = 0
        self._wait = RESEND_AFTER
        return taken

    def __len__(self) -> int:
        return len(self._frames)


class InTurn:
    """The receiving side: how far each sender's messages have come, taken strictly in turn."""

    def __init__(self) -> None:
        self.took: dict[str, int] = {}  # sender -> the last number taken

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


class Taker:
    """The receiving side of one process's numbered messages from others: each taken strictly
    in turn (``InTurn``), and each sender told how far its messages came (``confirm``: sender,
    number) at most every ``ACK_EVERY`` seconds, a repeat's sender too (its confirmation may
    be what was lost)."""

    def __init__(self, confirm: Callable[[str, int], None]) -> None:
        self.turns = InTurn()
        self._confirm = confirm
        self._due: set[str] = set()
        self._timer: asyncio.TimerHandle | None = None

    def take(self, sender: str, number: int, low: int | None) -> bool:
        """True: act on it; False: leave it (a repeat, or one after a gap: sent again)."""
        verdict = self.turns.check(sender, number, low)
        if verdict is None:
            return False
        self._due.add(sender)
        if self._timer is None:
            self._timer = asyncio.get_running_loop().call_later(ACK_EVERY, self.flush)
        return verdict

    def forget(self, sender: str) -> None:
        self.turns.took.pop(sender, None)
        self._due.discard(sender)

    def flush(self) -> None:
        """Confirm now what is due."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        due, self._due = self._due, set()
        for sender in due:
            if sender in self.turns.took:
                self._confirm(sender, self.turns.took[sender])
