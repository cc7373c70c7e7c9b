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

import logging
from typing import Any, Callable

from nats.js.kv import KeyValue

import protocol as p
from protocol.bus import PresenceEntry
from server.cluster.bus import PRESENCE_BUCKET, Bus, presence_key
from server.cluster.mirror import BucketMirror, BucketWriter

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
        # Told of each change (key, entry; None: gone), as it is applied: the lobby's lists
        # of this process's sessions follow it (server/cluster/lobby_feed.py)
        self.changed: Callable[[str, PresenceEntry | None], None] | None = None

    def entries(self) -> list[PresenceEntry]:
        return list(self._entries.values())

    def items(self) -> list[tuple[str, PresenceEntry]]:
        return list(self._entries.items())

    def fronts(self) -> set[str]:
        """The front ends that have sessions online."""
        return {e.front for e in self._entries.values()}

    def forget_front(self, front: str) -> list[str]:
        """Drop the entries of a front end that is gone; their keys (for the host to delete)."""
        keys = [k for k, e in self._entries.items() if e.front == front]
        for key in keys:
            del self._entries[key]
            if self.changed is not None:
                self.changed(key, None)
        return keys

    def _forget(self, key: str) -> None:
        if self._entries.pop(key, None) is not None and self.changed is not None:
            self.changed(key, None)

    def _keep(self, key: str, message: Any) -> str | None:
        assert isinstance(message, PresenceEntry)
        if presence_key(message.front, message.conn_id) != key:
            return "it names another session"
        if key not in self._entries and len(self._entries) >= ENTRIES_MAX:
            return f"{ENTRIES_MAX} entries already"
        self._entries[key] = message
        if self.changed is not None:
            self.changed(key, message)
        return None


class PresenceWriter(BucketWriter):
    """A front end's writes of its sessions' entries (``BucketWriter``: in order, off the
    sessions' path, bounded by the sessions)."""

    LABEL = "presence"

    def put(self, entry: PresenceEntry) -> None:
        self.write(presence_key(entry.front, entry.conn_id), p.encode(entry))

    def delete(self, front: str, conn_id: int) -> None:
        self.write(presence_key(front, conn_id), None)
