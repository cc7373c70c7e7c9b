"""The server's connection to NATS: names, JetStream resources, and guarded subscriptions.

Everything received from the bus is decoded with ``protocol.bus.decode_bus`` (validated like
a client's frame); a malformed or foreign message is logged and dropped, and a handler that
fails is logged: neither ever reaches the event loop as an exception.
"""
from __future__ import annotations

import asyncio
import logging
import os
import time
import re
import secrets
import socket
from typing import Awaitable, Callable, TypeVar

import nats
from nats.aio.client import Client
from nats.aio.msg import Msg
from nats.js.api import RawStreamMsg
from nats.aio.subscription import Subscription
from nats.js import JetStreamContext
from nats.js.api import KeyValueConfig, StorageType
from nats import errors as nats_errors
from nats.js import errors as js_errors
from nats.js.errors import BucketNotFoundError, NotFoundError
from nats.js.kv import KeyValue

from protocol import ProtocolError
from protocol.bus import CONN_ID_MAX, decode_bus
from protocol.bus_base import BusMessage
from server.cluster.nats_private import flush_pending
from server.cluster.options import BusOptions
from server.cluster.reach import PING_EVERY, PINGS_UNANSWERED, Reach

log = logging.getLogger(__name__)
T = TypeVar("T")



class InDoubt(Exception):
    """JetStream keeps refusing a write that what it reads says should pass: a write of the
    same key still in flight in its stream's Raft group (sent during a NATS node's outage,
    its answer lost) holds it back until that one is decided. Nothing is known yet; a try a
    moment later is answered (``Leases._take_back``)."""


# What the bus answers while a NATS node is down or a stream elects its leader: the request
# may or may not have been done, and the same request a moment later will be answered.
TRANSIENT_ERRORS: tuple[type[BaseException], ...] = (
    nats_errors.TimeoutError, nats_errors.NoRespondersError, nats_errors.ConnectionReconnectingError,
    nats_errors.OutboundBufferLimitError, nats_errors.StaleConnectionError, js_errors.NoStreamResponseError,
    js_errors.ServiceUnavailableError, asyncio.TimeoutError, InDoubt,
)
WRONG_LAST_SEQUENCE = (10071, 10164)  # JetStream's error codes for a failed expected sequence
RECONNECT_TIMEOUT = 1.0  # seconds a reconnection waits on one NATS node (a hung one accepts, then says nothing)
DUPLICATE_IN_PROCESS = 10158  # JetStream: a message with this id is still being stored (a retry)
READ_TIMEOUT = 2.0  # seconds for one try of a retried JetStream read (Bus.js_read)
# seconds for one try of a retried append (Bus.js_write): one sent into a partition or an
# election is lost, and the next try must not wait nats-py's 5 s to be sent (make chaos: a
# table stopped when its last try, made just before a partition healed, timed out too late)
WRITE_TIMEOUT = 1.0
RETRY_FIRST, RETRY_MOST = 0.1, 1.0  # seconds between tries: doubling from the first to the most


def transient(exc: BaseException) -> bool:
    """An error that a retry may cure (a NATS node down, a leader being elected, the first
    try of a retried message still being stored)."""
    return isinstance(exc, TRANSIENT_ERRORS) or (
        isinstance(exc, js_errors.APIError) and getattr(exc, "err_code", None) == DUPLICATE_IN_PROCESS)


async def retrying(attempt: Callable[[], Awaitable[T]], what: str, within: float) -> T:
    """``attempt()`` again while the bus answers with a transient error, for ``within``
    seconds at most (then that error is raised); said once in the log when it waits, and
    again when it got through."""
    deadline = time.monotonic() + within
    pause, waited_since = RETRY_FIRST, 0.0
    while True:
        try:
            result = await attempt()
        except Exception as exc:
            if not transient(exc):
                raise
            now = time.monotonic()
            if now + pause > deadline:
                log.error("bus: %s failed for %.1f s: %r", what, now - (waited_since or now), exc)
                raise
            if not waited_since:
                waited_since = now
                log.info("bus: %s waits for JetStream (%r)", what, exc)
            await asyncio.sleep(pause)
            pause = min(pause * 2, RETRY_MOST)
            continue
        if waited_since:
            waited = time.monotonic() - waited_since
            log.log(logging.WARNING if waited >= RETRY_MOST else logging.INFO,
                    "bus: %s got through after %.1f s", what, waited)
        return result

