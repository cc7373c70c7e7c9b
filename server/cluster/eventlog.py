"""A table's event log in a JetStream stream (cluster mode's counterpart of SQLite's events).

Every table has a subject ``truco.events.<table id>`` in one stream; each append is one
``protocol.bus.LoggedEvents`` message (whole or absent, like an SQLite transaction; see the
message for appends too big for one). ``append`` returns once JetStream acknowledged it
(the acknowledgement is the log write: the table actor sends no update before it), and each
publish names the stream sequence of the table's previous event, so a process that lost its
lease and did not notice yet cannot add to the log after the new owner did (fencing).
A new owner seals the log it read (``seal``: an append of no events) before it shows
anything, so that it cannot be fenced only at its first move, after showing players a table
older than the one the last owner showed them.
"""
from __future__ import annotations

import contextlib
import logging
import time
from typing import Any, AsyncGenerator, Iterable

from nats.js import JetStreamContext
from nats.js.api import AckPolicy, ConsumerConfig, DeliverPolicy, Header, PubAck, StorageType, StreamConfig
from nats.js.errors import APIError, NotFoundError

import protocol as p
from protocol.bus import EVENTS_PER_MESSAGE, EventRecord, GameEntry, LoggedEvents
from server.ops import metrics
from server.cluster.bus import (EVENTS_STREAM, EVENTS_SUBJECT, READ_TIMEOUT, TRANSIENT_ERRORS, WRONG_LAST_SEQUENCE,
                                Bus, retrying)
from server.store import EventRow

log = logging.getLogger(__name__)

READ_BATCH = 256
READ_WITHIN = 30.0  # seconds a restore keeps reading a log through a NATS failover
WRITE_WITHIN = 15.0  # seconds an append keeps trying (the table waits meanwhile; then it stops)
FOLLOW_TRIES = 3  # appends of one message, each after this process's own last one (``_follow_last``)


class Fenced(RuntimeError):
    """Another process wrote to this table's log: this one no longer owns it."""


async def events_stream(bus: Bus) -> None:
    """The events stream, created on first use (file storage, the cluster's replicas)."""
    try:
        await bus.js.stream_info(EVENTS_STREAM)
        return
    except NotFoundError:
        pass
    await bus.js.add_stream(StreamConfig(
        name=EVENTS_STREAM, subjects=[f"{EVENTS_SUBJECT}.>"], storage=StorageType.FILE,
        num_replicas=bus.options.replicas,
    ))


def subject(table_id: str) -> str:
    return f"{EVENTS_SUBJECT}.{table_id}"


