"""A lease stream left with no leader while the NATS cluster answers is made again
(server/cluster/lease_repair.py), once, and the leases work again.

The stuck state is made as it is seen after a power cut of every node: the cluster's meta
leader answers and reports the lease stream leaderless. Here five nodes, two of the three
holding the lease stream killed: the meta group keeps its majority (3 of 5), the stream has
lost its own (1 of 3)."""
from __future__ import annotations

import asyncio
import time
from pathlib import Path

from server.cluster.bus import Bus, BusOptions
from server.cluster.lease import Leases
from server.cluster.lease_repair import LEASE_STREAM, LeaseRepair
from tests.cluster.procs import start_nats_cluster

OPTIONS = BusOptions(lease_ttl=6.0, renew_every=0.3, replicas=3)


async def test_a_lease_stream_stuck_without_a_leader_is_made_again_once(tmp_path: Path) -> None:
    servers = await start_nats_cluster(tmp_path, nodes=5)
    buses: list[Bus] = []
    try:
        buses = [await Bus.connect([s.url for s in servers], OPTIONS, owner=f"proc-{n}") for n in range(2)]
        leases = await Leases.open(buses[0])
        assert await leases.claim("lobby") is not None
        before = await buses[0].js.stream_info(LEASE_STREAM)
        assert before.cluster is not None and before.cluster.leader
        peers = [before.cluster.leader, *(r.name for r in before.cluster.replicas or [])]
        for server in [s for s in servers if s.name in peers[:2]]:
            assert server.process is not None
            server.process.kill()
            await server.process.wait()

        # Two processes look at once, and decide at once: one of them makes the stream again.
        # A third that waits longer does nothing.
        repairers = [LeaseRepair(buses[0], after=1.0), LeaseRepair(buses[1], after=1.0)]
        waiting = LeaseRepair(buses[1], after=3600.0)
        deadline = time.monotonic() + 60
        while not any(r.repairs for r in repairers):
            assert time.monotonic() < deadline, "the stuck lease stream was not made again"
            await asyncio.gather(*(r.check() for r in [*repairers, waiting]))
            await asyncio.sleep(0.05)
        for _ in range(3):  # and nobody makes the new one again
            await asyncio.gather(*(r.check() for r in [*repairers, waiting]))
        assert [r.repairs for r in repairers] in ([1, 0], [0, 1]) and waiting.repairs == 0

        after = await buses[0].js.stream_info(LEASE_STREAM)
        assert str(after.created) != str(before.created)  # a new stream, on the live nodes
        assert after.cluster is not None and after.cluster.leader
        # Every lease was void: another process may claim it, and the old holder then learns
        # that it lost it
        assert await (await Leases.open(buses[1])).claim("lobby") is not None
        assert not await leases.renew(leases.held["lobby"])
    finally:
        await asyncio.gather(*(bus.close() for bus in buses))
        await asyncio.gather(*(server.stop() for server in servers))
