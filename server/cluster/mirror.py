"""A process's copy of a key-value bucket, kept by a watch (names, presence).

Every value is decoded as the one bus message its bucket holds and checked like anything
from the bus: a malformed value, or one its subclass refuses (its reason is logged), is
counted in ``bus.dropped`` and dropped; it never reaches the copy.
"""
from __future__ import annotations

import asyncio
import logging
from abc import ABC, abstractmethod
from typing import Any, ClassVar, TypeVar

from nats.js.kv import KeyValue

import protocol as p
from server.cluster.bus import Bus, bucket

log = logging.getLogger(__name__)

Mirror = TypeVar("Mirror", bound="BucketMirror")


class BucketMirror(ABC):
    """Subclasses name the bucket and its message, and say what a value means (``_keep``)
    and what a deleted key means (``_forget``)."""

    BUCKET: ClassVar[str]
    MESSAGE: ClassVar[type[p.Message]]
    LABEL: ClassVar[str]  # in the log lines

    def __init__(self, bus: Bus, kv: KeyValue) -> None:
        self._bus = bus
        self.kv = kv
        self._task: asyncio.Task[None] | None = None
        self.ready = asyncio.Event()  # the initial values are in

    @classmethod
    async def open(cls: type[Mirror], bus: Bus) -> Mirror:
        mirror = cls(bus, await bucket(bus, cls.BUCKET))
        mirror._task = asyncio.get_running_loop().create_task(mirror._watch(), name=f"{cls.LABEL}-watch")
        await asyncio.wait_for(mirror.ready.wait(), 10.0)
        return mirror

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)

    @abstractmethod
    def _keep(self, key: str, message: Any) -> str | None:
        """Take a value into the copy; or the reason it is refused."""

    def _forget(self, key: str) -> None:
        """A key was deleted."""

    async def _watch(self) -> None:
        watcher = await self.kv.watchall()
        async for entry in watcher:
            if entry is None:  # the end of the initial values
                self.ready.set()
                continue
            self._apply(entry)

    def _apply(self, entry: Any) -> None:
        if entry.value is None or entry.operation in ("DEL", "PURGE"):
            self._forget(entry.key)
            return
        try:
            message = p.decode(entry.value, {self.MESSAGE.TYPE: self.MESSAGE})
        except p.ProtocolError as exc:
            refusal: str | None = f"bad entry: {exc}"
        else:
            refusal = self._keep(entry.key, message)
        if refusal is not None:
            self._bus.dropped += 1
            log.warning("%s: entry %.40s dropped: %s", self.LABEL, entry.key, refusal)