class TableLog:
    """One table's log, as its owner sees it (``last``: the stream sequence of its last event)."""

    def __init__(self, bus: Bus, table_id: str) -> None:
        self._bus = bus
        self.table_id = table_id
        self.last = 0
        self.games: list[GameEntry] = []  # the finished matches in the log (``read``)

    async def read(self) -> list[EventRow]:
        """Every logged event of the table, oldest first. A message that is not one of its
        appends (foreign or malformed) is logged and skipped, and so are the first parts of
        an append its writer did not finish (it died): nobody saw those events. Sets
        ``last`` for the appends that follow. A read cut short by the bus (a NATS node failing
        over) starts again, for ``READ_WITHIN`` seconds: a table whose events exist is never
        given up for an outage."""
        return await retrying(self._read, f"reading the log of table {self.table_id}", READ_WITHIN)

    async def _read(self) -> list[EventRow]:
        js = self._bus.js_read
        try:
            newest = await js.get_last_msg(EVENTS_STREAM, subject(self.table_id))
        except NotFoundError:
            self.last = 0
            return []
        newest_seq = newest.seq or 0
        rows: list[EventRow] = []
        pending: list[EventRow] = []  # parts of an append not complete yet
        self.games = []
        async with contextlib.aclosing(self._messages(js, newest_seq)) as messages:
            async for seen, message in messages:
                part = self._part(message, seen)
                if part is None:
                    continue
                batch, more, games = part
                if pending and batch[0].seq != pending[-1].seq + 1:
                    log.warning("events of %s: an unfinished append (%d events) skipped",
                                self.table_id, len(pending))
                    pending = []
                if rows and not pending and batch[0].seq <= rows[-1].seq:
                    self._bus.dropped += 1
                    log.warning("events of %s: message %d repeats logged events: skipped",
                                self.table_id, seen)
                    continue
                pending.extend(batch)
                if not more:
                    rows.extend(pending)
                    pending = []
                    self.games.extend(games)
        if pending:
            log.warning("events of %s: the last append was not finished (%d events): skipped",
                        self.table_id, len(pending))
        self.last = newest_seq
        return rows

    async def _messages(self, js: JetStreamContext, newest_seq: int) -> AsyncGenerator[tuple[int, Any], None]:
        """The table's messages up to ``newest_seq``, decoded, with their stream sequences:
        in batches through a consumer; or, while JetStream has no metadata leader to make
        one (it answers "temporarily unavailable" for 4-9 s after a partition heals or a
        node dies), one at a time from the stream's leader, which needs none. In make chaos
        such a restore waited out the election, and the table with it."""
        try:
            sub = await js.pull_subscribe(
                subject(self.table_id), stream=EVENTS_STREAM,
                config=ConsumerConfig(ack_policy=AckPolicy.NONE, deliver_policy=DeliverPolicy.ALL,
                                      inactive_threshold=30.0),
            )
        except TRANSIENT_ERRORS as exc:
            log.info("events of %s: read one by one (no consumer: %r)", self.table_id, exc)
            seen = 0
            while seen < newest_seq:
                raw = await js.get_msg(EVENTS_STREAM, seen + 1, subject=subject(self.table_id), next=True)
                seen = raw.seq or newest_seq
                yield seen, self._bus.decode(raw)
            return
        try:
            seen = 0
            while seen < newest_seq:
                for msg in await sub.fetch(READ_BATCH, timeout=READ_TIMEOUT):
                    seen = msg.metadata.sequence.stream
                    yield seen, self._bus.decode(msg)
        finally:
            await sub.unsubscribe()

    def _part(self, message: Any, stream_seq: int
              ) -> tuple[list[EventRow], bool, tuple[GameEntry, ...]] | None:
        if isinstance(message, LoggedEvents) and message.table_id == self.table_id and not message.events:
            return None  # an owner's seal (``seal``)
        if not isinstance(message, LoggedEvents) or message.table_id != self.table_id:
            if message is not None:
                self._bus.dropped += 1
                log.warning("events of %s: message %d is not this table's events: skipped",
                            self.table_id, stream_seq)
            return None
        rows = [EventRow(seq=e.seq, match_no=e.match_no, data=e.data, seat=e.seat, cid=e.cid,
                         ts=message.ts) for e in message.events]
        return rows, message.more, message.games

    async def seal(self) -> bool:
        """Mark the log as read by this process, unless another wrote to it since ``read``
        (False: read it again). From then on a process that wrote to the table before, and
        has not noticed yet that it lost it (one cut off from NATS, whose last append was
        still being retried), is fenced at its next append: the log is what this owner read,
        and what it shows. In `make chaos` a table was seen going back 8 moves after a
        partition healed: the old owner's retried appends landed after the new owner's read."""
        data = p.encode(LoggedEvents(table_id=self.table_id, events=(), ts=time.time(), owner=self._bus.owner))
        return await self._follow_last(data, "seal")

    async def append(self, rows: Iterable[EventRow], games: tuple[GameEntry, ...] = ()) -> None:
        """The rows in one message (or, if too big for one, several that count only once the
        last is in), acknowledged by JetStream; Fenced if another process wrote to the table
        since this one read or wrote it last."""
        records = [EventRecord(seq=r.seq, match_no=r.match_no, data=r.data, seat=r.seat, cid=r.cid)
                   for r in rows]
        if not records:
            return
        parts = self._encode(records, time.time(), games=games)
        with metrics.EVENT_WRITE.time():  # acknowledged: written
            for n, data in enumerate(parts):
                if not await self._follow_last(data, str(n)):
                    raise Fenced(f"table {self.table_id}: another process wrote to its log")

    async def _follow_last(self, data: bytes, part: str) -> bool:
        """``data`` written right after ``last`` (which then moves to it); False: another
        process wrote to the table since. The message id makes a retry after a lost
        acknowledgement (a NATS node failing over) land once: JetStream answers the repeat
        with the first one's sequence. A refusal is looked into (``_own_last``): the table's
        last message may be this process's own, landed although its answer was lost."""
        for _ in range(FOLLOW_TRIES):
            headers: dict[str, str] = {Header.EXPECTED_LAST_SUBJECT_SEQUENCE: str(self.last),
                                       Header.MSG_ID: f"{self._bus.owner}:{self.table_id}:{self.last}:{part}"}

            async def publish() -> PubAck:
                return await self._bus.js_write.publish(subject(self.table_id), data, stream=EVENTS_STREAM,
                                                        headers=headers)
            try:
                ack = await retrying(publish, f"the log of table {self.table_id}", WRITE_WITHIN)
            except APIError as exc:
                if exc.err_code not in WRONG_LAST_SEQUENCE:
                    raise
                own = await self._own_last(data)
                if own is None:
                    return False
                landed, self.last = own
                if landed:
                    return True
                continue  # written after it
            self.last = ack.seq
            return True
        return False

    async def _own_last(self, data: bytes) -> tuple[bool, int] | None:
        """The table's last message, if this process wrote it: whether it is ``data``, and its
        stream sequence (None: another process's, or none). A NATS node's outage in make
        chaos left two such cases behind a refused append, each of which had stopped its table
        as if another process had written to it: the try whose answer was lost had landed and
        the retry, naming the sequence before it, was refused by a new stream leader that did
        not know its message id; or a copy of an earlier append, held in the stream's Raft
        group, landed late (a read skips such repeats)."""
        try:
            raw = await retrying(lambda: self._bus.js_read.get_msg(EVENTS_STREAM, subject=subject(self.table_id)),
                                 f"the end of the log of table {self.table_id}", WRITE_WITHIN)
        except NotFoundError:
            return None
        message = self._bus.decode(raw)
        if raw.seq is None or not isinstance(message, LoggedEvents) or message.owner != self._bus.owner:
            return None
        landed = raw.data == data
        log.warning("events of %s: the log ends with this process's %s (message %d): a refused append "
                    "is not another process's write", self.table_id,
                    "append, landed although its answer was lost" if landed else "earlier append, landed late",
                    raw.seq)
        return landed, raw.seq

    def _encode(self, records: list[EventRecord], now: float, more: bool = False,
                games: tuple[GameEntry, ...] = ()) -> list[bytes]:
        """``records`` as one message, or halves of it if it is too big (``more`` on every
        part but the last, ``games`` on the last)."""
        if len(records) <= EVENTS_PER_MESSAGE:
            try:
                return [p.encode(LoggedEvents(table_id=self.table_id, events=tuple(records),
                                              more=more, ts=now, owner=self._bus.owner,
                                              games=games))]
            except p.ProtocolError:
                if len(records) == 1:
                    raise  # one event bigger than a frame: the table cannot log it
        half = len(records) // 2
        return (self._encode(records[:half], now, True)
                + self._encode(records[half:], now, more, games))
