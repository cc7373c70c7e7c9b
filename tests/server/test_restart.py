"""After a restart every player finds their game: a match that ended while they were away,
the "rematch?" state, the rematch with an absent player, the turn timer's time left, and the
background restore (the hub answers while tables come back)."""
from __future__ import annotations

import asyncio
import time
import sqlite3
from pathlib import Path

import pytest

import engine
import protocol as p
from server.config import ServerConfig
from server.lobby import Hub
from server.store import CHAT_KEPT, Store, TableRecord, pack_event
from server.table import Occupant, Pace, TableActor, state_digest
from server.table import messages as tm
from server.table.table_view import table_view
from server.table.timers import RESUME_GRACE, Timers
from server.variants import validate_options, variant_infos
from tests.server.test_hub import join
from tests.server.test_reconnect import (
    expect, last_update, settle_all, start_hub, stop_hub, two_at_a_table, until_updates,
)
from tests.server.test_table import Viewers, bots, until

async def seen(predicate, *clients, timeout: float = 5.0) -> None:  # type: ignore[no-untyped-def]
    """Until ``predicate()`` holds, reading what the clients received meanwhile."""
    async def wait() -> None:
        while not predicate():
            await settle_all(*clients)

    await asyncio.wait_for(wait(), timeout)


BOTS_COVER_AT_ONCE = Pace(bot_delay=0, hand_pause=0, away_grace=0)
SHORT = {"target": 15, "match_games": 1, "flor": False}


async def a_match_that_ends_while_everyone_is_away(hub: Hub, guest_too: bool) -> tuple[str, str]:
    """ana (a key) and beto (a guest, or a bot) at a short match; both drop; the bots covering
    them finish it. Returns the table id and beto's resume code."""
    hub.pace = BOTS_COVER_AT_ONCE
    ana = await join(hub, "ana", "SHA256:ana")
    ana.send(p.CreateTable(variant="argentino", players=2, options=SHORT, turn_timer=0, title="m"))
    await ana.settle()
    table_id = ana.of(p.TableCreated)[0].table_id
    code = ""
    if guest_too:
        beto = await join(hub, "beto", None)
        beto.send(p.JoinTable(table_id=table_id))
        await until_updates(ana, beto)
        code = last_update(beto).resume_code
        beto.link.close()
    else:
        ana.send(p.AddBot(table_id=table_id))
        await until_updates(ana)
    ana.link.close()
    await until(lambda: hub.tables[table_id].actor.finished, timeout=30)  # type: ignore[union-attr]
    return table_id, code


async def test_a_match_ended_while_away_comes_back_after_a_restart_at_its_final_score(tmp_path: Path) -> None:
    path = tmp_path / "db.sqlite3"
    hub, store, task = await start_hub(path, seat_hold=60)
    table_id, _ = await a_match_that_ends_while_everyone_is_away(hub, guest_too=False)
    final = hub.tables[table_id].actor.state  # type: ignore[union-attr]
    assert final is not None and final.match_over
    await stop_hub(hub, store, task)  # the server stops between the match's end and a rematch

    hub, store, task = await start_hub(path, seat_hold=60)
    try:
        await asyncio.wait_for(hub.restored.wait(), 10)
        ana = await join(hub, "ana", "SHA256:ana")
        await until_updates(ana)
        assert ana.of(p.Seated)[-1] == p.Seated(table_id=table_id, seat=0)
        back = last_update(ana)
        assert back.view.match_over and tuple(back.view.scores) == final.scores
        assert back.view == table_view(engine.view(final, 0))
        ana.send(p.MyGames())
        await expect(ana, p.GamesList)
        assert [g.table_id for g in ana.of(p.GamesList)[-1].games] == [table_id]
        count = len(ana.of(p.TableUpdate))
        ana.send(p.Rematch(table_id=table_id))  # the bot does not vote: it starts at once
        await expect(ana, p.TableUpdate, count)
        await seen(lambda: not last_update(ana).view.match_over or ana.of(p.Error), ana)
        assert not ana.of(p.Error) and last_update(ana).view.scores == (0, 0)
    finally:
        await stop_hub(hub, store, task)


