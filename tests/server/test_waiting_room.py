"""The waiting room of a table with partners: its creator starts the game once every seat is
taken (bots count); whoever joins can choose a seat until then; the creator's leaving hands
the table to the next person round it. Driven through the hub as sessions drive it."""
from __future__ import annotations

import asyncio

import protocol as p
from server.lobby import Hub
from tests.server.test_hub import join


async def table_of(hub: Hub, players: int = 4) -> tuple[object, str]:  # noqa: F811
    ana = await join(hub, "ana")
    ana.send(p.CreateTable(variant="argentino", players=players, options={}, owner_starts=True))
    await ana.settle()
    return ana, ana.of(p.TableCreated)[0].table_id


async def test_a_full_table_with_partners_waits_for_its_creator_to_start(hub: Hub) -> None:  # noqa: F811
    ana, table_id = await table_of(hub)
    assert ana.of(p.TableUpdated)[-1].table.owner_starts
    beto = await join(hub, "beto")
    beto.send(p.JoinTable(table_id=table_id, seat=2))
    ana.send(p.StartTable(table_id=table_id))  # seats still free
    await beto.settle()
    await ana.settle()
    assert ana.of(p.Error)[-1].code == "not_full"
    ana.send(p.AddBot(table_id=table_id))
    ana.send(p.AddBot(table_id=table_id))
    await ana.settle()
    await beto.settle()
    table = ana.of(p.TableUpdated)[-1].table
    assert table.seats == ("ana", "Bot 1", "beto", "Bot 2") and table.status == "waiting"
    assert not beto.of(p.TableUpdate)  # full, and still nobody deals
    beto.send(p.StartTable(table_id=table_id))  # not his table
    await beto.settle()
    assert beto.of(p.Error)[-1].code == "not_owner_start"
    beto.send(p.SwapSeats(table_id=table_id, a=2, b=1))  # no free seat to move to
    await beto.settle()
    assert beto.of(p.Error)[-1].code == "only_free_seat"
    ana.send(p.SwapSeats(table_id=table_id, a=1, b=2))  # the creator moves beto and a bot
    await ana.settle()
    await beto.settle()
    assert beto.of(p.Seated)[-1] == p.Seated(table_id=table_id, seat=1)
    ana.send(p.StartTable(table_id=table_id))
    await ana.until(lambda c: c.of(p.TableUpdated)[-1].table.status == "playing")
    await beto.until(lambda c: bool(c.of(p.TableUpdate)))
    table = ana.of(p.TableUpdated)[-1].table
    assert table.status == "playing" and not table.owner_starts
    assert table.seats == ("ana", "beto", "Bot 1", "Bot 2")
    update = beto.of(p.TableUpdate)[-1]
    assert update.seat == 1 and [s.name for s in update.seats] == ["ana", "beto", "Bot 1", "Bot 2"]
    ana.send(p.StartTable(table_id=table_id))
    await ana.settle()
    assert ana.of(p.Error)[-1].code == "playing"


async def test_the_start_is_in_the_store_with_the_seats_it_started_with(hub: Hub) -> None:  # noqa: F811
    ana, table_id = await table_of(hub)
    ana.send(p.AddBot(table_id=table_id))
    ana.send(p.AddBot(table_id=table_id))
    ana.send(p.AddBot(table_id=table_id))
    await ana.settle()
    await hub.drain_writes()
    (record,) = await hub.store.open_tables()  # the waiting room and its seats: nothing dealt
    assert [s["name"] for s in record.seats] == ["ana", "Bot 1", "Bot 2", "Bot 3"] and record.events == []
    ana.send(p.SwapSeats(table_id=table_id, a=0, b=2))
    ana.send(p.StartTable(table_id=table_id))
    await ana.settle()
    for _ in range(50):  # the actor's first append (the deal) follows the seats' last change
        await hub.drain_writes()
        (record,) = await hub.store.open_tables()
        if record.events:
            break
        await asyncio.sleep(0.02)
    assert [s["name"] for s in record.seats] == ["Bot 2", "Bot 1", "ana", "Bot 3"]
    assert record.seed == hub.tables[table_id].actor.seed  # type: ignore[union-attr]  (the room's)
    assert record.events[0].seq == 1


async def test_tables_of_two_start_when_the_opponent_sits(hub: Hub) -> None:  # noqa: F811
    ana, table_id = await table_of(hub, players=2)
    assert not ana.of(p.TableUpdated)[-1].table.owner_starts  # no partner to choose
    carla = await join(hub, "carla")  # a program that asks for no waiting room: full is started
    carla.send(p.CreateTable(variant="argentino", players=4, options={}))
    await carla.settle()
    for _ in range(3):
        carla.send(p.AddBot(table_id=carla.of(p.TableCreated)[0].table_id))
    await carla.settle()
    assert carla.of(p.TableUpdated)[-1].table.status == "playing"
    beto = await join(hub, "beto")
    beto.send(p.JoinTable(table_id=table_id))
    await beto.settle()
    await ana.settle()
    assert ana.of(p.TableUpdated)[-1].table.status == "playing"
    ana.send(p.StartTable(table_id=table_id))
    await ana.settle()
    assert ana.of(p.Error)[-1].code == "playing"


