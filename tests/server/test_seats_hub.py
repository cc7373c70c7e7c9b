"""Choosing seats (and so partners) before the game, through the hub as sessions do."""
from __future__ import annotations

import protocol as p
from server.lobby import Hub
from tests.server.test_hub import join


async def four_player_table(hub: Hub) -> tuple[object, str]:  # noqa: F811
    ana = await join(hub, "ana")
    ana.send(p.CreateTable(variant="argentino", players=4, options={}, owner_starts=True))
    await ana.settle()
    return ana, ana.of(p.TableCreated)[0].table_id


async def test_a_player_picks_the_seat_of_his_partner_when_joining(hub: Hub) -> None:  # noqa: F811
    ana, table_id = await four_player_table(hub)
    beto = await join(hub, "beto")
    beto.send(p.JoinTable(table_id=table_id, seat=2))  # across from ana: her partner
    await beto.settle()
    await ana.settle()
    assert beto.of(p.Seated)[-1] == p.Seated(table_id=table_id, seat=2)
    assert ana.of(p.TableUpdated)[-1].table.seats == ("ana", None, "beto", None)


async def test_a_player_moves_to_a_free_seat_but_not_others(hub: Hub) -> None:  # noqa: F811
    ana, table_id = await four_player_table(hub)
    beto = await join(hub, "beto")
    beto.send(p.JoinTable(table_id=table_id))  # the first free seat: 1, ana's opponent
    await beto.settle()
    beto.send(p.SwapSeats(table_id=table_id, a=1, b=2))
    await beto.settle()
    await ana.settle()
    assert beto.of(p.Seated)[-1] == p.Seated(table_id=table_id, seat=2)
    assert ana.of(p.TableUpdated)[-1].table.seats == ("ana", None, "beto", None)
    beto.send(p.SwapSeats(table_id=table_id, a=0, b=1))  # ana's seat is not his to move
    beto.send(p.SwapSeats(table_id=table_id, a=2, b=0))  # nor to take
    await beto.settle()
    assert [e.code for e in beto.of(p.Error)] == ["only_free_seat", "only_free_seat"]
    assert ana.of(p.TableUpdated)[-1].table.seats == ("ana", None, "beto", None)


async def test_the_creator_swaps_any_two_seats_bots_included_until_the_game_starts(hub: Hub) -> None:  # noqa: F811
    ana, table_id = await four_player_table(hub)
    beto = await join(hub, "beto")
    beto.send(p.JoinTable(table_id=table_id))  # seat 1
    ana.send(p.AddBot(table_id=table_id, seat=2))
    await beto.settle()
    await ana.settle()
    ana.send(p.SwapSeats(table_id=table_id, a=1, b=2))  # beto to ana's side, the bot across
    await ana.settle()
    await beto.settle()
    table = ana.of(p.TableUpdated)[-1].table
    assert table.seats == ("ana", "Bot 1", "beto", None) and table.bots[:3] == (False, True, False)
    assert beto.of(p.Seated)[-1] == p.Seated(table_id=table_id, seat=2)
    ana.send(p.SwapSeats(table_id=table_id, a=0, b=3))  # herself to the free seat
    await ana.settle()
    assert ana.of(p.Seated)[-1] == p.Seated(table_id=table_id, seat=3)
    ana.send(p.SwapSeats(table_id=table_id, a=3, b=3))
    ana.send(p.SwapSeats(table_id=table_id, a=0, b=6))
    await ana.settle()
    assert [e.code for e in ana.of(p.Error)] == ["bad_seat", "bad_seat"]
    ana.send(p.AddBot(table_id=table_id))  # the last seat: a full waiting room...
    ana.send(p.SwapSeats(table_id=table_id, a=0, b=3))  # ...where seats still move
    await ana.settle()
    assert ana.of(p.Seated)[-1] == p.Seated(table_id=table_id, seat=0)
    ana.send(p.StartTable(table_id=table_id))  # the creator starts the game
    await ana.settle()
    ana.send(p.SwapSeats(table_id=table_id, a=0, b=1))
    await ana.settle()
    assert ana.of(p.Error)[-1].code == "playing"


# ---------------------------------------------------------------- quick play


