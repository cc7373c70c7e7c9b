"""Leavers (issue 34): leaving rated matches again and again makes a key wait before it may
play with other people; it is told at each leave what this one and the next one cost, tables
with bots stay open, and the waits learnt from the stats survive a reconnection."""
from __future__ import annotations

import asyncio
import time

import protocol as p
from server.config import ServerConfig
from server.lobby import Hub
from server.lobby.history import leaves
from server.lobby.leavers import WAITS, Leavers, wait_minutes
from server.store import Store
from server.table import Occupant
from server.variants import validate_options, variant_infos
from tests.server.test_hub import Client, join

SHORT = {"target": 15}


def test_the_wait_grows_with_each_leave_within_a_day() -> None:
    assert [wait_minutes(n) for n in range(1, 7)] == [0, WAITS[0], WAITS[1], WAITS[2], WAITS[2], WAITS[2]]


async def playing(client: Client, table_id: str) -> None:
    """Until ``client`` is shown the match at ``table_id`` (it began)."""
    async def shown() -> None:
        while not (client.of(p.TableUpdate) and client.of(p.TableUpdate)[-1].table_id == table_id):
            await client.settle()
            await asyncio.sleep(0.01)

    await asyncio.wait_for(shown(), 10)


async def a_match_between(creator: Client, joiner: Client) -> str:
    """A 1v1 the two play (no turn timer), once it began: its table."""
    creator.send(p.CreateTable(variant="argentino", players=2, options=SHORT, turn_timer=0))
    await creator.settle()
    table_id = creator.of(p.TableCreated)[-1].table_id
    joiner.send(p.JoinTable(table_id=table_id))
    await playing(creator, table_id)
    return table_id


async def rated_match_left(hub: Hub, ana: Client, other: str) -> p.Notice:
    """ana and a key holder play a rated 1v1; ana leaves it running; what she is told."""
    table_id = await a_match_between(ana, await join(hub, other, f"SHA256:{other}"))
    ana.send(p.LeaveTable(table_id=table_id))
    await ana.settle()
    return ana.of(p.Notice)[-1]


async def test_a_second_rated_match_left_in_a_day_means_a_wait_told_in_advance(hub: Hub) -> None:
    ana = await join(hub, "ana", "SHA256:ana")
    first = await rated_match_left(hub, ana, "beto")
    assert (first.code, first.text) == ("left_rated", f"0 {WAITS[0]}")  # no wait yet; the next one costs
    second = await rated_match_left(hub, ana, "carla")
    assert (second.code, second.text) == ("left_rated", f"{WAITS[0]} {WAITS[1]}")

    ana.send(p.QuickPlay(variant="argentino"))
    await ana.settle()
    refused = ana.of(p.Error)[-1]
    assert refused.code == "leaver_wait" and refused.reason == str(WAITS[0])

    dani = await join(hub, "dani", "SHA256:dani")  # a table where another person sits
    dani.send(p.CreateTable(variant="argentino", players=2, options=SHORT))
    await dani.settle()
    ana.send(p.JoinTable(table_id=dani.of(p.TableCreated)[-1].table_id))
    await ana.settle()
    assert ana.of(p.Error)[-1].code == "leaver_wait" and ana.of(p.Seated)[-1].table_id is None

    ana.send(p.CreateTable(variant="argentino", players=2, options=SHORT))  # with a bot: open
    await ana.settle()
    mine = ana.of(p.TableCreated)[-1].table_id
    ana.send(p.AddBot(table_id=mine))
    await playing(ana, mine)


async def test_a_match_with_a_bot_or_a_guest_is_not_rated_and_costs_no_wait(hub: Hub) -> None:
    ana = await join(hub, "ana", "SHA256:ana")
    for _ in range(3):
        guest = await join(hub, f"guest{_}")  # no key: the match is not rated
        table_id = await a_match_between(ana, guest)
        ana.send(p.LeaveTable(table_id=table_id))
        await ana.settle()
    assert not [n for n in ana.of(p.Notice) if n.code == "left_rated"]
    ana.send(p.QuickPlay(variant="argentino"))
    await ana.settle()
    assert not [e for e in ana.of(p.Error) if e.code == "leaver_wait"]