async def test_the_creator_leaving_hands_the_waiting_room_to_the_next_person(hub: Hub) -> None:  # noqa: F811
    ana, table_id = await table_of(hub, players=6)
    beto = await join(hub, "beto")
    carla = await join(hub, "carla")
    carla.send(p.JoinTable(table_id=table_id, seat=4))
    ana.send(p.AddBot(table_id=table_id, seat=1))
    beto.send(p.JoinTable(table_id=table_id, seat=2))
    await carla.settle()
    await ana.settle()
    await beto.settle()
    ana.send(p.LeaveTable(table_id=table_id))
    await ana.settle()
    await beto.until(lambda c: c.of(p.TableUpdated)[-1].table.owner == "beto")
    table = beto.of(p.TableUpdated)[-1].table
    assert table.owner == "beto" and table.seats == (None, "Bot 1", "beto", None, "carla", None)
    assert table.owner_starts
    beto.link.close()  # the new owner's connection drops: carla is next
    await carla.until(lambda c: c.of(p.TableUpdated)[-1].table.owner == "carla")
    table = carla.of(p.TableUpdated)[-1].table
    assert table.owner == "carla" and table.seats == (None, "Bot 1", None, None, "carla", None)
    for seat in (0, 2, 3, 5):
        carla.send(p.AddBot(table_id=table_id, seat=seat))  # hers to fill now
    carla.send(p.StartTable(table_id=table_id))
    await carla.until(lambda c: c.of(p.TableUpdated)[-1].table.status == "playing" and bool(c.of(p.TableUpdate)))
    assert carla.of(p.TableUpdated)[-1].table.status == "playing"
    assert carla.of(p.TableUpdate)[-1].seat == 4


# ---------------------------------------------------------------- a restart in the waiting room


async def test_a_restart_in_the_waiting_room_keeps_the_seats_and_the_creator_starts_after(tmp_path) -> None:
    from tests.server.test_reconnect import start_hub, stop_hub

    path = tmp_path / "db.sqlite3"
    hub, store, task = await start_hub(path, seat_hold=60)
    ana = await join(hub, "ana", "SHA256:ana")
    ana.send(p.CreateTable(variant="argentino", players=4, options={}, owner_starts=True, private=True))
    await ana.settle()
    table_id, code = ana.of(p.TableCreated)[0].table_id, ana.of(p.TableCreated)[0].code
    beto = await join(hub, "beto", "SHA256:beto")
    beto.send(p.JoinByCode(code=code))
    guest = await join(hub, "gus")  # a guest: no key to come back with
    guest.send(p.JoinByCode(code=code))
    await guest.settle()
    ana.send(p.AddBot(table_id=table_id, level="hard"))
    ana.send(p.SwapSeats(table_id=table_id, a=1, b=2))  # beto across from ana
    await ana.settle()
    assert hub.tables[table_id].seats[2].name == "beto"  # type: ignore[union-attr]
    await stop_hub(hub, store, task)  # the server stops before the game starts

    hub, store, task = await start_hub(path, seat_hold=60)
    try:
        await asyncio.wait_for(hub.restored.wait(), 10)
        table = hub.tables[table_id]
        assert table.actor is None and table.owner_starts
        assert [o.name if o is not None else None for o in table.seats] == ["ana", None, "beto", "Bot 1"]
        assert table.seats[3].level == "hard"  # type: ignore[union-attr]
        ana = await join(hub, "ana", "SHA256:ana")  # her key: straight back to her seat
        await ana.settle()
        assert ana.of(p.Seated)[-1] == p.Seated(table_id=table_id, seat=0, code=code)
        assert ana.of(p.TableUpdated)[-1].table.status == "waiting"
        dani = await join(hub, "dani")
        dani.send(p.JoinByCode(code=code))  # the guest's seat is free again
        await dani.settle()
        assert dani.of(p.Seated)[-1].seat == 1
        ana.send(p.StartTable(table_id=table_id))  # beto is not back yet: his seat is held
        await ana.until(lambda c: bool(c.of(p.TableUpdate)))
        assert table.actor is not None
        update = ana.of(p.TableUpdate)[-1]
        assert [s.name for s in update.seats] == ["ana", "dani", "beto", "Bot 1"] and update.seats[2].away
        beto = await join(hub, "beto", "SHA256:beto")  # back, now at the running table
        await beto.until(lambda c: bool(c.of(p.TableUpdate)))
        assert beto.of(p.Seated)[-1].seat == 2
    finally:
        await stop_hub(hub, store, task)


async def until_gone(hub: Hub, table_id: str) -> None:
    while table_id in hub.tables:
        await asyncio.sleep(0.01)


async def test_a_waiting_room_nobody_comes_back_to_is_closed(tmp_path) -> None:
    from tests.server.test_reconnect import start_hub, stop_hub

    path = tmp_path / "db.sqlite3"
    hub, store, task = await start_hub(path, seat_hold=0.1)
    ana = await join(hub, "ana", "SHA256:ana")
    ana.send(p.CreateTable(variant="argentino", players=4, options={}, owner_starts=True))
    await ana.settle()
    table_id = ana.of(p.TableCreated)[0].table_id
    await stop_hub(hub, store, task)
    hub, store, task = await start_hub(path, seat_hold=0.1)
    try:
        await asyncio.wait_for(hub.restored.wait(), 10)
        assert table_id in hub.tables
        # Her hold runs out: nobody holds a seat, the table goes.
        await asyncio.wait_for(until_gone(hub, table_id), 15)
        await hub.drain_writes()
        assert [r.table_id for r in await store.open_tables()] == []
    finally:
        await stop_hub(hub, store, task)
