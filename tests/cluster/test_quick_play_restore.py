"""A quick-play table waiting for people when its lobby host dies: the new host restores it
as a quick table, waits for people again, then bots take the free seats and it starts."""
from __future__ import annotations

import asyncio
import dataclasses

import protocol as p
from server.cluster.natsd import NatsServer
from server.config import ServerConfig
from server.lobby import Hub
from server.variants import validate_options, variant_infos
from tests.cluster.stores import open_store
from tests.server.test_hub import join
from tests.server.test_reattach import attach
from tests.server.test_reconnect import last_update, until_updates


async def _host(url: str, owner: str, fill_wait: float) -> tuple[Hub, object, object, asyncio.Task[None]]:
    bus, names, store = await open_store(url, owner)
    config = dataclasses.replace(ServerConfig(), quick_fill_wait=fill_wait)
    hub = Hub(config, variant_infos(), validate_options, store)  # type: ignore[arg-type]
    hub.expect_sessions_back(2.0)  # cluster mode: every waiting table is stored
    await hub.load()
    return hub, bus, names, asyncio.create_task(hub.run())


async def _stop(hub: Hub, bus: object, names: object, task: asyncio.Task[None]) -> None:
    task.cancel()  # the host dies: no goodbye to its tables
    await asyncio.gather(task, return_exceptions=True)
    await hub.drain_writes()
    await names.close()  # type: ignore[attr-defined]
    await bus.close()  # type: ignore[attr-defined]


async def test_a_quick_table_restored_by_a_new_host_is_filled_with_bots(nats_server: NatsServer) -> None:
    old = await _host(nats_server.url, "host-1", fill_wait=600.0)  # its wait never ends here
    ana = await join(old[0], "ana", "SHA256:ana")
    ana.send(p.QuickPlay(variant="argentino"))
    await ana.settle()
    table_id = ana.of(p.TableCreated)[0].table_id
    assert old[0].tables[table_id].quick and ana.of(p.Seated)[-1].seat == 0
    await old[0].drain_writes()  # the room reaches the store
    await _stop(*old)

    new = await _host(nats_server.url, "host-2", fill_wait=0.3)
    try:
        ana = await attach(new[0], 201, "ana", "SHA256:ana", table_id, 0)
        await asyncio.wait_for(new[0].restored.wait(), 10)
        room = new[0].tables[table_id]
        assert room.quick and not room.owner_starts and room.seats[1] is None  # waiting for people again
        await asyncio.wait_for(until_updates(ana), 10)  # then a bot sits and the game starts
        update = last_update(ana)
        assert [s.name for s in update.seats] == ["ana", "Bot 1"] and update.seats[1].bot
        assert update.seat == 0 and len(update.view.own_cards) == 3
    finally:
        await _stop(*new)


async def test_a_quick_table_reads_back_as_quick(nats_server: NatsServer) -> None:
    from tests.cluster.stores import table_record

    bus, names, store = await open_store(nats_server.url, "host-1")
    try:
        await store.create_table(dataclasses.replace(table_record("q1"), quick=True, owner_starts=False))
        await store.create_table(table_record("t1"))
        index = {r.table_id: r for r in await store.table_index()}
        assert (index["q1"].quick, index["q1"].owner_starts) == (True, False)
        assert index["t1"].quick is False
    finally:
        await store.close()
        await names.close()
        await bus.close()
