"""A real NATS cluster of three servers (routes on loopback, JetStream) and three processes,
each attached to a different server: the lobby host's frames and a table owner's reach a
session in order (no table update before the ``Seated`` that opens the table, none after
the one that takes the player back to the lobby), and none had to be given up on (the
stamps agree: server/cluster/order.py). The players are programs on the subsystem."""
from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

import protocol as p
from protocol.client import Client
from server.cluster.natsd import NatsServer
from tests.cluster.procs import Proc, start
from tests.e2e import programs

pytestmark = pytest.mark.e2e


async def _until_seated(client: Client, table_id: str | None) -> None:
    """Read up to the ``Seated`` for ``table_id``: no update of that table before it on the way in.
    On the way out (``table_id`` None) an update of the table being left may come first: its
    owner made it before it knew of the move, and NATS keeps no order between the host's and
    the owner's messages (none may come after: ``_no_update_of``)."""
    while True:
        event = await client.receive(15)
        if isinstance(event, p.Seated) and event.table_id == table_id:
            return
        if isinstance(event, p.TableUpdate) and table_id is not None:
            assert event.table_id != table_id, f"{event.table_id} before Seated"


async def _no_update_of(client: Client, table_id: str, seconds: float) -> None:
    try:
        async with asyncio.timeout(seconds):
            while True:
                event = await client.receive()
                assert not (isinstance(event, p.TableUpdate) and event.table_id == table_id), "after leaving"
    except TimeoutError:
        pass


async def test_frames_from_the_host_and_a_tables_owner_stay_in_order_across_nats_servers(
        tmp_path: Path, nats_cluster: list[NatsServer]) -> None:
    procs: list[Proc] = []
    clients: list[Client] = []
    try:
        procs.append(await start(tmp_path, nats_cluster[0].url))  # the host, on the first server
        assert procs[0].is_host
        procs += [await start(tmp_path, server.url) for server in nats_cluster[1:]]
        _, p2, p3 = procs
        ana, = await programs.connect(p2.port, "ana")  # the table runs on her process
        beto, eve = await programs.connect(p3.port, "beto", "eve")
        clients = [ana, beto, eve]
        table_id = await programs.table_of(ana, 2, options={"target": 15, "match_games": 1})
        await beto.send(p.JoinTable(table_id=table_id))
        await _until_seated(beto, table_id)
        first = await programs.update(beto, programs.dealt, peek=True)

        def hand_three(u: p.TableUpdate) -> bool:
            return u.view.deal_no > first.view.deal_no + 1

        playing = asyncio.gather(programs.play(ana, table_id, hand_three, seed=1, timeout=120),
                                 programs.play(beto, table_id, hand_three, seed=2, timeout=120))
        try:
            for _ in range(6):  # eve watches, leaves, watches again while the table plays
                await eve.send(p.WatchTable(table_id=table_id))
                await _until_seated(eve, table_id)
                await programs.update(eve, lambda u: u.table_id == table_id, 15)
                await eve.send(p.LeaveTable(table_id=table_id))
                await _until_seated(eve, None)
                await _no_update_of(eve, table_id, 0.4)
        finally:
            await playing
        assert not any("passed on" in line or "Traceback" in line for proc in procs for line in proc.lines)
    finally:
        await programs.close_all(clients)
        await asyncio.gather(*(proc.stop() for proc in procs))
