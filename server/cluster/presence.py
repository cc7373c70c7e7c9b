"""Who is online in the cluster, and where: one key-value entry per named session.

Each front end writes the entries of its own sessions (``PresenceWriter``: what the lobby
host tells it about them, ``PresenceEntry``) and deletes them when they end; every process
keeps a copy from a watch (``PresenceMirror``). A malformed entry is logged and dropped.

The entries live as long as their front end's lease (``bus.front_lease``), not by a TTL
that each front end would renew: a TTL would cost a write per session every few seconds
for ever, where the lease is one key per process that is renewed anyway (the host already
closes a dead front end's connections by it). When a front end's lease is gone, every
process forgets its entries and the lobby host deletes them (``Node._watch_loop``), within
``lease_ttl`` plus one check. An expiring TTL would also be silent: a KV watch is not told
when old values age out, so the copies would need a timer per entry anyway.
"""
from __future__ import annotations

import asyncio
import logging
from typing import Any

from nats.js.kv import KeyValue

import protocol as p
from protocol.bus import PresenceEntry
from server.cluster.bus import PRESENCE_BUCKET, Bus, presence_key
from server.cluster.mirror import BucketMirror

log = logging.getLogger(__name__)

ENTRIES_MAX = 200_000  # entries a copy keeps (a flood of foreign keys cannot grow it further)


class PresenceMirror(BucketMirror):
    """This process's copy of the bucket (key -> entry)."""

    # On file, as every bucket (``bus.bucket``): a memory bucket is gone when its NATS server
    # restarts, and the front ends' writes then failed until they restarted too.
    BUCKET = PRESENCE_BUCKET
    MESSAGE = PresenceEntry
    LABEL = "presence"

    def __init__(self, bus: Bus, kv: KeyValue) -> None:
        super().__init__(bus, kv)
        self._entries: dict[str, PresenceEntry] = {}

    def entries(self) -> list[PresenceEntry]:
        return list(self._entries.values())

    def fronts(self) -> set[str]:
        """The front ends that have sessions online."""
        return {e.front for e in self._entries.values()}

    def forget_front(self, front: str) -> list[str]:
        """Drop the entries of a front end that is gone; their keys (for the host to delete)."""
        keys = [k for k, e in self._entries.items() if e.front == front]
        for key in keys:
            del self._entries[key]
        return keys

    def _forget(self, key: str) -> None:
        self._entries.pop(key, None)

    def _keep(self, key: str, message: Any) -> str | None:
        assert isinstance(message, PresenceEntry)
        if presence_key(message.front, message.conn_id) != key:
            return "it names another session"
        if key not in self._entries and len(self._entries) >= ENTRIES_MAX:
            return f"{ENTRIES_MAX} entries already"
        self._entries[key] = message
        return None


class PresenceWriter:
    """A front end's writes of its sessions' entries, in order, from one task, off the
    sessions' path; a key written twice before its turn is written once (the last value), so
    what waits is bounded by the sessions."""

    def __init__(self, kv: KeyValue) -> None:
        self._kv = kv
        self._pending: dict[str, bytes | None] = {}  # key -> value (None: delete)
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._stopped = False

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._run(), name="presence-write")

    def put(self, entry: PresenceEntry) -> None:
        key = presence_key(entry.front, entry.conn_id)
        self._pending.pop(key, None)  # to the end of the queue: after what it replaces
        self._pending[key] = p.encode(entry)
        self._wake.set()

    def delete(self, front: str, conn_id: int) -> None:
        key = presence_key(front, conn_id)
        self._pending.pop(key, None)
        self._pending[key] = None
        self._wake.set()

    async def stop(self) -> None:
        """What is queued is written (a clean shutdown deletes its entries), then the task ends."""
        for _ in range(200):
            if not self._pending:
                break
            await asyncio.sleep(0.01)
        self._stopped = True
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)

    async def _run(self) -> None:
        while not self._stopped:  # as Node._watch_loop: a cancel may come back as an error
            await self._wake.wait()
            self._wake.clear()
            while self._pending:
                key = next(iter(self._pending))
                value = self._pending.pop(key)
                try:
                    if value is None:
                        await self._kv.delete(key)
                    else:
                        await self._kv.put(key, value)
                except Exception as exc:  # NATS is restarting: the connection comes back by itself
                    log.warning("presence: cannot write %s: %r", key, exc)