async def test_an_absent_player_does_not_hold_up_the_rematch_for_the_whole_seat_hold(tmp_path: Path) -> None:
    hub, store, task = await start_hub(tmp_path / "db.sqlite3", seat_hold=600)
    try:
        table_id, code = await a_match_that_ends_while_everyone_is_away(hub, guest_too=True)
        actor = hub.tables[table_id].actor
        assert actor is not None
        actor.pace = Pace(bot_delay=0, hand_pause=0, away_grace=0.4)
        ana = await join(hub, "ana", "SHA256:ana")  # back first: the final score, and a rematch
        await until_updates(ana)
        assert last_update(ana).view.match_over and last_update(ana).seats[1].away
        ana.send(p.Rematch(table_id=table_id))
        await settle_all(ana)
        assert last_update(ana).view.match_over and last_update(ana).rematch_votes == (0,)
        # beto does not come back within the grace: the rematch starts, his seat still his.
        await seen(lambda: not last_update(ana).view.match_over, ana)
        assert last_update(ana).seats[1].away and not last_update(ana).seats[1].bot
        beto = await join(hub, code, None)
        await until_updates(beto)
        assert last_update(beto).seat == 1 and not last_update(beto).view.match_over
    finally:
        await stop_hub(hub, store, task)


async def test_a_player_back_before_the_grace_is_asked_like_anyone(tmp_path: Path) -> None:
    hub, store, task = await start_hub(tmp_path / "db.sqlite3", seat_hold=600)
    try:
        table_id, code = await a_match_that_ends_while_everyone_is_away(hub, guest_too=True)
        actor = hub.tables[table_id].actor
        assert actor is not None
        actor.pace = Pace(bot_delay=0, hand_pause=0, away_grace=0.5)
        ana = await join(hub, "ana", "SHA256:ana")
        await until_updates(ana)
        ana.send(p.Rematch(table_id=table_id))
        await settle_all(ana)
        beto = await join(hub, code, None)  # back in time: he sees the final score
        await until_updates(beto)
        assert last_update(beto).view.match_over and last_update(beto).rematch_votes == (0,)
        # Past the grace: still waiting for his answer. What must not happen is a timer's
        # doing (the grace set at ana's vote must not start the rematch now that beto is
        # back), and when all is right nothing at all happens then. So the barrier is the
        # grace's own deadline: a timer of the same length set after it runs after it (the
        # loop runs timers in deadline order), and settle_all lets the table handle
        # whatever the grace posted.
        graced = asyncio.get_running_loop().create_future()
        asyncio.get_running_loop().call_later(actor.pace.away_grace, graced.set_result, None)
        await graced
        await settle_all(ana, beto)
        assert last_update(beto).view.match_over
        beto.send(p.Rematch(table_id=table_id))
        await seen(lambda: not last_update(ana).view.match_over, ana)
    finally:
        await stop_hub(hub, store, task)


