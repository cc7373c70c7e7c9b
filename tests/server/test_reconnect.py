"""Dropped connections: the seat is held, the player comes back to it (key, code), restarts."""
from __future__ import annotations

import asyncio
import dataclasses
from pathlib import Path
from typing import AsyncIterator

import pytest

import protocol as p
from server.config import ServerConfig
from server.lobby import Hub
from server.store import Store
from server.table import Pace
from server.variants import validate_options, variant_infos
from tests.server.test_hub import Client, join
from tests.server.test_table import until

SLOW = Pace(bot_delay=0, hand_pause=0, away_grace=30)


async def start_hub(path: Path, restore: bool = True, pace: Pace = SLOW,
                    **config: object) -> tuple[Hub, Store, asyncio.Task[None]]:
    """A hub on the store at ``path`` (``restore=False``: its tables come back only when the
    test calls ``hub.restore_tables()``, as the server does once it listens)."""
    store = Store(path)
    await store.open()
    hub = Hub(dataclasses.replace(ServerConfig(), **config), variant_infos(), validate_options, store,
              pace=pace)
    await hub.load(restore=restore)
    return hub, store, asyncio.create_task(hub.run())


async def stop_hub(hub: Hub, store: Store, task: asyncio.Task[None]) -> None:
    hub.request_shutdown()
    await task
    await hub.stop_tables()
    await hub.drain_writes()
    await store.close()


@pytest.fixture
async def hub(tmp_path: Path) -> AsyncIterator[Hub]:
    hub, store, task = await start_hub(tmp_path / "db.sqlite3", seat_hold=60)
    yield hub
    await stop_hub(hub, store, task)


async def expect(client: Client, kind: type, count_before: int | None = None) -> None:
    """Wait until ``client`` has received one more message of ``kind`` than it had."""
    before = len(client.of(kind)) if count_before is None else count_before

    async def wait() -> None:
        while len(client.of(kind)) <= before:
            await client.settle()
            await asyncio.sleep(0.01)

    await asyncio.wait_for(wait(), 5)


def last_update(client: Client) -> p.TableUpdate:
    return client.of(p.TableUpdate)[-1]


async def settle_all(*clients: Client) -> None:
    for _ in range(3):
        for c in clients:
            await c.settle()
        await asyncio.sleep(0.01)


async def two_at_a_table(hub: Hub, fp_a: str | None = "SHA256:ana", fp_b: str | None = None
                         ) -> tuple[Client, Client]:
    ana = await join(hub, "ana", fp_a)
    beto = await join(hub, "beto", fp_b)
    ana.send(p.CreateTable(variant="argentino", players=2, options={"flor": False}, turn_timer=0))
    await ana.settle()
    table_id = ana.of(p.TableCreated)[0].table_id
    beto.send(p.JoinTable(table_id=table_id))
    await until_updates(ana, beto)
    return ana, beto


async def until_updates(*clients: Client) -> None:
    async def wait() -> None:
        while not all(c.of(p.TableUpdate) for c in clients):
            await settle_all(*clients)

    await asyncio.wait_for(wait(), 5)


async def test_a_dropped_key_holder_is_shown_away_and_returns_to_the_same_hand(hub: Hub) -> None:
    ana, beto = await two_at_a_table(hub)
    before = last_update(ana)
    ana.link.close()
    await settle_all(beto)
    seats = last_update(beto).seats
    assert seats[0].away and not seats[0].bot  # held, not given to a bot
    again = await join(hub, "ana", "SHA256:ana")
    await until_updates(again)
    assert again.of(p.Seated)[-1] == p.Seated(table_id=before.table_id, seat=0)
    now = last_update(again)
    assert now.seq == before.seq and now.seat == 0
    assert now.view.own_cards == before.view.own_cards and now.waiting == before.waiting
    await settle_all(beto)
    assert not last_update(beto).seats[0].away


