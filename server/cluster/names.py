"""Name reservations shared by the cluster: the lobby host writes them to a key-value
bucket, every process keeps a copy from a watch (the SSH layer asks it at each key offered,
synchronously). A malformed entry is logged and ignored."""
from __future__ import annotations

from typing import Any, Iterable

from nats.js.kv import KeyValue

import protocol as p
from protocol.bus import NameReservation
from server.cluster.bus import NAMES_BUCKET, Bus
from server.cluster.mirror import BucketMirror
from server.store import Reservation


def _key(name_key: str) -> str:
    return name_key.encode().hex()  # KV keys allow few characters; names have accents


class NameMirror(BucketMirror):
    """This process's copy of the reservations (name key -> fingerprint)."""

    BUCKET = NAMES_BUCKET
    MESSAGE = NameReservation
    LABEL = "names"

    def __init__(self, bus: Bus, kv: KeyValue) -> None:
        super().__init__(bus, kv)
        self._names: dict[str, str] = {}

    def get(self, name_key: str) -> str | None:
        return self._names.get(name_key)

    def items(self) -> list[tuple[str, str]]:
        return list(self._names.items())

    def _keep(self, key: str, message: Any) -> str | None:
        assert isinstance(message, NameReservation)
        if _key(message.name_key) != key:
            return "it names another key"
        self._names[message.name_key] = message.fingerprint
        return None

    async def publish(self, reservations: Iterable[Reservation]) -> None:
        """Write reservations to the bucket (the host: at start, and each new one)."""
        for r in reservations:
            value = p.encode(NameReservation(name_key=r.name_key[:64], name=r.name[:p.NAME_MAX],
                                             fingerprint=r.fingerprint[:128]))
            await self.kv.put(_key(r.name_key[:64]), value)
