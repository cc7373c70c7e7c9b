"""Telling a dead process from one whose lease ran out while NATS was failing over.

A lease in JetStream can run out although its holder is alive and well: a NATS node dies or
pauses, the lease bucket's stream elects a new leader (nats-server's Raft waits 4-9 s for a
lost leader), and no renewal gets through meanwhile. Judged by its lease alone, such a process would be declared dead, its players
dropped and its tables moved. So the lobby host asks a process whose lease is gone directly
(``ask``: a request on its ``truco.alive.<process>`` subject, answered by ``Reach.serve``);
only one that does not answer for ``CONFIRM`` seconds is dead (``Silence``). One that nobody
on the bus listens for any more (NATS answers "no responders" at once: its connection closed,
as when it is killed) is dead after ``ABSENT_CONFIRM`` seconds, its lease running or not: its
leases are then voided (``Leases.void_all``), so that its tables and the lobby move at once.

The other side of that bargain: a process that could not have answered for a while (its NATS
connection was down, or it was paused: its event loop did not run) may have been declared
dead meanwhile; ``Reach.reachable_since`` says whether that can have happened since a given
moment, and only a process that stayed reachable since its last renewal takes back a lease
that ran out. (A process on a machine cut off from the others keeps its NATS connection and
does not know it was absent to them: it may take back a lease nobody claimed meanwhile. The
event streams' expected-sequence check still keeps any table from two writers, and its front
end then asks the lobby host which of its sessions it still holds, attaching the others to it
again: server/cluster/front.py, ``FrontEnd.lease_renewed``.)
"""
from __future__ import annotations

import asyncio
import enum
import logging
import re
import time
from typing import Awaitable, Callable

from nats.aio.client import Client
from nats.aio.msg import Msg
from nats.aio.subscription import Subscription
from nats.errors import NoRespondersError

from server.cluster.tasks import cancel_and_wait

log = logging.getLogger(__name__)

ALIVE_SUBJECT = "truco.alive"  # truco.alive.<process>: "are you there?" (request/reply)
ANSWER_WITHIN = 1.0  # seconds a live process has to answer
HOSTING = b"hosting"  # the answer of a process that runs the lobby (else it is empty)
TICK = 0.25  # seconds between the event loop's heartbeats
# A process nobody on the bus listens for any more is dead once that lasted this long (asked
# twice): a live one moving off a NATS node that died is listened for again well within it
ABSENT_CONFIRM = 2.0
# One that is listened for but does not answer (its NATS node hung, or it did) is dead once
# that lasted this long: a live one leaves a hung node (HANG_NOTICED_AFTER, then a reconnect)
# well within it
CONFIRM = 6.0
OUTAGE = 0.5  # an outage shorter than this is not even noted
# An asker that wrote nothing to JetStream for longer judges nobody (its leases are renewed
# about every second; cut off from the cluster, its writes fail): what it saw starts over
WROTE_WITHIN = 1.5
PING_EVERY, PINGS_UNANSWERED = 0.5, 4  # nats-py's pings to its server (seconds; before a reconnect)
HANG_NOTICED_AFTER = PING_EVERY * PINGS_UNANSWERED  # seconds a hung NATS node goes unnoticed


DOWN, STALL = "disconnected", "stalled"  # the kinds of outage


class Answer(enum.Enum):
    YES = "yes"
    ABSENT = "absent"  # nobody on the bus listens for it (NATS said so at once)
    SILENT = "silent"  # the request went unanswered


def alive_subject(owner: str) -> str:
    return f"{ALIVE_SUBJECT}.{re.sub(r'[^A-Za-z0-9_-]', '_', owner)}"


async def ask(nc: Client, owner: str) -> Answer:
    """Whether process ``owner`` answers on the bus now, and if not, how."""
    try:
        await nc.request(alive_subject(owner), b"", timeout=ANSWER_WITHIN)
    except NoRespondersError:
        return Answer.ABSENT
    except Exception:  # a timeout, a bus that is down
        return Answer.SILENT
    return Answer.YES


async def hosts(nc: Client, owner: str) -> bool:
    """Whether process ``owner`` answers now that it runs the lobby: a host whose lease ran
    out in a NATS failover takes it back, one that stepped down does not (the others waited
    up to twice the TTL for one that answered, although it had stepped down: make chaos)."""
    try:
        reply = await nc.request(alive_subject(owner), b"", timeout=ANSWER_WITHIN)
    except Exception:  # no answer, a bus that is down
        return False
    return reply.data == HOSTING