def test_leaves_from_before_are_learnt_from_the_stats_and_none_is_counted_twice() -> None:
    class Peer:
        fingerprint = "SHA256:x"

    class Asker:
        peer = Peer()

    leavers = Leavers()
    now = time.time()
    stats = {"recent": [  # as the store gives them: ..., abandoned, ..., rated, change, ended, table, match
        ("argentino", 2, "", 0, 1, 0, 0, 1, -1.0, int(now) - 60, "t1", 1),
        ("argentino", 2, "", 0, 1, 0, 0, 1, -1.0, int(now) - 60, "t2", 1),  # the same second: still two
        ("argentino", 2, "", 0, 1, 0, 0, 0, None, int(now) - 30, "t3", 1),  # not rated
        ("argentino", 2, "", 0, 0, 0, 0, 1, 1.0, int(now) - 20, "t4", 1),  # played to the end
        ("argentino", 2, "", 0, 1, 0, 0, 1, -1.0, int(now) - 90_000, "t5", 1),  # over a day ago
    ]}
    leavers.known("SHA256:x", leaves(stats))
    leavers.known("SHA256:x", leaves(stats))  # read again: not counted twice
    waiting = leavers.waiting(Asker())  # type: ignore[arg-type]
    assert WAITS[0] * 60 - 62 <= waiting <= WAITS[0] * 60 - 59  # two in the day, the last a minute ago

    class Actor:
        match_no, finished = 1, False

    class Table:  # t1 left while this lobby watched, then found in the stats once it ended
        table_id, actor = "t1", Actor()
        seats = [Occupant(name="x", fingerprint="SHA256:x", conn_id=1), Occupant(name="y", fingerprint="SHA256:y",
                                                                               conn_id=2)]

    other = Leavers()
    told = other.leaving(Table(), Table.seats[0])  # type: ignore[arg-type]
    assert told is not None and told.text == f"0 {WAITS[0]}"
    other.known("SHA256:x", leaves({"recent": stats["recent"][:1]}))
    assert other.waiting(Asker()) == 0  # one leave, not two  # type: ignore[arg-type]


async def test_a_restart_forgets_no_leave_even_for_a_program_that_never_asks_its_stats(tmp_path) -> None:
    """The leaves are in the store; a new lobby on it reads a key's stats itself when the key's
    session takes its name, so a client that never sends ``MyStats`` is still made to wait."""
    store = Store(tmp_path / "db.sqlite3")
    await store.open()
    try:
        for round_ in range(2):
            hub = Hub(ServerConfig(), variant_infos(), validate_options, store)
            await hub.load()
            task = asyncio.create_task(hub.run())
            try:
                ana = await join(hub, "ana", "SHA256:ana")
                if round_ == 0:
                    for other in ("beto", "carla"):  # each left by both: on record as ana's loss
                        table_id = await a_match_between(ana, rival := await join(hub, other, f"SHA256:{other}"))
                        for player in (ana, rival):
                            player.send(p.LeaveTable(table_id=table_id))
                            await player.settle()
                    await hub.drain_writes()
                    continue

                async def rated() -> None:  # (the stats are read off the hub's step)
                    while not any(u.player.name == "ana" and u.player.rating is not None
                                  for u in ana.of(p.PlayerUpdated)):
                        await ana.settle()
                        await asyncio.sleep(0.01)

                await asyncio.wait_for(rated(), 10)  # her rating, learnt from her stats, is in the list
                ana.send(p.QuickPlay(variant="argentino"))
                await ana.settle()
                wait = ana.of(p.Error)[-1]
                assert wait.code == "leaver_wait" and 0 < int(wait.reason) <= WAITS[0]
                assert not ana.of(p.StatsReport)  # nobody asked: nothing sent
            finally:
                hub.request_shutdown()
                await task
                await hub.stop_tables()
                await hub.drain_writes()
    finally:
        await store.close()
