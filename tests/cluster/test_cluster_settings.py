"""Settings that used to do nothing silently on a running cluster: ``--replicas`` and
``--lease-ttl`` given to a later process change the cluster's (server/cluster/copies.py,
lease.py); a process started without them adopts what the cluster has."""
from __future__ import annotations

import pytest

from server.cluster.bus import LEASE_BUCKET, Bus, BusOptions
from server.cluster.copies import keep_copies
from server.cluster.eventlog import events_stream
from server.cluster.lease import Leases, lease_bucket
from server.cluster.natsd import NatsServer

pytestmark = pytest.mark.e2e


async def test_replicas_given_later_change_every_stream_and_the_others_adopt_them(
        nats_cluster: list[NatsServer]) -> None:
    first = await Bus.connect(nats_cluster[0].url, BusOptions(), owner="first")
    asking = await Bus.connect(nats_cluster[1].url, BusOptions(replicas=3, asked=frozenset({"replicas"})),
                               owner="asking")
    later = await Bus.connect(nats_cluster[2].url, BusOptions(), owner="later")
    try:
        await Leases.open(first)
        await events_stream(first)
        assert set((await keep_copies(first)).values()) == {1}
        copies = await keep_copies(asking)
        assert {f"KV_{LEASE_BUCKET}", "TRUCO_EVENTS"} <= set(copies) and set(copies.values()) == {3}
        info = await first.js.stream_info("TRUCO_EVENTS")
        assert info.config.num_replicas == 3
        assert set((await keep_copies(later)).values()) == {3}
        assert later.options.replicas == 3  # what it creates from now on has three copies too
    finally:
        for bus in (first, asking, later):
            await bus.close()


async def test_a_lease_ttl_given_later_changes_the_clusters_and_the_others_adopt_it(
        nats_server: NatsServer) -> None:
    first = await Bus.connect(nats_server.url, BusOptions(lease_ttl=6.0, renew_every=2.0), owner="first")
    asking = await Bus.connect(nats_server.url, BusOptions(lease_ttl=2.0, renew_every=2 / 3,
                                                           asked=frozenset({"lease_ttl"})), owner="asking")
    later = await Bus.connect(nats_server.url, BusOptions(lease_ttl=6.0, renew_every=2.0), owner="later")
    try:
        await lease_bucket(first)
        kv = await lease_bucket(asking)
        assert (await kv.status()).ttl == pytest.approx(2.0)
        assert asking.options.lease_ttl == pytest.approx(2.0)
        await lease_bucket(later)
        assert later.options.lease_ttl == pytest.approx(2.0) and later.options.renew_every == pytest.approx(2 / 3)
    finally:
        for bus in (first, asking, later):
            await bus.close()