class Silence:
    """The processes that did not answer, since when; dead once absent for ``ABSENT_CONFIRM``
    seconds, or silent for ``CONFIRM`` (asked at least twice), judged only while the asker
    itself could be reached all that time, and only by an asker that kept writing to
    JetStream (``Reach.wrote``: every ``WROTE_WITHIN`` seconds, and once the silence had lasted
    half its time). On a machine cut off from the others every other process is absent (its
    NATS node lost their interest) while the asker keeps its own connection: it judged them
    all dead, and voided their leases as the partition healed (make chaos)."""

    def __init__(self, reach: "Reach") -> None:
        self._reach = reach
        self._since: dict[str, tuple[float, bool]] = {}  # owner -> (first unanswered, only ever absent)

    async def dead(self, nc: Client, owner: str, absent_only: bool = False) -> bool:
        """Asked once more: judged dead now. With ``absent_only``, only a process nobody on
        the bus has listened for during ``ABSENT_CONFIRM`` (killed: its connection closed) is;
        one that is listened for but silent (paused, or its NATS node hung) is not, yet."""
        now = self._reach.clock()
        answer = await ask(nc, owner)
        if (answer is Answer.YES or not self._reach.reachable_since(now - CONFIRM)
                or not self._reach.wrote_since(now - WROTE_WITHIN)):
            self._since.pop(owner, None)
            return False
        first, absent = self._since.get(owner, (now, True))
        absent = absent and answer is Answer.ABSENT
        self._since[owner] = (first, absent)
        if len(self._since) > 4096:  # bounded: the oldest forgotten
            self._since.pop(next(iter(self._since)))
        if absent_only and not absent:
            return False
        needed = ABSENT_CONFIRM if absent else CONFIRM
        return now - first >= needed and self._reach.wrote_since(first + needed / 2)


class Reach:
    """This process's own reachability: the NATS connection's outages (from nats-py's
    disconnect and reconnect callbacks) and the event loop's stalls (a heartbeat)."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self._down_since: float | None = None
        self._outages: list[tuple[float, float, str]] = []  # (start, end, kind), on ``clock``, the recent ones
        self._beat = clock()
        self._task: asyncio.Task[None] | None = None
        self._sub: Subscription | None = None
        self.on_reconnect: list[Callable[[], Awaitable[None]]] = []  # after a reconnection
        self._wrote = float("-inf")  # when a write of this process's last reached JetStream (``wrote``)

    async def disconnected(self) -> None:
        if self._down_since is None:
            self._down_since = self.clock()

    async def reconnected(self) -> None:
        if self._down_since is not None:
            self._note(self._down_since, self.clock(), DOWN)
            self._down_since = None
        for callback in self.on_reconnect:
            try:
                await callback()
            except Exception:
                log.exception("bus: a reconnection callback failed")

    def _note(self, start: float, end: float, kind: str) -> None:
        if end - start >= OUTAGE:
            log.warning("bus: this process could not be reached for %.1f s (%s)", end - start, kind)
            self._outages = [o for o in self._outages if end - o[1] < 600][-32:] + [(start, end, kind)]

    def wrote(self) -> None:
        """A write of this process reached JetStream (a lease renewed or claimed): its NATS
        node is on the side of the cluster that can write."""
        self._wrote = self.clock()

    def wrote_since(self, moment: float) -> bool:
        return self._wrote >= moment

    def reachable_since(self, moment: float) -> bool:
        """No outage since ``moment`` (on ``clock``) long enough for another process to have
        judged it dead (``Silence``): disconnected from NATS (absent) for ``ABSENT_CONFIRM``,
        or unanswering for ``CONFIRM`` (a NATS node that hung is noticed only after
        ``HANG_NOTICED_AFTER``: counted from then; an event loop that stalled). Only the part
        of an outage after ``moment`` counts: nobody asked before it."""
        now = self.clock()
        outages = list(self._outages)
        if self._down_since is not None:
            outages.append((self._down_since, now, DOWN))
        outages.append((self._beat, now, STALL))
        for start, end, kind in outages:
            if kind == DOWN:
                if end - max(start, moment) >= ABSENT_CONFIRM - TICK:
                    return False
                start -= HANG_NOTICED_AFTER
            if end - max(start, moment) >= CONFIRM - TICK:
                return False
        return True

    async def serve(self, nc: Client, owner: str, hosting: Callable[[], bool] = lambda: False) -> None:
        """Answer ``ask`` (and ``hosts``: whether ``hosting()``) for this process, and
        keep the heartbeat."""

        async def answer(msg: Msg) -> None:
            if msg.reply:
                await msg.respond(HOSTING if hosting() else b"")

        self._sub = await nc.subscribe(alive_subject(owner), cb=answer)
        self._task = asyncio.get_running_loop().create_task(self._heartbeat(), name="reach-heartbeat")

    async def _heartbeat(self) -> None:
        while True:
            await asyncio.sleep(TICK)
            self.beat()

    def beat(self) -> None:
        """The event loop runs: a stall since the last beat is noted as an outage."""
        now = self.clock()
        self._note(self._beat, now - TICK, STALL)
        self._beat = now

    async def stop(self) -> None:
        if self._task is not None:
            await cancel_and_wait(self._task)
        if self._sub is not None:
            try:
                await self._sub.unsubscribe()
            except Exception:  # the connection is closing anyway
                pass
