"""A lease bucket whose stream has had no leader for long is made again.

After a power cut of every NATS node, nats-server (2.15) can come back with a replicated
stream that never elects a leader: each replica waits to catch up from a leader that none of
them may become ("catchup aborted, no leader for stream"), a rule that protects a stream's
data from a replica that lost some. While the lease bucket is in that state no process can
claim or renew a lease, so no table plays anywhere, for good.

The leases are the one store of the cluster that holds nothing worth keeping: a lease not
renewed within its TTL is void anyway, and its holder claims it again or steps down
(``lease.Lease``; the events streams' expected-sequence check fences a host that did not
notice). So a lease stream that the cluster's meta leader has reported leaderless for
``REPAIR_AFTER_TTLS`` TTLs in a row (every lease in it void by then) is deleted and created
again empty, as if every lease had expired at once. Any process of the cluster may do it:
each waits a random part of a check interval, then looks again at the same stream (by its
creation time) before deleting, so that a stream another process made again is left alone.

The other streams hold the players' data and are never deleted: one stuck for as long is
reported in the log as an error, with what the operator can do (docs/CLUSTER.md).
"""
from __future__ import annotations

import asyncio
import dataclasses
import logging
import random
import time
from dataclasses import dataclass

from nats.js.api import StreamConfig, StreamInfo
from nats.js.errors import APIError, NotFoundError

from server.cluster.bus import EVENTS_STREAM, LEASE_BUCKET, Bus, transient

log = logging.getLogger(__name__)

LEASE_STREAM = f"KV_{LEASE_BUCKET}"
REPAIR_AFTER_TTLS = 2.0  # lease TTLs a lease stream may stay leaderless before it is made again
LOOK_TIMEOUT = 2.0  # seconds a look at a stream waits for its answer
STREAM_NAME_IN_USE = 10058  # JetStream: a stream of this name exists with another configuration
REPORT_EVERY = 60.0  # seconds between errors about a stuck stream that is not repaired


@dataclass(frozen=True)
class Leaderless:
    """One stream seen without a leader: which incarnation (its creation time), since when."""

    created: str
    since: float


class LeaseRepair:
    """Looks at the lease and events streams (``check``, every few seconds) and makes the
    lease bucket again when its stream is stuck without a leader (see the module's docstring)."""

    def __init__(self, bus: Bus, after: float | None = None) -> None:
        self._bus = bus
        self._after = after if after is not None else REPAIR_AFTER_TTLS * bus.options.lease_ttl
        self._seen: dict[str, Leaderless] = {}
        self._reported: dict[str, float] = {}
        self.repairs = 0  # lease streams made again by this process

    async def check(self) -> None:
        """One look at each stream; a lease stream stuck for long is made again."""
        for stream in (LEASE_STREAM, EVENTS_STREAM):
            stuck = await self._stuck_for(stream)
            if stuck is None or stuck < self._after:
                continue
            if stream == LEASE_STREAM:
                await self._repair()
            else:
                self._report(stream, stuck)

    async def _look(self, stream: str) -> StreamInfo | None:
        """The stream as the cluster reports it (None: no answer, e.g. no meta leader yet,
        or no such stream)."""
        try:
            return await asyncio.wait_for(self._bus.js.stream_info(stream), LOOK_TIMEOUT)
        except Exception as exc:
            if not transient(exc):
                log.debug("lease repair: cannot look at %s: %r", stream, exc)
            return None

    async def _stuck_for(self, stream: str) -> float | None:
        """Seconds the stream has been reported leaderless in a row (None: it has a leader,
        or the cluster does not answer for it now, which is not a report of no leader)."""
        info = await self._look(stream)
        if info is None or info.cluster is None or info.cluster.leader:
            self._seen.pop(stream, None)
            return None
        created = str(info.created)
        seen = self._seen.get(stream)
        if seen is None or seen.created != created:
            seen = self._seen[stream] = Leaderless(created, time.monotonic())
            log.info("lease repair: %s has no leader (its replicas: %s)", stream,
                     ", ".join(f"{r.name} current={r.current} offline={r.offline}"
                               for r in info.cluster.replicas or []))
        return time.monotonic() - seen.since

    async def _repair(self) -> None:
        seen = self._seen[LEASE_STREAM]
        # Another process may be about to do the same: whoever waits least does it, and the
        # others see a stream of another creation time (or with a leader) when they look again
        await asyncio.sleep(random.uniform(0.0, self._bus.options.renew_every))
        info = await self._look(LEASE_STREAM)
        if info is None or info.cluster is None or info.cluster.leader or str(info.created) != seen.created:
            self._seen.pop(LEASE_STREAM, None)
            return
        stuck = time.monotonic() - seen.since
        self._seen.pop(LEASE_STREAM, None)
        try:
            await self._bus.js.delete_stream(LEASE_STREAM)
        except NotFoundError:  # another process deleted it a moment ago, and makes it again
            await self._make_again(info.config)
            return
        await self._make_again(info.config)
        self.repairs += 1
        log.error("lease repair: the lease bucket's stream had no leader for %.0f s (a NATS replica "
                  "waiting for a leader none may become, as after a power cut of every node); it was "
                  "deleted and made again empty, and every process claims its leases again", stuck)

    async def _make_again(self, config: StreamConfig) -> None:
        """The lease stream as it was configured, empty, its sequence starting past any number
        an earlier one used: a lease's revision is its writer's proof of holding it (``Lease``),
        and a holder from before must not find its old revision valid in the new stream. (The
        time in microseconds: a stream is written far less than once per microsecond.) If two
        processes make it at once, the first one's stands."""
        try:
            await self._bus.js.add_stream(dataclasses.replace(config, first_seq=time.time_ns() // 1000))
        except APIError as exc:
            if exc.err_code != STREAM_NAME_IN_USE:
                raise

    def _report(self, stream: str, stuck: float) -> None:
        now = time.monotonic()
        if now - self._reported.get(stream, -REPORT_EVERY) < REPORT_EVERY:
            return
        self._reported[stream] = now
        log.error("lease repair: stream %s has had no leader for %.0f s while the NATS cluster answers; "
                  "no table can play until it has one (docs/CLUSTER.md, 'A stream with no leader')",
                  stream, stuck)