async def test_a_returning_player_gets_the_hand_so_far_once(hub: Hub) -> None:
    """Issue 13: the log came back empty after a reconnect."""
    ana, beto = await two_at_a_table(hub)
    mover, conn = (ana, 0) if 0 in last_update(ana).waiting else (beto, 1)
    card = last_update(mover).view.own_cards[0]
    mover.send(p.TableAction(table_id=last_update(ana).table_id, call="play", card=card, cid=1))
    await settle_all(ana, beto)
    ana.link.close()
    await settle_all(beto)
    again = await join(hub, "ana", "SHA256:ana")
    await until_updates(again)
    first = again.of(p.TableUpdate)[0]
    kinds = [e.KIND for e in first.history]
    assert kinds[:2] == ["match_started", "hand_dealt"]
    played = [e for e in first.history if isinstance(e, p.Acted) and e.call == "play"]
    assert played and played[0].card == card and played[0].seat == conn
    dealt = next(e for e in first.history if isinstance(e, p.HandDealt))
    assert sorted(dealt.hands[0]) == sorted([*first.view.own_cards, *([card] if conn == 0 else [])])
    assert dealt.hands[1] is None  # beto's cards stay hidden
    await settle_all(beto)
    assert all(not u.history for u in beto.of(p.TableUpdate))


async def test_a_guest_comes_back_with_the_resume_code_as_user_name_or_typed(hub: Hub) -> None:
    ana, beto = await two_at_a_table(hub)
    code = last_update(beto).resume_code
    assert len(code) == p.CODE_LEN and last_update(ana).resume_code == ""  # ana has a key
    before = last_update(beto)
    beto.link.close()
    await settle_all(ana)
    assert last_update(ana).seats[1].away
    back = await join(hub, code.lower(), None)  # ssh -p 2222 CODE@host
    await until_updates(back)
    assert back.of(p.Welcome)[0].name == "beto"
    assert last_update(back).view.own_cards == before.view.own_cards
    # The same code typed in the lobby by another session replaces this one.
    other = await join(hub, "carla", None)
    other.send(p.ResumeSeat(code=code))
    await until_updates(other)
    await back.settle()
    assert back.of(p.Notice)[-1].code == "replaced"
    assert last_update(other).seat == 1 and last_update(other).view.own_cards == before.view.own_cards
    other.send(p.ResumeSeat(code="ZZZZZZ"))
    await other.settle()
    assert other.of(p.Error)[-1].code == "bad_resume"


async def test_a_second_login_with_the_same_key_takes_over_the_seat(hub: Hub) -> None:
    ana, beto = await two_at_a_table(hub)
    second = await join(hub, "ana", "SHA256:ana")
    await until_updates(second)
    await ana.settle()
    assert ana.of(p.Notice)[-1].code == "replaced"
    assert last_update(second).seat == 0


async def test_the_seat_goes_to_a_bot_when_the_hold_runs_out(tmp_path: Path) -> None:
    hub, store, task = await start_hub(tmp_path / "db.sqlite3", seat_hold=0.2)
    try:
        ana, beto = await two_at_a_table(hub)
        ana.link.close()
        await settle_all(beto)
        assert last_update(beto).seats[0].away
        await beto.until(lambda c: last_update(c).seats[0].bot)  # the hold ran out
        again = await join(hub, "ana", "SHA256:ana")
        await again.settle()
        assert not again.of(p.Seated)  # too late: the seat is the bot's now
    finally:
        await stop_hub(hub, store, task)


async def test_tables_survive_a_restart_and_players_reclaim_their_seats(tmp_path: Path) -> None:
    path = tmp_path / "db.sqlite3"
    hub, store, task = await start_hub(path, seat_hold=60)
    ana, beto = await two_at_a_table(hub)
    before_a, before_b = last_update(ana), last_update(beto)
    code = before_b.resume_code
    await stop_hub(hub, store, task)

    hub, store, task = await start_hub(path, seat_hold=60)
    try:
        ana = await join(hub, "ana", "SHA256:ana")
        await until_updates(ana)
        now = last_update(ana)
        assert (now.seq, now.view, now.waiting) == (before_a.seq, before_a.view, before_a.waiting)
        assert now.seats[1].away  # beto has not come back yet
        beto = await join(hub, code, None)
        await until_updates(beto)
        assert last_update(beto).view == before_b.view
        await settle_all(ana)
        assert not last_update(ana).seats[1].away
        # They play on: the one whose turn it is plays a card, and it counts.
        turn = now.view.turn
        mover = (ana, beto)[turn]
        card = last_update(mover).view.own_cards[0]
        count = len(mover.of(p.TableUpdate))
        mover.send(p.TableAction(table_id=now.table_id, call="play", card=card, cid=99))
        await expect(mover, p.TableUpdate, count)
        assert last_update(mover).seq > now.seq
    finally:
        await stop_hub(hub, store, task)