async def test_a_turn_timer_resumes_with_the_time_it_had_left(tmp_path: Path) -> None:
    store = Store(tmp_path / "db.sqlite3")
    await store.open()
    try:
        seats = [Occupant("ana", 1), Occupant("beto", 2)]
        await store.create_table(TableRecord("t", "x", "argentino", SHORT, "ana", False, "", 30,
                                             [o.to_record() for o in seats], "s"))
        viewers = Viewers()
        actor = TableActor("t", "argentino", SHORT, seats, viewers.send, turn_timer=30,
                           pace=Pace(bot_delay=0, hand_pause=0, away_grace=60), seed="s", store=store)
        started = time.monotonic()
        actor.start()
        await until(lambda: viewers.updates(1))
        waited = time.monotonic() - started  # a loaded machine may take a while to answer
        assert 30 - waited - 0.1 <= (viewers.updates(1)[-1].timer or 0) <= 30
        # Away and back: the same turn, the same deadline (not a new period). Away and back
        # again until the time she is shown has visibly run down: with a new period at each
        # return it would be 30 s every time, and the wait would time out.
        away, back, left = 1, 5, 30.0
        while True:
            actor.post(tm.Away(away))
            actor.post(tm.Rejoin(back, 0))
            await until(lambda back=back: viewers.updates(back))
            left = viewers.updates(back)[-1].timer or 0
            if left < 29.8 or time.monotonic() - started > 20:
                break
            away, back = back, back + 1
            await asyncio.sleep(0.02)
        assert left < 29.8, left
        await actor.stop()

        (record,) = await store.restart_tables()
        last = record.events[-1].ts
        # Past its deadline: a short grace (the player's connection went down with the server)
        for stopped_at, left in ((last + 20, 10.0), (last + 45, RESUME_GRACE), (None, 30.0)):
            again = Viewers()
            restored = TableActor("t", "argentino", SHORT, [Occupant.from_record(d) for d in record.seats],
                                  again.send, turn_timer=30, pace=Pace(bot_delay=0, away_grace=60),
                                  seed="s", store=store)
            restored.restore(record.events, record.snapshot, stopped_at)
            restored.start()
            restored.post(tm.Rejoin(9, 0))
            await until(lambda: again.updates(9))
            assert left - 0.5 < (again.updates(9)[-1].timer or 0) <= left, (stopped_at, left)
            assert restored.seq == record.events[-1].seq  # nobody played for the player
            await restored.stop()
            (record,) = await store.restart_tables()
    finally:
        await store.close()


def test_a_resumed_turn_gets_what_was_left_never_less_than_a_grace() -> None:
    posted: list[object] = []
    for timer, used, left in ((30, 20.0, 10.0), (30, 29.0, RESUME_GRACE), (30, 400.0, RESUME_GRACE),
                              (30, -3.0, 30.0), (3, 400.0, 3.0)):
        timers = Timers(Pace(), timer, posted.append)
        timers.resume(7, used=used)  # -3: a clock that went back gives no extra time
        assert timers.restored_left == (7, left), (timer, used)


async def test_a_snapshot_from_another_engine_version_is_set_aside_for_a_full_replay(tmp_path: Path) -> None:
    path = tmp_path / "db.sqlite3"
    hub, store, task = await start_hub(path, seat_hold=60)
    hub.pace = Pace(bot_delay=0.01, hand_pause=0, away_grace=0)
    ana = await join(hub, "ana", "SHA256:ana")
    ana.send(p.CreateTable(variant="argentino", players=4, options={**SHORT, "target": 30}, turn_timer=0))
    await ana.settle()
    table_id = ana.of(p.TableCreated)[0].table_id
    for _ in range(3):
        ana.send(p.AddBot(table_id=table_id))
    await until_updates(ana)
    ana.link.close()  # the bots play on for her
    before = hub.tables[table_id].actor
    assert before is not None
    await until(lambda: before.state.deal_no >= 2, timeout=90)  # type: ignore[union-attr]  (a loaded CI)
    await stop_hub(hub, store, task)
    assert before.state is not None and not before.state.match_over
    digest, seq = state_digest(before.state, 4), before.seq
    db = sqlite3.connect(path)
    (blob,) = db.execute("SELECT state FROM snapshots WHERE table_id = ?", (table_id,)).fetchone()
    stale = blob.replace(b"truco-state/1/", b"truco-state/0/", 1)  # as an older engine wrote it
    db.execute("UPDATE snapshots SET state = ? WHERE table_id = ?", (stale, table_id))
    db.commit()
    db.close()

    store = Store(path)
    await store.open()
    hub = Hub(ServerConfig(), variant_infos(), validate_options, store,
              pace=Pace(bot_delay=60, away_grace=60))  # nobody moves: the state as restored
    await hub.load()
    task = asyncio.create_task(hub.run())
    try:
        await asyncio.wait_for(hub.restored.wait(), 10)
        actor = hub.tables[table_id].actor
        assert actor is not None and actor.state is not None
        assert (actor.seq, state_digest(actor.state, 4)) == (seq, digest)
        assert len(actor.events) == seq  # the whole match replayed (a one-match table)
    finally:
        await stop_hub(hub, store, task)


