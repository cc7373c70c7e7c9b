"""Leavers (issue 34): leaving rated matches again and again makes a key wait before it may
play with other people; it is told at each leave what this one and the next one cost, tables
with bots stay open, and the waits learnt from the stats survive a reconnection."""
from __future__ import annotations

import asyncio
import time

import protocol as p
from server.lobby import Hub
from server.lobby.leavers import WAITS, Leavers, wait_minutes
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


def test_leaves_from_before_are_learnt_from_the_stats() -> None:
    class Peer:
        fingerprint = "SHA256:x"

    class Asker:
        peer = Peer()

    leavers = Leavers()
    now = int(time.time())
    lines = (p.MatchLine(variant="argentino", players=2, abandoned=True, rated=True, finished_at=now - 60),
             p.MatchLine(variant="argentino", players=2, abandoned=True, rated=True, finished_at=now - 120),
             p.MatchLine(variant="argentino", players=2, abandoned=True, rated=False, finished_at=now - 30),
             p.MatchLine(variant="argentino", players=2, abandoned=True, rated=True, finished_at=now - 90_000))
    leavers.known("SHA256:x", p.StatsReport(recent=lines))
    leavers.known("SHA256:x", p.StatsReport(recent=lines))  # asked again: not counted twice
    waiting = leavers.waiting(Asker())  # type: ignore[arg-type]
    assert WAITS[0] * 60 - 61 <= waiting <= WAITS[0] * 60 - 59  # two in the day, the last a minute ago
