"""One NATS node of three fails under a playing cluster (``--replicas 3``, the product's lease
TTL): killed with SIGKILL, or paused with SIGSTOP for longer than a lease lives. The node
chosen is the one leading the lease bucket's stream, so the leases ride out a leader
election. No serve process may stop, no player may be disconnected, and every table plays
on. The players are programs on the subsystem, each on a process of its own node."""
from __future__ import annotations

import asyncio
import os
import signal
import time
from pathlib import Path
from typing import AsyncIterator, Awaitable, Callable

import nats
import pytest

import protocol as p
from protocol.client import Client
from server.cluster.bus import LEASE_BUCKET
from server.cluster.natsd import NatsServer
from tests.cluster.procs import Proc, keep_logs, start
from tests.e2e import programs

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

LEASE_TTL = "6"  # the product's: the fault is about an election that takes about as long
PAUSE = 8.0  # seconds a node is stopped: longer than a lease lives
RESEND_AFTER = 3.0  # a player who hears nothing for this long presses again


async def _lease_leader(servers: list[NatsServer]) -> NatsServer:
    """The node that leads the lease bucket's stream now."""
    live = next(s for s in servers if s.process is not None and s.process.returncode is None)
    nc = await nats.connect(live.url)
    try:
        info = await nc.jetstream().stream_info(f"KV_{LEASE_BUCKET}")
    finally:
        await nc.close()
    assert info.cluster is not None and info.cluster.leader
    return next(s for s in servers if s.name == info.cluster.leader)


class Tables:
    """Two tables played to the end by programs; how long each player heard nothing."""

    def __init__(self) -> None:
        self.last_heard: dict[str, float] = {}
        self.longest_silence: dict[str, float] = {}
        self.deals: dict[str, int] = {}

    def heard(self, name: str, update: p.TableUpdate) -> bool:
        now = time.monotonic()
        if name in self.last_heard:
            self.longest_silence[name] = max(self.longest_silence.get(name, 0.0), now - self.last_heard[name])
        self.last_heard[name] = now
        self.deals[name] = update.view.deal_no
        return False

    async def played(self, names: list[str], deals: int, timeout: float = 60.0) -> None:
        """Until every player has seen ``deals`` more deals than now."""
        start = dict(self.deals)
        deadline = time.monotonic() + timeout
        while any(self.deals.get(n, 0) < start.get(n, 0) + deals for n in names):
            assert time.monotonic() < deadline, f"tables stalled: {self.deals} (from {start})"
            await asyncio.sleep(0.05)


async def _play_through(procs: list[Proc], fault: Callable[[], Awaitable[None]]) -> dict[str, float]:
    """Two tables, each with its players on two different processes, played while ``fault``
    happens; the longest silence each player met."""
    ana, = await programs.connect(procs[0].port, "ana")
    beto, carla = await programs.connect(procs[1].port, "beto", "carla")
    dani, = await programs.connect(procs[2].port, "dani")
    clients: list[Client] = [ana, beto, carla, dani]
    tables = Tables()
    try:
        first = await programs.table_of(ana, 2, options={"target": 30, "match_games": 2})
        second = await programs.table_of(carla, 2, options={"target": 30, "match_games": 2})
        await beto.send(p.JoinTable(table_id=first))
        await dani.send(p.JoinTable(table_id=second))
        seats = {"ana": (ana, first), "beto": (beto, first), "carla": (carla, second), "dani": (dani, second)}
        done = asyncio.Event()
        playing = [asyncio.ensure_future(programs.play(
            client, table, lambda u, n=name: tables.heard(n, u) or done.is_set(), seed=n,
            timeout=300, resend_after=RESEND_AFTER)) for n, (name, (client, table)) in enumerate(seats.items())]
        try:
            await tables.played(list(seats), 1)
            await fault()
            await tables.played(list(seats), 2)
        finally:
            done.set()
            results = await asyncio.gather(*playing, return_exceptions=True)
        for name, result in zip(seats, results):
            assert not isinstance(result, BaseException), f"{name}: {result!r}"
        for proc in procs:
            assert proc.process.returncode is None, "".join(proc.lines[-30:])
            stops = [line for line in proc.lines if "it stops" in line or "sessions end" in line]
            assert not stops, stops
        return tables.longest_silence
    finally:
        await programs.close_all(clients)


@pytest.fixture
async def three_procs(tmp_path: Path, nats_cluster: list[NatsServer]) -> AsyncIterator[list[Proc]]:
    urls = [s.url for s in nats_cluster]
    procs: list[Proc] = []
    try:
        for n in range(3):  # each first on its own node (the list rotated), the others to fail over to
            order = ",".join(urls[n:] + urls[:n])
            procs.append(await start(tmp_path, order, "--replicas", "3", "--lease-ttl", LEASE_TTL))
        assert procs[0].is_host
        yield procs
    finally:
        await asyncio.gather(*(proc.stop() for proc in procs))
        keep_logs(procs, tmp_path)


async def test_a_killed_nats_node_costs_no_session_and_stops_no_process(
        nats_cluster: list[NatsServer], three_procs: list[Proc]) -> None:
    async def kill_the_lease_leader() -> None:
        leader = await _lease_leader(nats_cluster)
        assert leader.process is not None
        leader.process.kill()
        await leader.process.wait()

    silences = await _play_through(three_procs, kill_the_lease_leader)
    print("longest silence per player (s):", {k: round(v, 1) for k, v in silences.items()})


async def test_a_nats_node_paused_longer_than_a_lease_costs_no_session(
        nats_cluster: list[NatsServer], three_procs: list[Proc]) -> None:
    async def pause_the_lease_leader() -> None:
        leader = await _lease_leader(nats_cluster)
        assert leader.process is not None
        os.kill(leader.process.pid, signal.SIGSTOP)
        try:
            await asyncio.sleep(PAUSE)  # the fault itself lasts this long
        finally:
            os.kill(leader.process.pid, signal.SIGCONT)

    silences = await _play_through(three_procs, pause_the_lease_leader)
    print("longest silence per player (s):", {k: round(v, 1) for k, v in silences.items()})