async def test_my_games_lists_a_finished_game_and_replays_it_hand_by_hand(tmp_path: Path) -> None:
    # The bot covers an away player at once here, so the game runs to its end while ana is away.
    hub, store, task = await start_hub(tmp_path / "db.sqlite3", seat_hold=60)
    hub.pace = Pace(bot_delay=0, hand_pause=0, away_grace=0)
    try:
        ana = await join(hub, "ana", "SHA256:ana")
        ana.send(p.CreateTable(variant="argentino", players=2, options={"target": 15, "match_games": 1},
                               turn_timer=0, title="final"))
        await ana.settle()
        ana.send(p.AddBot(table_id=ana.of(p.TableCreated)[0].table_id))
        await until_updates(ana)
        table_id = last_update(ana).table_id
        ana.link.close()
        await until(lambda: hub.tables[table_id].actor.finished, timeout=20)  # type: ignore[union-attr]
        ana = await join(hub, "ana", "SHA256:ana")
        await until_updates(ana)
        # The match ended while she was away: she is back in her seat, at the final score.
        assert ana.of(p.Seated)[-1] == p.Seated(table_id=table_id, seat=0)
        assert last_update(ana).view.match_over and max(last_update(ana).view.scores) >= 15
        ana.send(p.MyGames())  # the game's record was written with its last events
        await expect(ana, p.GamesList)
        (game,) = ana.of(p.GamesList)[-1].games
        assert (game.table_id, game.title, game.seats[0]) == (table_id, "final", "ana")
        assert max(game.scores) >= 15 and game.hands >= 1
        for hand in (1, game.hands):
            ana.send(p.ReplayHand(table_id=table_id, match_no=game.match_no, hand=hand))
            await expect(ana, p.ReplayStep)
            step = ana.of(p.ReplayStep)[-1]
            assert step.hand == hand and step.hands == game.hands
            dealt = [e for e in step.events if isinstance(e, p.HandDealt)]
            assert len(dealt) == 1 and all(h for h in dealt[0].hands)  # every hand shown: it is over
        # The moves the bot made for ana while she was away say so in the log, each just
        # before her move (and that log replayed: the table finished from it).
        steps = ana.of(p.ReplayStep)
        events = [e for step in steps for e in step.events]
        notes = [i for i, e in enumerate(events) if isinstance(e, p.SeatCovered)]
        assert notes and all(events[i] == p.SeatCovered(seat=0, reason="away") for i in notes)
        assert all(isinstance(events[i + 1], p.Acted) and events[i + 1].seat == 0 for i in notes)
        assert isinstance(ana.of(p.ReplayStep)[0].events[0], p.MatchStarted)
        assert isinstance(ana.of(p.ReplayStep)[-1].events[-1], p.MatchEnded)
        ana.send(p.ReplayHand(table_id=table_id, match_no=game.match_no, hand=game.hands + 1))
        await expect(ana, p.Error)
        assert ana.of(p.Error)[-1].code == "no_hand"
        stranger = await join(hub, "eve", "SHA256:eve")
        stranger.send(p.ReplayHand(table_id=table_id, match_no=game.match_no, hand=1))
        await expect(stranger, p.Error)
        assert stranger.of(p.Error)[-1].code == "no_game"
    finally:
        await stop_hub(hub, store, task)


async def test_a_seated_player_watching_or_resuming_their_own_seat_keeps_it(hub: Hub) -> None:
    """Issue 32: asking to watch one's own table, or typing one's own code while seated, is
    no leaving: the seat stays the person's, in the lobby and in the store, and a drop after
    it is held as ever (the same code brings them back)."""
    ana, beto = await two_at_a_table(hub)
    table_id = ana.of(p.Seated)[-1].table_id
    code = last_update(beto).resume_code
    beto.send(p.WatchTable(table_id=table_id))
    beto.send(p.ResumeSeat(code=code))
    await settle_all(ana, beto)
    await hub.drain_writes()
    assert hub.store is not None
    stored = next(r for r in await hub.store.open_tables() if r.table_id == table_id)
    assert not stored.seats[1]["bot"] and not hub.tables[table_id].seats[1].bot  # type: ignore[union-attr]
    assert not last_update(ana).seats[1].bot
    beto.link.close()
    await settle_all(ana)
    assert last_update(ana).seats[1].away
    back = await join(hub, code, None)
    await until_updates(back)
    assert back.of(p.Welcome)[0].name == "beto" and back.of(p.Seated)[-1] == p.Seated(table_id=table_id, seat=1)