async def test_the_hub_answers_while_tables_restore_and_seats_a_returning_player_at_once(tmp_path: Path) -> None:
    path = tmp_path / "db.sqlite3"
    # The bot waits: the update read before the stop must be the last one the log holds.
    waiting_bot = Pace(bot_delay=60, away_grace=60)
    hub, store, task = await start_hub(path, pace=waiting_bot, seat_hold=60)
    ana = await join(hub, "ana", "SHA256:ana")
    ana.send(p.CreateTable(variant="argentino", players=2, options=SHORT, turn_timer=0))
    await ana.settle()
    table_id = ana.of(p.TableCreated)[0].table_id
    ana.send(p.AddBot(table_id=table_id))
    await until_updates(ana)
    before = last_update(ana)
    await stop_hub(hub, store, task)

    store = Store(path)
    await store.open()
    hub = Hub(ServerConfig(seat_hold=60), variant_infos(), validate_options, store,
              pace=Pace(bot_delay=60, away_grace=60))
    checked: asyncio.Future[None] = asyncio.get_running_loop().create_future()
    await hub.load(checked)  # the integrity check is still running: no table plays yet
    task = asyncio.create_task(hub.run())
    try:
        ana = await join(hub, "ana", "SHA256:ana")
        await settle_all(ana)
        assert ana.of(p.Welcome) and ana.of(p.Seated)[-1] == p.Seated(table_id=table_id, seat=0)
        assert ana.of(p.TableUpdated)[-1].table.status == "restoring" and not ana.of(p.TableUpdate)
        checked.set_result(None)
        await until_updates(ana)
        assert (last_update(ana).seq, last_update(ana).view) == (before.seq, before.view)
        assert hub.restored.is_set() and ana.of(p.TableUpdated)[-1].table.status == "playing"
    finally:
        await stop_hub(hub, store, task)


async def test_no_table_plays_on_a_database_that_failed_its_check(tmp_path: Path,
                                                                  caplog: pytest.LogCaptureFixture) -> None:
    path = tmp_path / "db.sqlite3"
    # The bot waits: the update read before the stop must be the last one the log holds.
    waiting_bot = Pace(bot_delay=60, away_grace=60)
    hub, store, task = await start_hub(path, pace=waiting_bot, seat_hold=60)
    ana = await join(hub, "ana", "SHA256:ana")
    ana.send(p.CreateTable(variant="argentino", players=2, options=SHORT, turn_timer=0))
    await ana.settle()
    ana.send(p.AddBot(table_id=ana.of(p.TableCreated)[0].table_id))
    await until_updates(ana)
    await stop_hub(hub, store, task)

    store = Store(path)
    await store.open()
    hub = Hub(ServerConfig(), variant_infos(), validate_options, store)
    checked: asyncio.Future[None] = asyncio.get_running_loop().create_future()
    checked.set_exception(RuntimeError("damaged"))
    await hub.load(checked)
    task = asyncio.create_task(hub.run())
    try:
        # The restore gives up (and says so); then a round trip through the hub, so that
        # nothing it was handed before can still be on its way in.
        await until(lambda: any("the database check failed" in r.getMessage() for r in caplog.records))
        zoe = await join(hub, "zoe")
        await zoe.until(lambda c: bool(c.of(p.Welcome)))
        assert not hub.tables and not hub.restored.is_set()
    finally:
        await stop_hub(hub, store, task)


