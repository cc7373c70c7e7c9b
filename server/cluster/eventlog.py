"""A table's event log in a JetStream stream (cluster mode's counterpart of SQLite's events).

Every table has a subject ``truco.events.<table id>`` in one stream; each event is a
``protocol.bus.LoggedEvent``. ``append`` returns once JetStream acknowledged every event
(the acknowledgement is the log write: the table actor sends no update before it), and each
publish names the stream sequence of the table's previous event, so a process that lost its
lease and did not notice yet cannot add to the log after the new owner did (fencing).
"""
from __future__ import annotations

import logging
import time
from typing import Any, Iterable

from nats.js.api import AckPolicy, ConsumerConfig, DeliverPolicy, Header, StorageType, StreamConfig
from nats.js.errors import APIError, NotFoundError

import protocol as p
from protocol.bus import LoggedEvent
from server.cluster.bus import EVENTS_STREAM, EVENTS_SUBJECT, Bus
from server.store import EventRow

log = logging.getLogger(__name__)

WRONG_LAST_SEQUENCE = (10071, 10164)  # JetStream's error codes for a failed expected sequence
READ_BATCH = 256


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

    async def read(self) -> list[EventRow]:
        """Every valid event of the table, oldest first; a message that is not one (foreign
        or malformed) is logged and skipped. Sets ``last`` for the appends that follow."""
        js = self._bus.js
        try:
            newest = await js.get_last_msg(EVENTS_STREAM, subject(self.table_id))
        except NotFoundError:
            self.last = 0
            return []
        rows: list[EventRow] = []
        sub = await js.pull_subscribe(
            subject(self.table_id), stream=EVENTS_STREAM,
            config=ConsumerConfig(ack_policy=AckPolicy.NONE, deliver_policy=DeliverPolicy.ALL,
                                  inactive_threshold=30.0),
        )
        try:
            seen = 0
            while seen < newest.seq:
                for msg in await sub.fetch(READ_BATCH, timeout=5.0):
                    seen = msg.metadata.sequence.stream
                    row = self._row(self._bus.decode(msg), seen)
                    if row is not None:
                        rows.append(row)
        finally:
            await sub.unsubscribe()
        self.last = newest.seq
        return rows

    def _row(self, message: Any, stream_seq: int) -> EventRow | None:
        if not isinstance(message, LoggedEvent) or message.table_id != self.table_id:
            if message is not None:
                self._bus.dropped += 1
                log.warning("events of %s: message %d is not this table's event: skipped",
                            self.table_id, stream_seq)
            return None
        return EventRow(seq=message.seq, match_no=message.match_no, data=message.data,
                        seat=message.seat, cid=message.cid, ts=message.ts)

    async def append(self, rows: Iterable[EventRow]) -> None:
        """Every row acknowledged by JetStream, in order; Fenced if another process wrote
        to the table since this one's last append."""
        now = time.time()
        for row in rows:
            data = p.encode(LoggedEvent(table_id=self.table_id, seq=row.seq, match_no=row.match_no,
                                        data=row.data, seat=row.seat, cid=row.cid, ts=now,
                                        owner=self._bus.owner))
            headers = {Header.EXPECTED_LAST_SUBJECT_SEQUENCE: str(self.last)}
            try:
                ack = await self._bus.js.publish(subject(self.table_id), data, stream=EVENTS_STREAM,
                                                 headers=headers)
            except APIError as exc:
                if exc.err_code in WRONG_LAST_SEQUENCE:
                    raise Fenced(f"table {self.table_id}: another process wrote to its log") from exc
                raise
            self.last = ack.seq

