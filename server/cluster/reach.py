"""Telling a dead process from one whose lease ran out while NATS was failing over.

A lease in JetStream can run out although its holder is alive and well: a NATS node dies or
pauses, the lease bucket's stream elects a new leader (4-6 s), and no renewal gets through
meanwhile. Judged by its lease alone, such a process would be declared dead, its players
dropped and its tables moved. So the lobby host asks a process whose lease is gone directly
(``answers``: a request on its ``truco.alive.<process>`` subject, answered by ``Reach.serve``);
only one that does not answer for ``CONFIRM`` seconds is dead (``Silence``).

The other side of that bargain: a process that could not have answered for a while (its NATS
connection was down, or it was paused: its event loop did not run) may have been declared
dead meanwhile; ``Reach.reachable_since`` says whether that can have happened since a given
moment, and only a process that stayed reachable takes back a lease that ran out.
"""
from __future__ import annotations

import asyncio
import logging
import re
import time
from typing import Awaitable, Callable

from nats.aio.client import Client
from nats.aio.msg import Msg
from nats.aio.subscription import Subscription

log = logging.getLogger(__name__)

ALIVE_SUBJECT = "truco.alive"  # truco.alive.<process>: "are you there?" (request/reply)
ANSWER_WITHIN = 1.0  # seconds a live process has to answer
TICK = 0.25  # seconds between the event loop's heartbeats
# A process is judged dead only when it did not answer for this long (asked at least twice):
# a live one that reconnects to another NATS node, or stalls for less, is never judged dead
CONFIRM = 2.0
OUTAGE = 0.5  # an outage shorter than this is not even noted


def alive_subject(owner: str) -> str:
    return f"{ALIVE_SUBJECT}.{re.sub(r'[^A-Za-z0-9_-]', '_', owner)}"


async def answers(nc: Client, owner: str) -> bool:
    """Whether process ``owner`` answers on the bus now."""
    try:
        await nc.request(alive_subject(owner), b"", timeout=ANSWER_WITHIN)
    except Exception:  # no responders, a timeout, a bus that is down: no answer
        return False
    return True


class Silence:
    """The processes that did not answer, since when; dead once silent for ``CONFIRM``
    seconds (asked at least twice), judged only while the asker itself could be reached."""

    def __init__(self, reach: "Reach") -> None:
        self._reach = reach
        self._since: dict[str, float] = {}

    async def dead(self, nc: Client, owner: str) -> bool:
        now = self._reach.clock()
        if await answers(nc, owner) or not self._reach.reachable_since(now - CONFIRM):
            self._since.pop(owner, None)
            return False
        first = self._since.setdefault(owner, now)
        if len(self._since) > 4096:  # bounded: the oldest forgotten
            self._since.pop(next(iter(self._since)))
        return now - first >= CONFIRM


class Reach:
    """This process's own reachability: the NATS connection's outages (from nats-py's
    disconnect and reconnect callbacks) and the event loop's stalls (a heartbeat)."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self._down_since: float | None = None
        self._outages: list[tuple[float, float]] = []  # (start, end), on ``clock``, the recent ones
        self._beat = clock()
        self._task: asyncio.Task[None] | None = None
        self._sub: Subscription | None = None
        self.on_reconnect: list[Callable[[], Awaitable[None]]] = []  # after a reconnection

    async def disconnected(self) -> None:
        if self._down_since is None:
            self._down_since = self.clock()

    async def reconnected(self) -> None:
        if self._down_since is not None:
            self._note(self._down_since, self.clock())
            self._down_since = None
        for callback in self.on_reconnect:
            try:
                await callback()
            except Exception:
                log.exception("bus: a reconnection callback failed")

    def _note(self, start: float, end: float) -> None:
        if end - start >= OUTAGE:
            log.warning("bus: this process could not be reached for %.1f s", end - start)
            self._outages = [o for o in self._outages if end - o[1] < 600][-32:] + [(start, end)]

    def reachable_since(self, moment: float) -> bool:
        """No outage (of the bus, or of this process's event loop) since ``moment``
        (on ``clock``) long enough for another process to judge it dead (``Silence``)."""
        now = self.clock()
        longest = CONFIRM - TICK
        if self._down_since is not None and now - self._down_since >= longest:
            return False
        if now - self._beat >= longest:
            return False
        return all(end <= moment or end - start < longest for start, end in self._outages)

    async def serve(self, nc: Client, owner: str) -> None:
        """Answer ``answers`` for this process, and keep the heartbeat."""

        async def answer(msg: Msg) -> None:
            if msg.reply:
                await msg.respond(b"")

        self._sub = await nc.subscribe(alive_subject(owner), cb=answer)
        self._task = asyncio.get_running_loop().create_task(self._heartbeat(), name="reach-heartbeat")

    async def _heartbeat(self) -> None:
        while True:
            await asyncio.sleep(TICK)
            self.beat()

    def beat(self) -> None:
        """The event loop runs: a stall since the last beat is noted as an outage."""
        now = self.clock()
        self._note(self._beat, now - TICK)
        self._beat = now

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)
        if self._sub is not None:
            try:
                await self._sub.unsubscribe()
            except Exception:  # the connection is closing anyway
                pass
