"""Cluster failover benchmark: kill -9 the lobby host while its tables play, how soon do they
play again from another process, and is any acknowledged event lost?

A nats-server (the pinned wheel's) and three ``truco-ssh serve --nats`` processes on
127.0.0.1; the host runs bot-only tables (``--demo-bot-tables``, bots moving every 50 ms).
Each round: read every table's stream, SIGKILL the host, and measure

- ``seconds_to_play``: from the kill until every table's stream has a new event written by
  another process (the lease TTL, ``--lease-ttl``, is most of it);
- ``events_lost``: events the dead host had acknowledged (in the stream when it died) that the
  new host did not restore (the new host logs the sequence number it restored each table at);
- ``digest_mismatches``: restored tables whose state differs from our own replay of the stream.

A new process replaces the killed one before the next round. Run:
``python tests/bench/cluster_bench.py [--rounds 3] [--tables 2] [--lease-ttl 1.5]``.
"""
from __future__ import annotations

import argparse
import asyncio
import json
import signal
import statistics
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1]))  # run as a script: the checkout's packages

from server.cluster.bus import Bus  # noqa: E402
from server.cluster.jsstore import JetStreamStore  # noqa: E402
from server.cluster.names import NameMirror  # noqa: E402
from server.cluster.natsd import NatsServer  # noqa: E402
from tests.cluster import procs  # noqa: E402


async def _writers(bus: Bus, table_id: str, after: int) -> set[str]:
    from nats.js.errors import NotFoundError

    from protocol.bus import LoggedEvents, decode_bus
    from server.cluster.bus import EVENTS_STREAM
    from server.cluster.eventlog import subject

    try:
        msg = await bus.js.get_last_msg(EVENTS_STREAM, subject(table_id))
    except NotFoundError:
        return set()
    event = decode_bus(msg.data)
    if not isinstance(event, LoggedEvents) or not event.events:
        return set()
    return {event.owner} if event.events[-1].seq > after else set()


async def run_async(rounds: int, tables: int, lease_ttl: float) -> dict[str, object]:
    procs.LEASE_TTL = lease_ttl
    tmp = Path(tempfile.mkdtemp(prefix="cluster-bench-"))
    nats = NatsServer(tmp / "js")
    await nats.start()
    options = ("--demo-bot-tables", str(tables))
    cluster: list[procs.Proc] = []
    bus = await Bus.connect(nats.url, owner="bench-reader")
    names = await NameMirror.open(bus)
    store = JetStreamStore(bus, names)
    await store.open()
    took: list[float] = []
    lost = mismatches = 0
    try:
        cluster.append(await procs.start(tmp, nats.url, *options))
        cluster += [await procs.start(tmp, nats.url, *options) for _ in range(2)]
        table_ids: list[str] = []
        for _ in range(200):
            table_ids = [r.table_id for r in await store.table_index()]
            if len(table_ids) >= tables:
                break
            await asyncio.sleep(0.05)
        for _ in range(rounds):
            await asyncio.sleep(1.0)  # the tables play a while
            host = next(p for p in cluster if p.is_host)
            await host.stop(signal.SIGKILL)
            killed = time.monotonic()
            cluster.remove(host)
            acked = await procs.logged_state(nats.url)  # what was in the streams when it died
            waiting = set(table_ids)
            while waiting and time.monotonic() - killed < 60:
                for table_id in list(waiting):
                    writers = await _writers(bus, table_id, acked.get(table_id, (0, 0, ""))[1])
                    if writers - {host.owner}:
                        waiting.discard(table_id)
                await asyncio.sleep(0.02)
            if waiting:
                raise RuntimeError(f"tables {sorted(waiting)} did not play again within 60 s")
            took.append(time.monotonic() - killed)
            new_host = next(p for p in cluster if p.is_host)
            restored = {m.group(1): (int(m.group(2)), int(m.group(3)), m.group(4))
                        for m in new_host.saw(procs.RESTORED)}
            for table_id, (match, seq, digest) in acked.items():
                got = restored.get(table_id)
                lost += max(0, seq - (got[1] if got else 0))
                mismatches += got is None or got != (match, seq, digest)
            new_host.lines[:] = [line for line in new_host.lines if procs.RESTORED.search(line) is None]
            cluster.append(await procs.start(tmp, nats.url, *options))
    finally:
        await asyncio.gather(*(p.stop() for p in cluster))
        await names.close()
        await bus.close()
        await nats.stop()
    return {
        "rounds": rounds, "tables": tables, "lease_ttl_s": lease_ttl,
        "seconds_to_play_median": round(statistics.median(took), 2),
        "seconds_to_play_max": round(max(took), 2),
        "events_lost": lost, "digest_mismatches": mismatches,
    }


def run(rounds: int = 3, tables: int = 2, lease_ttl: float = 1.5) -> dict[str, object]:
    return asyncio.run(run_async(rounds, tables, lease_ttl))


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--tables", type=int, default=2)
    parser.add_argument("--lease-ttl", type=float, default=1.5)
    args = parser.parse_args()
    print(json.dumps(run(args.rounds, args.tables, args.lease_ttl), indent=2))