async def test_quick_play_seats_you_at_the_table_closest_to_starting(hub: Hub) -> None:  # noqa: F811
    ana = await join(hub, "ana")
    beto = await join(hub, "beto")
    carla = await join(hub, "carla")
    ana.send(p.CreateTable(variant="argentino", players=6, options={}))  # 5 seats free
    beto.send(p.CreateTable(variant="argentino", players=4, options={}))  # 3 free: closer
    carla.send(p.CreateTable(variant="paulista", players=2, options={}))  # another game
    await ana.settle()
    await beto.settle()
    beto_table = beto.of(p.TableCreated)[0].table_id
    dani = await join(hub, "dani")
    dani.send(p.QuickPlay(variant="argentino"))
    await dani.settle()
    assert dani.of(p.Seated)[-1] == p.Seated(table_id=beto_table, seat=1)
    assert not dani.of(p.TableCreated)


async def test_quick_play_opens_a_table_that_bots_fill_after_the_wait(tmp_path) -> None:
    import asyncio
    import dataclasses

    from server.config import ServerConfig
    from server.store import Store
    from server.table import Pace
    from server.variants import validate_options, variant_infos

    store = Store(tmp_path / "db.sqlite3")
    await store.open()
    config = dataclasses.replace(ServerConfig(), quick_fill_wait=0.05)
    quick_hub = Hub(config, variant_infos(), validate_options, store, pace=Pace(bot_delay=5, hand_pause=5))
    await quick_hub.load()
    task = asyncio.create_task(quick_hub.run())
    try:
        ana = await join(quick_hub, "ana")
        ana.send(p.QuickPlay(variant="paulista"))
        await ana.settle()
        created = ana.of(p.TableCreated)[0]
        assert ana.of(p.Seated)[-1] == p.Seated(table_id=created.table_id, seat=0)
        table = ana.of(p.TableUpdated)[-1].table
        assert table.variant == "paulista" and not table.private and table.status == "waiting"
        # The wait is over: a bot takes the seat left, and it starts.
        await ana.until(lambda c: c.of(p.TableUpdated)[-1].table.status == "playing")
        table = ana.of(p.TableUpdated)[-1].table
        assert table.seats == ("ana", "Bot 1") and table.status == "playing"
        ana.send(p.QuickPlay(variant="no_such_game"))
        await ana.settle()
        assert ana.of(p.Error)[-1].code == "bad_table"
    finally:
        task.cancel()
        await quick_hub.stop_tables()
        await quick_hub.drain_writes()
        await store.close()


def test_the_quick_play_wait_is_a_server_option() -> None:
    from server.cli.main import build_parser, config_from_args

    assert config_from_args(build_parser().parse_args(["serve"])).quick_fill_wait == 20.0
    assert config_from_args(build_parser().parse_args(["serve", "--quick-fill-wait", "5"])).quick_fill_wait == 5.0
    assert config_from_args(build_parser().parse_args(["serve", "--quick-fill-wait", "-1"])).quick_fill_wait == 0.0


async def test_quick_play_for_four_finds_a_table_of_four_and_a_table_it_opens_fills_and_starts(tmp_path) -> None:
    import asyncio
    import dataclasses

    from server.config import ServerConfig
    from server.store import Store
    from server.table import Pace
    from server.variants import validate_options, variant_infos

    store = Store(tmp_path / "db.sqlite3")
    await store.open()
    config = dataclasses.replace(ServerConfig(), quick_fill_wait=0.3)
    quick_hub = Hub(config, variant_infos(), validate_options, store, pace=Pace(bot_delay=5, hand_pause=5))
    await quick_hub.load()
    task = asyncio.create_task(quick_hub.run())
    try:
        ana = await join(quick_hub, "ana")
        ana.send(p.CreateTable(variant="uruguayo", players=2, options={}))  # not the size asked
        beto = await join(quick_hub, "beto")
        beto.send(p.QuickPlay(variant="uruguayo", players=4))
        await beto.settle()
        created = beto.of(p.TableCreated)[0]
        table = beto.of(p.TableUpdated)[-1].table
        assert table.table_id == created.table_id and len(table.seats) == 4 and not table.owner_starts
        carla = await join(quick_hub, "carla")
        carla.send(p.QuickPlay(variant="uruguayo", players=4))  # beto's table: the one of four
        await carla.settle()
        assert carla.of(p.Seated)[-1] == p.Seated(table_id=created.table_id, seat=1)
        # The wait is over: bots take the two seats left, and it starts.
        await beto.until(lambda c: c.of(p.TableUpdated)[-1].table.status == "playing")
        table = beto.of(p.TableUpdated)[-1].table
        assert table.seats == ("beto", "carla", "Bot 1", "Bot 2") and table.status == "playing"
        carla.send(p.QuickPlay(variant="paulista", players=6))  # not a size of that game
        await carla.settle()
        assert carla.of(p.Error)[-1].code == "bad_table"
    finally:
        task.cancel()
        await quick_hub.stop_tables()
        await quick_hub.drain_writes()
        await store.close()
