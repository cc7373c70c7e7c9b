"""What syncing every JetStream write costs (issue 33): an event is on the disk before any
player sees it only if the nats-server syncs before acknowledging (``sync_interval: always``).

A local nats-server (one node, R1, as `--workers` runs it; then three routed nodes with R3)
with and without ``sync_always``; TABLES tables append through ``TableLog.append`` (the
owner's real path: one message per append, the expected-sequence fence, a message id) one
action's events at a time (EVENTS per append) as fast as acknowledgements come back, for
``seconds``. Printed per setup: appends (actions) per second over all tables, and the
append latency median and p99 (what each action waits before its players see it).
Part of `make bench` (tests/bench/run.py). Run: `python tests/bench/sync_bench.py [--seconds 5]`.
"""
from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))  # run as a script: see codec_bench.py

from server.cluster.bus import Bus, BusOptions  # noqa: E402
from server.cluster.eventlog import TableLog, events_stream  # noqa: E402
from server.cluster.natsd import NatsServer  # noqa: E402
from server.store import EventRow  # noqa: E402
from tests.ports import free_port  # noqa: E402

TABLES = 20
EVENTS = 2  # an action and what it causes (a card played, the next turn)


async def _servers(root: Path, nodes: int, sync: bool) -> list[NatsServer]:
    ports = [free_port() for _ in range(2 * nodes)]
    routes = ",".join(f"nats://127.0.0.1:{port}" for port in ports[nodes:])
    servers = [NatsServer(root / f"n{i}", port=ports[i], sync_always=sync,
                          args=() if nodes == 1 else ("--cluster", f"nats://127.0.0.1:{ports[nodes + i]}",
                                                      "--cluster_name", "bench", "--routes", routes))
               for i in range(nodes)]
    await asyncio.gather(*(s.start() for s in servers))
    return servers


async def _measure(url: str, replicas: int, seconds: float) -> dict[str, float]:
    bus = await Bus.connect(url, BusOptions(replicas=replicas), owner="bench")
    try:
        deadline = time.monotonic() + 30
        while True:  # a cluster takes a moment to elect JetStream's leader
            try:
                await events_stream(bus)
                break
            except Exception:
                if time.monotonic() > deadline:
                    raise
                await asyncio.sleep(0.2)
        latencies: list[float] = []
        stop = time.monotonic() + seconds

        async def table(n: int) -> None:
            log = TableLog(bus, f"bench{n}")
            seq = 0
            while time.monotonic() < stop:
                rows = [EventRow(seq=seq + i, match_no=1, data={"type": "note", "n": seq + i}, seat=0, cid=seq)
                        for i in range(1, EVENTS + 1)]
                started = time.perf_counter()
                await log.append(rows)
                latencies.append(time.perf_counter() - started)
                seq += EVENTS

        began = time.monotonic()
        await asyncio.gather(*(table(n) for n in range(TABLES)))
        elapsed = time.monotonic() - began
    finally:
        await bus.close()
    latencies.sort()
    return {"appends_per_s": len(latencies) / elapsed,
            "append_median_ms": statistics.median(latencies) * 1000,
            "append_p99_ms": latencies[int(len(latencies) * 0.99)] * 1000}


async def main_async(seconds: float) -> dict[str, dict[str, float]]:
    results: dict[str, dict[str, float]] = {}
    for nodes in (1, 3):
        for sync in (False, True):
            with tempfile.TemporaryDirectory(prefix="truco-sync-") as tmp:
                servers = await _servers(Path(tmp), nodes, sync)
                try:
                    figures = await _measure(servers[0].url, nodes, seconds)
                finally:
                    await asyncio.gather(*(s.stop() for s in servers))
            results[f"{nodes}_node{'s' if nodes > 1 else ''}_{'sync_always' if sync else 'default'}"] = figures
    return results


def run(seconds: float = 5.0) -> dict[str, dict[str, float]]:
    return asyncio.run(main_async(seconds))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=5.0)
    for name, figures in run(parser.parse_args().seconds).items():
        print(f"{name:24s} " + ", ".join(f"{k} {v:.1f}" for k, v in figures.items()))
