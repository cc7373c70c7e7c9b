"""Name reservations shared by the cluster: the lobby host writes them to a key-value
bucket, every process keeps a copy from a watch (the SSH layer asks it at each key offered,
synchronously). A malformed entry is logged and ignored."""
from __future__ import annotations

import asyncio
import logging
from typing import Any, Iterable

from nats.js.api import KeyValueConfig, StorageType
from nats.js.errors import BucketNotFoundError, NotFoundError
from nats.js.kv import KeyValue

import protocol as p
from protocol.bus import NameReservation
from server.cluster.bus import NAMES_BUCKET, Bus
from server.store import Reservation

log = logging.getLogger(__name__)


def _key(name_key: str) -> str:
    return name_key.encode().hex()  # KV keys allow few characters; names have accents


async def names_bucket(bus: Bus) -> KeyValue:
    try:
        return await bus.js.key_value(NAMES_BUCKET)
    except (BucketNotFoundError, NotFoundError):
        pass
    return await bus.js.create_key_value(config=KeyValueConfig(
        bucket=NAMES_BUCKET, history=1, storage=StorageType.FILE, replicas=bus.options.replicas))


class NameMirror:
    """This process's copy of the reservations (name key -> fingerprint)."""

    def __init__(self, bus: Bus, kv: KeyValue) -> None:
        self._bus = bus
        self._kv = kv
        self._names: dict[str, str] = {}
        self._task: asyncio.Task[None] | None = None
        self.ready = asyncio.Event()  # the initial values are in

    @classmethod
    async def open(cls, bus: Bus) -> "NameMirror":
        mirror = cls(bus, await names_bucket(bus))
        mirror._task = asyncio.get_running_loop().create_task(mirror._watch(), name="names-watch")
        await asyncio.wait_for(mirror.ready.wait(), 10.0)
        return mirror

    def get(self, name_key: str) -> str | None:
        return self._names.get(name_key)

    def items(self) -> list[tuple[str, str]]:
        return list(self._names.items())

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)

    async def _watch(self) -> None:
        watcher = await self._kv.watchall()
        async for entry in watcher:
            if entry is None:  # the end of the initial values
                self.ready.set()
                continue
            self._apply(entry)

    def _apply(self, entry: Any) -> None:
        if entry.value is None or entry.operation in ("DEL", "PURGE"):
            return
        try:
            message = p.decode(entry.value, {NameReservation.TYPE: NameReservation})
        except p.ProtocolError as exc:
            self._bus.dropped += 1
            log.warning("names: bad entry %.40s: %s", entry.key, exc)
            return
        assert isinstance(message, NameReservation)
        if _key(message.name_key) != entry.key:
            self._bus.dropped += 1
            log.warning("names: entry %.40s names another key", entry.key)
            return
        self._names[message.name_key] = message.fingerprint

    async def publish(self, reservations: Iterable[Reservation]) -> None:
        """Write reservations to the bucket (the host: at start, and each new one)."""
        for r in reservations:
            value = p.encode(NameReservation(name_key=r.name_key[:64], name=r.name[:p.NAME_MAX],
                                             fingerprint=r.fingerprint[:128]))
            await self._kv.put(_key(r.name_key[:64]), value)
