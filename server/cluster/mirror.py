"""A process's copy of a key-value bucket, kept by a watch (names, presence, the lobby's
table directory), and the writes of a bucket's single writer (``BucketWriter``).

Every value is decoded as the one bus message its bucket holds and checked like anything
from the bus: a malformed value, or one its subclass refuses (its reason is logged), is
counted in ``bus.dropped`` and dropped; it never reaches the copy.
"""
from __future__ import annotations

import asyncio
import logging
import time
from abc import ABC, abstractmethod
from typing import Any, ClassVar, TypeVar

from nats.js.kv import KeyValue

import protocol as p
from server.cluster import kvwatch
from server.cluster.bus import Bus, bucket
from server.cluster.tasks import cancel_and_wait
from server.cluster.kvscan import current_values

log = logging.getLogger(__name__)

Mirror = TypeVar("Mirror", bound="BucketMirror")

RETRY_AFTER = 0.5  # seconds between tries of a write the bus did not take


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
        try:
            await asyncio.wait_for(mirror.ready.wait(), 10.0)
        except BaseException:  # (its watch is not left running: the caller may open it again)
            await mirror.close()
            raise
        return mirror

    async def close(self) -> None:
        if self._task is not None:
            await cancel_and_wait(self._task)

    @abstractmethod
    def _keep(self, key: str, message: Any) -> str | None:
        """Take a value into the copy; or the reason it is refused."""

    def _forget(self, key: str) -> None:
        """A key was deleted."""

    async def _watch(self) -> None:
        # The initial values are read whole first (server/cluster/kvscan.py: the watch's own
        # end-of-values marker can come before them); the watch then sends each key's value
        # again (taken as it was: no news) and every change after, and comes back by itself
        # within seconds of a NATS fault (server/cluster/kvwatch.py).
        for entry in await current_values(self.kv):
            self._apply(entry)
        self.ready.set()
        subscription = await kvwatch.watch(self.kv, self._apply)
        try:
            await asyncio.get_running_loop().create_future()  # until closed
        finally:
            try:
                await subscription.unsubscribe()
            except Exception as exc:  # the connection is closing: the consumer goes with it
                log.debug("%s: watch not unsubscribed: %r", self.LABEL, exc)

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


class BucketWriter:
    """One writer's puts and deletes, in order, from one task, off the caller's path; a key
    written twice before its turn is written once (the last value), so what waits is bounded
    by the keys. A write the bus does not take is tried again every ``RETRY_AFTER`` seconds
    until it does (or a later one replaces it)."""

    LABEL: ClassVar[str] = "bucket"

    def __init__(self, kv: KeyValue) -> None:
        self.kv = kv
        self._pending: dict[str, bytes | None] = {}  # key -> value (None: delete)
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._stopped = False

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._run(), name=f"{self.LABEL}-write")

    def write(self, key: str, value: bytes | None) -> None:
        """``value`` None: delete the key."""
        self._pending.pop(key, None)  # to the end of the queue: after what it replaces
        self._pending[key] = value
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
        failing_since: float | None = None
        while not self._stopped:  # as Node._watch_loop: a cancel may come back as an error
            await self._wake.wait()
            self._wake.clear()
            while self._pending and not self._stopped:
                key = next(iter(self._pending))
                value = self._pending.pop(key)
                try:
                    if value is None:
                        await self.kv.delete(key)
                    else:
                        await self.kv.put(key, value)
                except Exception as exc:  # NATS is restarting: the connection comes back by itself
                    # Tried again, first in line, unless written again meanwhile: a dropped
                    # write left the lobby showing a table's or a player's old state until
                    # its next change
                    if key not in self._pending:
                        self._pending = {key: value, **self._pending}
                    if failing_since is None:
                        failing_since = time.monotonic()
                        log.warning("%s: cannot write %s yet: %r", self.LABEL, key, exc)
                    await asyncio.sleep(RETRY_AFTER)
                    continue
                if failing_since is not None:
                    log.warning("%s: writes got through after %.1f s", self.LABEL, time.monotonic() - failing_since)
                    failing_since = None