@pytest.mark.parametrize("where", ["tables", "events"])
async def test_the_server_stops_with_a_report_on_a_damaged_database(tmp_path: Path, where: str) -> None:
    """Damage where the server reads before it listens (the tables) is reported at once; damage
    only in the log is found by the integrity check running while it listens: it stops."""
    import dataclasses

    from server.cli.main import serve
    from server.store import EventRow, StoreError

    data = tmp_path / "data"
    store = Store(data / "truco.sqlite3")
    await store.open()
    await store.create_table(TableRecord("t1", "m", "argentino", {}, "ana", False, "", 0, [], "s"))
    await store.append("t1", [EventRow(i, 1, {"type": "x", "pad": "y" * 200}) for i in range(1, 400)])
    await store.close()
    db = sqlite3.connect(data / "truco.sqlite3")
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    size = db.execute("PRAGMA page_size").fetchone()[0]
    # the log's own leaves only (the schema may end on any page as migrations are added)
    leaves = [n for n, in db.execute("SELECT pageno FROM dbstat WHERE name = 'events' AND pagetype = 'leaf'")]
    db.close()
    raw = bytearray((data / "truco.sqlite3").read_bytes())
    damaged = range(4096 * 3, len(raw)) if where == "tables" else [
        i for page in leaves[len(leaves) // 2:] for i in range((page - 1) * size, page * size)]
    for i in damaged[::7]:
        raw[i] = 0xA5
    (data / "truco.sqlite3").write_bytes(bytes(raw))
    config = dataclasses.replace(ServerConfig(), host="127.0.0.1", port=0, data_dir=data,
                                 host_key=tmp_path / "key")
    ready = asyncio.Event()
    try:
        await asyncio.wait_for(serve(config, ready=ready), 20)
    except StoreError as exc:
        assert "truco.sqlite3" in str(exc)
        assert ready.is_set() == (where == "events"), exc  # listening, then stopped
    else:
        raise AssertionError("the server ran on a damaged database")


async def test_a_table_whose_log_cannot_be_replayed_does_not_hold_up_the_others(tmp_path: Path) -> None:
    path = tmp_path / "db.sqlite3"
    hub, store, task = await start_hub(path, seat_hold=60)
    tables = {}
    for name in ("ana", "carla"):
        player = await join(hub, name, f"SHA256:{name}")
        player.send(p.CreateTable(variant="argentino", players=2, options=SHORT, turn_timer=0))
        await player.settle()
        tables[name] = player.of(p.TableCreated)[0].table_id
        player.send(p.AddBot(table_id=tables[name]))
        await until_updates(player)
    await stop_hub(hub, store, task)
    db = sqlite3.connect(path)  # ana's log now says something the rules never said
    db.execute("UPDATE events SET data = ? WHERE table_id = ? AND seq = 2",
               (pack_event({"type": "acted", "seat": 0, "call": "quiero"}), tables["ana"]))
    db.commit()
    db.close()

    store = Store(path)
    await store.open()
    hub = Hub(ServerConfig(seat_hold=60), variant_infos(), validate_options, store,
              pace=Pace(bot_delay=60, away_grace=60))
    checked: asyncio.Future[None] = asyncio.get_running_loop().create_future()
    await hub.load(checked)
    task = asyncio.create_task(hub.run())
    try:
        ana = await join(hub, "ana", "SHA256:ana")
        await settle_all(ana)
        assert ana.of(p.Seated)[-1] == p.Seated(table_id=tables["ana"], seat=0)  # restoring...
        checked.set_result(None)
        await asyncio.wait_for(hub.restored.wait(), 10)
        await settle_all(ana)
        assert ana.of(p.Seated)[-1] == p.Seated() and ana.of(p.Error)[-1].code == "no_table"
        assert set(hub.tables) == {tables["carla"]}  # the other table is back
        carla = await join(hub, "carla", "SHA256:carla")
        await until_updates(carla)
        assert last_update(carla).table_id == tables["carla"]
    finally:
        await stop_hub(hub, store, task)
    db = sqlite3.connect(path)  # left for the operator: not closed, not rewritten
    assert db.execute("SELECT closed_at FROM tables WHERE table_id = ?", (tables["ana"],)).fetchone() == (None,)
    db.close()


async def test_a_restart_replays_one_hand_from_the_snapshot_to_the_state_of_the_whole_log(tmp_path: Path) -> None:
    # This test is about the log and the snapshot, so señas are off (test_restart_senas.py
    # restarts a table where bots signal).
    options = {"match_games": 1, "target": 15, "senas": "off"}
    fast = Pace(bot_delay=0, hand_pause=0)
    straight = TableActor("a", "argentino", options, bots(4), Viewers().send, pace=fast, seed="fixed")
    straight.start()
    await until(lambda: straight.finished)
    await straight.stop()
    store = Store(tmp_path / "db.sqlite3")
    await store.open()
    try:
        await store.create_table(TableRecord("b", "x", "argentino", options, "o", False, "", 0,
                                             [o.to_record() for o in bots(4)], "fixed"))
        first = TableActor("b", "argentino", options, bots(4), Viewers().send, pace=fast, seed="fixed",
                           store=store)
        first.start()
        await until(lambda: first.seq >= 60 or first.finished)
        await first.stop()
        assert not first.finished
        (record,) = await store.restart_tables()
        # What a restart reads: the match's start, then what follows the state before the
        # latest deal (saved with that deal); not the hands before it.
        assert record.snapshot is not None and record.snapshot.match_no == 1
        assert [r.seq for r in record.events] == [1, *range(record.snapshot.seq + 1, first.seq + 1)]
        assert [r.data["type"] for r in record.events[:2]] == ["match_started", "hand_dealt"]
        (whole,) = await store.open_tables()
        events = [engine.event_from_wire(r.data) for r in whole.events]
        restored = TableActor("b", "argentino", options, bots(4), Viewers().send, pace=fast,
                              seed="fixed", store=store)
        restored.restore(record.events, record.snapshot)
        rules = engine.get_ruleset("argentino", **options)
        assert restored.state == first.state == engine.replay(rules, 4, events)
        assert restored.seq == first.seq
        # It knows how the match started and the hand being played (for a returning player).
        assert restored.events == [events[0], *events[record.snapshot.seq:]]
        restored.start()
        await until(lambda: restored.finished)
        await restored.stop()
        (whole,) = await store.open_tables()
        assert [engine.event_from_wire(r.data) for r in whole.events] == straight.events
        assert restored.state == straight.state  # the snapshot changed nothing that follows
    finally:
        await store.close()


async def test_a_restarted_table_shows_its_latest_chat_lines_again(tmp_path: Path) -> None:
    """The table chat is stored with the log (the latest CHAT_KEPT lines, partner-only lines
    never): after a restart a returning player sees the table's lines again, as after a
    rebuild on another process of a cluster (tests/cluster/test_rebuild.py)."""
    path = tmp_path / "db.sqlite3"
    hub, store, task = await start_hub(path, seat_hold=60, chat_burst=CHAT_KEPT + 5, chat_address_burst=CHAT_KEPT + 5)
    ana, beto = await two_at_a_table(hub)
    table_id = last_update(ana).table_id
    said = [f"linea {n}" for n in range(CHAT_KEPT + 3)]
    for text in said:
        ana.send(p.TableChat(table_id=table_id, text=text))
    beto.send(p.TableChat(table_id=table_id, text="solo para vos", partners=True))
    await seen(lambda: [c.line.text for c in beto.of(p.Chat)][-1:] == [said[-1]], ana, beto)
    await stop_hub(hub, store, task)

    hub, store, task = await start_hub(path, seat_hold=60)
    try:
        ana = await join(hub, "ana", "SHA256:ana")
        await until_updates(ana)
        lines = [c.line for c in ana.of(p.Chat) if c.line.table_id == table_id]
        assert [line.text for line in lines] == said[-CHAT_KEPT:]  # the latest, in order
        assert {line.sender for line in lines} == {"ana"} and all(line.ts > 0 for line in lines)
        # and the table's chat goes on from there
        ana.send(p.TableChat(table_id=table_id, text="sigo"))
        await seen(lambda: ana.of(p.Chat)[-1].line.text == "sigo", ana)
    finally:
        await stop_hub(hub, store, task)
