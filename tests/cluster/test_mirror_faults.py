"""A process's copies of the cluster's buckets (the lobby's tables, who is online, names,
moderation) follow the buckets again within seconds of a NATS fault: the watch behind a copy
is made again when its consumer is lost, from where it was, so a change written meanwhile is
neither missed nor applied twice. (Before, nats-py's own watch came back 10-20 s later: a
table opened after a nats-server restart reached the other processes' lobbies 15.7 s late,
and make chaos left new players looking at a table list that said no table was playing.)"""
from __future__ import annotations

import asyncio
import signal

import protocol as p
from protocol.bus import DirectoryEntry
from nats.js.errors import NoStreamResponseError

from server.cluster.bus import DIRECTORY_BUCKET, Bus, BusOptions, SteadyKV, bucket
from server.cluster.directory import DirectoryMirror, DirectoryWriter
from server.cluster.natsd import NatsServer
from server.cluster.kvwatch import HEARTBEAT

# Seconds a copy may take to follow again once the server is back: the watch notices its
# consumer is gone after two missed heartbeats and makes it again (nats-py's own watch: 10-20 s)
FOLLOWS_AGAIN_WITHIN = 4 * HEARTBEAT + 5.0


def _entry(table_id: str, status: str) -> bytes:
    return p.encode(DirectoryEntry(table=p.TableInfo(
        table_id=table_id, title="mesa", variant="argentino", owner="ana", seats=("ana", None), options={},
        status=status, bots=(False, False))))


async def test_a_copy_follows_its_bucket_again_soon_after_the_nats_server_restarts(nats_server: NatsServer) -> None:
    reader = await Bus.connect(nats_server.url, BusOptions(), owner="front-1")
    writer = await Bus.connect(nats_server.url, BusOptions(), owner="host-1")
    copy = await DirectoryMirror.open(reader)
    seen: list[tuple[str, str | None]] = []
    changed = asyncio.Event()

    def told(table_id: str, info: p.TableInfo | None) -> None:
        seen.append((table_id, info.status if info is not None else None))
        changed.set()

    copy.changed = told
    try:
        kv = await bucket(writer, DIRECTORY_BUCKET)
        await kv.put("t000001", _entry("t000001", "restoring"))
        await kv.put("t000002", _entry("t000002", "waiting"))
        async with asyncio.timeout(10):
            while len(seen) < 2:
                await changed.wait()
                changed.clear()
        assert nats_server.process is not None
        nats_server.process.send_signal(signal.SIGKILL)  # the copy's consumer dies with it
        await nats_server.process.wait()
        await nats_server.start()  # the same store: the bucket is as it was
        # Written as soon as the server answers, before the copy's watch is made again
        steady = SteadyKV(kv)  # (each write waits out the restart, as the cluster's own do)
        await steady.put("t000001", _entry("t000001", "playing"))
        await steady.delete("t000002")
        async with asyncio.timeout(FOLLOWS_AGAIN_WITHIN):
            while {t.table_id: t.status for t in copy.tables()} != {"t000001": "playing"}:
                await changed.wait()
                changed.clear()
        # Each change once, in order: nothing missed, nothing applied twice
        assert seen == [("t000001", "restoring"), ("t000002", "waiting"), ("t000001", "playing"), ("t000002", None)]
    finally:
        await copy.close()
        await reader.close()
        await writer.close()


class FlakyBucket:
    """A bucket that refuses its first ``failures`` writes (as JetStream does without a leader)."""

    def __init__(self, failures: int) -> None:
        self.failures = failures
        self.values: dict[str, bytes] = {}
        self.written = asyncio.Event()

    async def put(self, key: str, value: bytes) -> int:
        self._fail()
        self.values[key] = value
        self.written.set()
        return len(self.values)

    async def delete(self, key: str) -> bool:
        self._fail()
        self.values.pop(key, None)
        self.written.set()
        return True

    def _fail(self) -> None:
        if self.failures > 0:
            self.failures -= 1
            raise NoStreamResponseError()


async def test_a_write_the_bus_did_not_take_is_tried_again_until_it_is() -> None:
    """The lobby host's table directory written while JetStream cannot take it: written when
    it can (before, the write was logged and dropped, and every lobby showed the table's old
    state until its next change), in order, a key written again meanwhile with its last value."""
    kv = FlakyBucket(failures=3)
    lists = DirectoryWriter(kv)  # type: ignore[arg-type]
    lists.start()
    try:
        lists.write("t000001", _entry("t000001", "playing"))
        lists.write("t000002", _entry("t000002", "waiting"))
        lists.write("t000003", _entry("t000003", "waiting"))
        lists.write("t000002", None)  # (it closed before it was ever written)
        async with asyncio.timeout(10):
            while kv.values != {"t000001": _entry("t000001", "playing"), "t000003": _entry("t000003", "waiting")}:
                await kv.written.wait()
                kv.written.clear()
    finally:
        await lists.stop()
