"""The NATS server restarted under a running cluster (kill -9, then started again on the
same store, as after a crash or a power cut of a one-node NATS): a player who connects at
once (or, turned away while its lease is in doubt, once that lease is renewed)
is answered, although the lobby host's connection was not back yet when the player's
opening was sent (it is sent again until the host confirms it: server/cluster/held_input.py),
and the table they open reaches the lobby of a player on another process (whose copy of the
table directory follows again within seconds: server/cluster/kvwatch.py). Before, the new
player was never answered, and the table reached the other lobby 15.7 s late."""
from __future__ import annotations

import asyncio
import signal

import asyncssh
import pytest

import protocol as p
from protocol.client import Client
from server.cluster.bus import LEASE_BUCKET, Bus, BusOptions, bucket, front_lease
from server.cluster.natsd import NatsServer
from tests.cluster.procs import Proc
from tests.e2e import programs

pytestmark = pytest.mark.e2e

# Seconds the server stays down: every process notices, and they come back one by one, the
# lobby host not always first
DOWN_FOR = 1.0


async def test_a_player_arriving_just_after_the_nats_server_restarts_plays_and_is_seen(
        nats_server: NatsServer, cluster: list[Proc]) -> None:
    _host, p2, p3 = cluster
    ana, = await programs.connect(p2.port, "ana")
    beto, = await programs.connect(p3.port, "beto")
    clients = [ana, beto]
    try:
        await programs.table_of(ana, 2, options={"flor": False})
        await beto.wait_for(p.TableUpdated, 10)
        assert nats_server.process is not None
        nats_server.process.send_signal(signal.SIGKILL)
        await nats_server.process.wait()
        await asyncio.sleep(DOWN_FOR)  # (the fault: the server stays down a moment)
        await nats_server.start()
        dora = await _arrive(nats_server.url, p2, "dora")
        clients.append(dora)
        table_id = await programs.table_of(dora, 2, options={"flor": False})
        while (await beto.wait_for(p.TableUpdated, 10)).table.table_id != table_id:
            pass
        await beto.send(p.JoinTable(table_id=table_id))
        for client in (dora, beto):
            await programs.update(client, programs.dealt)
    finally:
        await programs.close_all(clients)


RENEWALS = 5  # of the process's lease, seen in the bucket, that a player tries again after


async def _arrive(url: str, proc: Proc, name: str) -> Client:
    """Connect as a person would, at once; told the server is reconnecting to its cluster
    (its lease in doubt), again after each renewal of the process's lease the bucket shows
    (the process hears its renewal answered a moment after the bucket has it: on a loaded
    machine the first try after it can still come too soon)."""
    try:
        return (await programs.connect(proc.port, name))[0]
    except asyncssh.DisconnectError as refused:
        assert "try again in a few seconds" in refused.reason
    bus = await Bus.connect(url, BusOptions(), owner="test-watcher")
    try:
        kv = await bucket(bus, LEASE_BUCKET)
        watcher = await kv.watch(front_lease(proc.owner))
        try:
            seen = await asyncio.wait_for(watcher.updates(), 10)  # as it is now
            for _ in range(RENEWALS):
                while (renewed := await asyncio.wait_for(watcher.updates(), 10)) is None or (
                        seen is not None and renewed.revision == seen.revision):
                    pass
                seen = renewed
                try:
                    return (await programs.connect(proc.port, name))[0]
                except asyncssh.DisconnectError as refused:
                    assert "try again in a few seconds" in refused.reason
        finally:
            await watcher.stop()
    finally:
        await bus.close()
    raise AssertionError(f"{name} was turned away through {RENEWALS} renewals of {proc.owner}'s lease")