EVENTS_STREAM = "TRUCO_EVENTS"
EVENTS_SUBJECT = "truco.events"  # truco.events.<table id>
LEASE_BUCKET = "truco_leases"
NAMES_BUCKET = "truco_names"  # name reservations: name key (hex) -> NameReservation
PRESENCE_BUCKET = "truco_presence"  # <front>.<conn id> -> PresenceEntry
DIRECTORY_BUCKET = "truco_directory"  # table id -> DirectoryEntry (the lobby's table list)
HUB_SUBJECT = "truco.hub.in"  # truco.hub.in.<host>: front ends -> the lobby host (hub_subject)
FRONT_SUBJECT = "truco.front"  # truco.front.<process>: the lobby host -> one front end
CONN_HEADER = "Truco-Conn"  # a session's frame: the connection id it belongs to
HOST_LEASE = "lobby"  # the lease of the process that runs the lobby
LOBBY_CHAT_SUBJECT = "truco.lobby.chat"  # the lobby host -> every front end: a lobby chat line
HOST_NEWS = "truco.host.news"  # a new lobby host is ready: processes read the lease at once
TABLE_SUBJECT = "truco.table"  # truco.table.<table id>: the lobby host -> the table's owner
OWNER_SUBJECT = "truco.owner"  # truco.owner.<process>: "run this table" (request/reply)
RESEND_SUBJECT = "truco.resend"  # a process reconnected to NATS: table owners send views again
TABLE_NEWS = "truco.tables.news"  # table owners -> the lobby host: TableStatus
MAX_BUS_MESSAGE = 64 * 1024  # as protocol.MAX_FRAME: nothing bigger is read


async def settle(nc: Client) -> None:
    """Until the NATS server has had everything ``nc`` sent so far (a SUB: it delivers to it).

    nats-py's ``flush()`` writes its PING straight to the socket, ahead of the commands still
    queued for its flusher task (a SUB or PUB just made), so its PONG can come back before the
    server has them: a message published by another process just after was then lost about one
    time in twenty on a loaded machine (nats-py 2.16). The queue is written first here (a
    private call: ``nats_private.flush_pending``), so the PING follows what was sent and its
    PONG means the server has it.
    """
    await flush_pending(nc)
    await nc.flush()


def process_id() -> str:
    """This process, for leases and logs: host, pid and a random part (pids are reused)."""
    return f"{socket.gethostname()[:32]}-{os.getpid()}-{secrets.token_hex(3)}"


def _token(owner: str) -> str:
    return re.sub(r"[^A-Za-z0-9_-]", "_", owner)


def front_subject(owner: str) -> str:
    return f"{FRONT_SUBJECT}.{_token(owner)}"


def hub_subject(host: str) -> str:
    """Where front ends send to the lobby host ``host``: its own subject, so that a host that
    has not yet noticed it lost the lobby (cut off, then back) gets nothing of the sessions
    that follow the new one; on a shared subject both lobbies handled them."""
    return f"{HUB_SUBJECT}.{_token(host)}"


def front_lease(owner: str) -> str:
    """The lease a front end holds while it lives: the host closes the connections of a
    front end whose lease ran out (it died without saying so)."""
    return f"front-{_token(owner)}"


def presence_key(owner: str, conn_id: int) -> str:
    """A session's key in the presence bucket: its front end first, so that the entries of
    a dead front end are found by their prefix."""
    return f"{_token(owner)}.{conn_id}"


def owner_subject(owner: str) -> str:
    return f"{OWNER_SUBJECT}.{_token(owner)}"


def table_subject(table_id: str) -> str:
    return f"{TABLE_SUBJECT}.{_token(table_id)}"


def table_lease(table_id: str) -> str:
    """The lease of the process that runs a table (``server/cluster/owner.py``)."""
    return f"table-{_token(table_id)}"


def conn_header(conn_id: int) -> dict[str, str]:
    return {CONN_HEADER: str(conn_id)}


def parse_conn_id(text: str) -> int | None:
    """A connection id from a header, or None if it is not one."""
    if not (0 < len(text) <= 16 and text.isdigit()):
        return None
    value = int(text)
    return value if 0 < value <= CONN_ID_MAX else None


Handler = Callable[[BusMessage, Msg], Awaitable[None]]


