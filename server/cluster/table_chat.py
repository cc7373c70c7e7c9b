"""Each table's latest chat lines in cluster mode: what SQLite's ``table_chat`` keeps for one
process, in the ``truco_chat`` bucket (a ``TableChatLog`` per table, under its id).

The table's owner writes it after the events of the append that carries the lines and
before it sends them (as the señas), so a table rebuilt on another process after its owner
died shows its players and spectators the same lines again. The owner is the table's only
writer while it holds the lease, so it keeps the value as last written and needs no read
first; a new owner reads it once when it rebuilds the table. A value that does not decode,
or names another table, is logged and skipped.
"""
from __future__ import annotations

import logging

from nats.js.errors import NotFoundError
from nats.js.kv import KeyValue

import protocol as p
from protocol.bus import ChatRecord, TableChatLog, decode_bus
from server.cluster.bus import Bus, SteadyKV, bucket
from server.store import CHAT_KEPT, ChatRow

log = logging.getLogger(__name__)

CHAT_BUCKET = "truco_chat"


class ChatBook:
    """The tables' latest chat lines on the bus (see the module's docstring)."""

    def __init__(self, bus: Bus) -> None:
        self._bus = bus
        self._kv: KeyValue | None = None
        self._kept: dict[str, TableChatLog] = {}  # each table's value as this process last wrote it

    async def open(self) -> None:
        self._kv = await bucket(self._bus, CHAT_BUCKET)

    def _bucket(self) -> KeyValue:
        if self._kv is None:
            raise RuntimeError("the store is not open")
        return self._kv

    def forget(self, table_id: str) -> None:
        self._kept.pop(table_id, None)

    def clear(self) -> None:
        self._kept.clear()

    async def load(self, table_id: str) -> list[ChatRow]:
        """The table's latest lines, oldest first (none: never written, or not readable)."""
        try:  # (through a NATS failover: a restore that gave up here would lose the table)
            entry = await SteadyKV(self._bucket()).get(table_id)
        except NotFoundError:
            return []
        message = None
        if entry.value:
            try:
                message = decode_bus(entry.value)
            except p.ProtocolError as exc:
                self._bus.dropped += 1
                log.warning("store: bad chat of table %.40s: %s", table_id, exc)
        if not isinstance(message, TableChatLog) or message.table_id != table_id:
            return []
        self._kept[table_id] = message
        return [ChatRow(r.n, r.sender, r.text, r.ts) for r in message.lines[-CHAT_KEPT:]]

    async def add(self, table_id: str, rows: list[ChatRow]) -> None:
        """The table's latest lines with these added (the oldest past ``CHAT_KEPT`` go)."""
        kept = self._kept.get(table_id) or TableChatLog(table_id=table_id)
        added = tuple(ChatRecord(n=r.n, sender=r.sender, text=r.text, ts=r.ts) for r in rows)
        value = TableChatLog(table_id=table_id, lines=(kept.lines + added)[-CHAT_KEPT:])
        await self._bucket().put(table_id, p.encode(value))
        self._kept[table_id] = value

    async def delete(self, table_id: str) -> None:
        self._kept.pop(table_id, None)
        try:
            await self._bucket().delete(table_id)
        except NotFoundError:
            pass
