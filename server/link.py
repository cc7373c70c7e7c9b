"""The byte pipe between one session and the hub: the only thing they share."""
from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Callable

# Messages a session may have queued before it counts as not keeping up.
OUTBOX_LIMIT = 2000


@dataclass(frozen=True)
class Peer:
    """What the SSH layer verified about a connection (never taken from the client's words)."""

    conn_id: int
    ip: str
    username: str
    fingerprint: str | None  # SHA256 of the key that signed, None for guests


@dataclass(frozen=True)
class Frame:
    """An encoded command frame a session sent."""

    conn_id: int
    data: bytes
    # In a cluster, the frame's front end and number there ("front:n"; server/cluster/held_input.py):
    # the same for a frame sent again to a new lobby host, so a chat line is said once
    origin: str = ""
    # In a cluster, sent again to a new lobby host after one that may have taken it died
    # (server/cluster/front.py): it may have been acted on already
    again: bool = False


@dataclass(frozen=True)
class Closed:
    """The session's end of the connection closed."""

    conn_id: int


class HubLink:
    """A session's end of its connection to the hub: encoded frames both ways."""

    def __init__(self, post: Callable[[Frame | Closed], None], conn_id: int) -> None:
        self._post = post  # into the hub's inbox
        self.conn_id = conn_id
        self._outbox: asyncio.Queue[bytes | None] = asyncio.Queue()
        self.closed = False

    # session -> hub
    def send(self, data: bytes) -> None:
        if not self.closed:
            self._post(Frame(self.conn_id, data))

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            self._post(Closed(self.conn_id))

    async def receive(self) -> bytes | None:
        """The next frame from the hub, or None once the hub has hung up."""
        return await self._outbox.get()

    @property
    def queued(self) -> int:
        """Frames the hub has queued that the session has not taken yet (``receive`` returns
        the first of them at once)."""
        return self._outbox.qsize()

    # hub -> session (called by the hub only)
    def deliver(self, data: bytes | None) -> bool:
        """Queue a frame; False if the session has fallen too far behind."""
        if self.queued >= OUTBOX_LIMIT:
            return False
        self._outbox.put_nowait(data)
        return True

    def hang_up(self) -> None:
        self.closed = True
        self._outbox.put_nowait(None)