class Bus:
    """One NATS connection of one server process."""

    def __init__(self, nc: Client, options: BusOptions, owner: str | None = None,
                 reach: Reach | None = None) -> None:
        self.nc = nc
        self.reach = reach or Reach()  # outages of this process (server/cluster/reach.py)
        self.js: JetStreamContext = nc.jetstream()
        # For reads that are retried anyway (``retrying``): a request that reached a stream
        # still electing its leader is given up sooner than nats-py's 5 s (make chaos: a
        # table's restore after a power cut of every node waited out 5 s, then read in 0.2 s)
        self.js_read: JetStreamContext = nc.jetstream(timeout=READ_TIMEOUT)
        # for appends that are retried with their message id (JetStream drops a repeat)
        self.js_write: JetStreamContext = nc.jetstream(timeout=WRITE_TIMEOUT)
        self.options = options
        self.owner = owner or process_id()
        self.dropped = 0  # bus messages refused (tests and operators read it)

    @classmethod
    async def connect(cls, servers: str | list[str], options: BusOptions = BusOptions(),
                      owner: str | None = None) -> "Bus":
        reach = Reach()
        try:
            # A few tries at start (a wrong URL is reported, not retried for ever), then,
            # once connected, reconnect for ever: a NATS restart must not end the process.
            nc = await nats.connect(servers, name=owner or "truco-ssh", max_reconnect_attempts=3,
                                    reconnect_time_wait=0.5, error_cb=_log_error, connect_timeout=5,
                                    disconnected_cb=reach.disconnected, reconnected_cb=reach.reconnected,
                                    # a NATS node that hangs (paused, cut off) is left for another
                                    # within about 2 s, not after nats-py's default 4 minutes
                                    ping_interval=PING_EVERY, max_outstanding_pings=PINGS_UNANSWERED)
        except Exception as exc:  # nats-py raises its own types; main() reports OSErrors
            raise ConnectionError(f"cannot reach NATS at {servers}: {exc}") from exc
        nc.options["max_reconnect_attempts"] = -1  # read by nats-py at each reconnect
        nc.options["connect_timeout"] = RECONNECT_TIMEOUT  # a hung node is not waited on for long
        return cls(nc, options, owner, reach)

    async def close(self) -> None:
        if not self.nc.is_closed:
            await self.nc.drain()

    def decode(self, msg: Msg | RawStreamMsg) -> BusMessage | None:
        """The bus message in ``msg`` (a delivered one or one read from a stream), or None
        (logged and counted) for anything else."""
        data = msg.data or b""
        try:
            if len(data) > MAX_BUS_MESSAGE:
                raise ProtocolError(f"{len(data)} bytes")
            return decode_bus(data)
        except ProtocolError as exc:
            self.dropped += 1
            log.warning("bus: dropped a bad message on %.80s: %s", msg.subject, exc)
            return None

    async def subscribe(self, subject: str, handler: Handler) -> Subscription:
        """Core NATS subscription whose handler only ever sees valid bus messages."""

        async def guarded(msg: Msg) -> None:
            message = self.decode(msg)
            if message is None:
                return
            try:
                await handler(message, msg)
            except Exception:
                log.exception("bus: handler failed on %s from %.80s", message.TYPE, msg.subject)

        sub = await self.nc.subscribe(subject, cb=guarded)
        await settle(self.nc)  # the server has the subscription before anyone is told of it
        return sub


async def bucket(bus: Bus, name: str) -> KeyValue:
    """A key-value bucket of the cluster (one value per key), created on first use."""
    try:
        return await bus.js.key_value(name)
    except (BucketNotFoundError, NotFoundError):
        pass
    return await bus.js.create_key_value(config=KeyValueConfig(
        bucket=name, history=1, storage=StorageType.FILE, replicas=bus.options.replicas))


class SteadyKV:
    """A bucket whose idempotent calls (put, delete, get) wait out a NATS failover
    (``retrying``, for ``within`` seconds) instead of failing at the first timeout."""

    def __init__(self, kv: KeyValue, within: float = 15.0) -> None:
        self.kv = kv
        self._within = within

    async def put(self, key: str, value: bytes) -> int:
        return await retrying(lambda: self.kv.put(key, value), f"writing {key!r:.60}", self._within)

    async def delete(self, key: str) -> bool:
        return await retrying(lambda: self.kv.delete(key), f"deleting {key!r:.60}", self._within)

    async def get(self, key: str) -> KeyValue.Entry:
        return await retrying(lambda: self.kv.get(key), f"reading {key!r:.60}", self._within)


async def _log_error(exc: Exception) -> None:
    log.warning("bus: %s", exc)
