"""Choosing seats (and so partners) before the game, through the hub as sessions do."""
from __future__ import annotations

import protocol as p
from server.lobby import Hub
from tests.server.test_hub import hub, join  # noqa: F401  (the fixture)


async def four_player_table(hub: Hub) -> tuple[object, str]:  # noqa: F811
    ana = await join(hub, "ana")
    ana.send(p.CreateTable(variant="argentino", players=4, options={}))
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
    ana.send(p.AddBot(table_id=table_id))  # the last seat: the game starts
    await ana.settle()
    ana.send(p.SwapSeats(table_id=table_id, a=0, b=1))
    await ana.settle()
    assert ana.of(p.Error)[-1].code == "playing"
