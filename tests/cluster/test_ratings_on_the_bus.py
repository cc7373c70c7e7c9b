"""Ratings and stats in cluster mode: the same matches give the same stats screen and
leaderboards from JetStream as from SQLite; a match recorded again by a new host counts once;
a bad value in the buckets is skipped; the hub answers ``s`` and ``t`` from them."""
from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import protocol as p
from server.cluster.eventlog import TableLog
from server.cluster.jsstore import _entry
from server.cluster.natsd import NatsServer
from server.cluster.ratings import RATINGS_BUCKET, STATS_BUCKET, rating_key
from server.store import EventRow, GameRecord, Store, TableRecord
from tests.cluster.stores import open_store
from tests.server.test_ratings import EVENTS, finish

FPS = ["SHA256:a+/=", "SHA256:b", "SHA256:c", "SHA256:d"]


async def _play_the_same(store: Any) -> None:
    """1v1s, a 2v2 someone abandoned, a match against a bot, one with a guest, a deserted one."""
    await finish(store, "t1", ["ana", "beto"], FPS[:2], winner=0, at=1000)
    await finish(store, "t2", ["ana", "carla"], [FPS[0], FPS[2]], winner=1, at=2000)
    await finish(store, "t3", ["beto", "carla"], FPS[1:3], winner=0, at=3000)
    await finish(store, "t4", ["ana", "beto", "carla", "dani"], FPS, winner=0, abandoned=(2,), at=4000)
    await finish(store, "t5", ["ana", "Bot 1"], [FPS[0], None], winner=0, bots=(1,), at=5000)
    await finish(store, "t6", ["dani", "guest"], [FPS[3], None], winner=1, at=6000)
    # Everybody left t7 before its end: a rated loss for both, no match record
    await store.create_table(TableRecord(
        table_id="t7", title="mesa t7", variant="argentino", options={}, owner="ana", private=False,
        code="", turn_timer=0, seats=[], seed="s"))
    await store.append("t7", [EventRow(i + 1, 1, e) for i, e in enumerate(EVENTS)])
    left = GameRecord("t7", 1, "argentino", "mesa t7", ["ana", "dani"], [5, 1], None, 2, 7000)
    await store.desert(left, [(0, "ana", FPS[0]), (1, "dani", FPS[3])])


def _rounded(value: Any) -> Any:
    if isinstance(value, float):
        return round(value, 9)
    if isinstance(value, (list, tuple)):
        return [_rounded(v) for v in value]
    if isinstance(value, dict):
        return {k: _rounded(v) for k, v in value.items()}
    return value


async def _everything(store: Any) -> dict[str, Any]:
    found: dict[str, Any] = {fp: await store.player_stats(fp) for fp in FPS}
    for players in (2, 4, 6):
        board = await store.leaderboard("argentino", players)
        found[f"board{players}"] = [line[1:] for line in board]  # names: see the next test
    return _rounded(found)


async def test_the_cluster_keeps_the_same_ratings_and_stats_as_sqlite(
        nats_server: NatsServer, tmp_path: Path) -> None:
    sqlite = Store(tmp_path / "db.sqlite3")
    await sqlite.open()
    bus, names, store = await open_store(nats_server.url, "host-1")
    try:
        await _play_the_same(sqlite)
        await _play_the_same(store)
        expected = await _everything(sqlite)
        assert expected[FPS[0]]["totals"][0] == 5  # t1 t2 t4 t5 and the deserted t7
        assert len(expected["board2"]) == 4 and len(expected["board4"]) == 4
        found = await _everything(store)
        for fp in (FPS[0], FPS[3]):
            deserted = found[fp]["recent"][0]
            assert deserted[2] == "mesa t7" and deserted[4] == 1
        # the deserted match is kept by both, with nobody's win (My games, the proof of its deals)
        for kept in (sqlite, store):
            games = {g.table_id: g for g in await kept.my_games(FPS[0], "")}
            assert "t7" in games and games["t7"].winner is None
        assert found == expected, {k: (found[k], expected[k]) for k in expected if found[k] != expected[k]}
        names2 = [line[0] for line in await store.leaderboard("argentino", 2)]
        assert sorted(names2) == ["ana", "beto", "carla", "dani"]  # each key's name when rated
        assert await store.leaderboard("uruguayo", 2) == []
    finally:
        await sqlite.close()
        await names.close()
        await bus.close()


async def test_a_new_host_rates_the_last_match_once_even_if_the_old_one_died_before(
        nats_server: NatsServer) -> None:
    bus, names, store = await open_store(nats_server.url, "host-1")
    bus2 = None
    try:
        await finish(store, "t1", ["ana", "beto"], FPS[:2], winner=0, at=1000)
        once = _rounded(await store.player_stats(FPS[0]))
        # t2 as a host that died after its log write left it: events and game, no ratings
        await store.create_table(TableRecord(
            table_id="t2", title="mesa t2", variant="argentino", options={}, owner="ana",
            private=False, code="", turn_timer=0, seats=[], seed="s"))
        game = GameRecord("t2", 1, "argentino", "mesa t2", ["ana", "beto"], [1, 5], 1, 3, 2000)
        await TableLog(bus, "t2").append([EventRow(i + 1, 1, e) for i, e in enumerate(EVENTS)],
                                         (_entry(game, [(0, "ana", FPS[0]), (1, "beto", FPS[1])]),))
        assert _rounded(await store.player_stats(FPS[0])) == once
        for host in ("host-2", "host-3"):  # two restores: each records t1's and t2's last match
            bus2, names2, other = await open_store(nats_server.url, host)
            await other.load_matches(await other.table_index())
            await other.settle()  # the restore counts them again in the background
            stats = await other.player_stats(FPS[0])
            assert stats["totals"][:2] == (2, 1)  # t1 won, t2 lost: each counted once
            assert stats["ratings"][0][3:] == (2, 1)
            assert [line[2] for line in stats["recent"]] == ["mesa t2", "mesa t1"]
            await names2.close()
            await bus2.close()
            bus2 = None
    finally:
        await names.close()
        await bus.close()
        if bus2 is not None:
            await bus2.close()


async def test_bad_values_in_the_rating_buckets_are_skipped(nats_server: NatsServer) -> None:
    bus, names, store = await open_store(nats_server.url, "host-1")
    try:
        await finish(store, "t1", ["ana", "beto"], FPS[:2], winner=0)
        ratings = await bus.js.key_value(RATINGS_BUCKET)
        stats = await bus.js.key_value(STATS_BUCKET)
        fp_hex = FPS[0].encode().hex()
        await stats.put(f"{fp_hex}.junk.1.0", b"\x00junk")
        await stats.put(f"{fp_hex}.ping.1.0", p.encode(p.Ping(n=1)))
        await ratings.put(rating_key("argentino", 2, "SHA256:zzz"), b"junk")
        before = bus.dropped
        mine = await store.player_stats(FPS[0])
        assert mine["totals"][:2] == (1, 1) and len(mine["ratings"]) == 1
        assert len(await store.leaderboard("argentino", 2)) == 2
        assert bus.dropped >= before + 3
        # A rating whose value is junk is rated again from the start, not a crash
        await ratings.put(rating_key("argentino", 2, FPS[1]), b"junk")
        await finish(store, "t2", ["ana", "beto"], FPS[:2], winner=1, at=2000)
        assert (await store.player_stats(FPS[1]))["ratings"][0][3:] == (1, 1)
    finally:
        await names.close()
        await bus.close()


async def test_the_hub_of_a_cluster_answers_stats_and_leaderboards(nats_server: NatsServer) -> None:
    from server.config import ServerConfig
    from server.lobby import Hub
    from server.variants import validate_options, variant_infos
    from tests.server.test_hub import join

    bus, names, store = await open_store(nats_server.url, "host-1")
    await finish(store, "t1", ["Ana", "Beto"], FPS[:2], winner=1)
    hub = Hub(ServerConfig(), variant_infos(), validate_options, store)  # type: ignore[arg-type]
    await hub.load()
    task = asyncio.create_task(hub.run())
    try:
        beto = await join(hub, "Beto", FPS[1])
        beto.send(p.MyStats())
        beto.send(p.Leaderboard(variant="argentino", players=2))
        for _ in range(250):
            await asyncio.sleep(0.02)
            await beto.settle()
            if beto.of(p.StatsReport) and beto.of(p.LeaderboardReport):
                break
        mine = beto.of(p.StatsReport)[-1]
        assert mine.keyed and (mine.games, mine.wins) == (1, 1)
        assert mine.recent[0].rated and mine.recent[0].change > 0
        assert [line.name for line in beto.of(p.LeaderboardReport)[-1].lines] == ["Beto", "Ana"]
    finally:
        task.cancel()
        await hub.drain_writes()
        await names.close()
        await bus.close()


async def test_a_real_tables_match_is_rated_in_the_cluster(nats_server: NatsServer) -> None:
    from server.table import Occupant, TableActor
    from tests.server.test_ratings_table import keyed, play_out
    from tests.server.test_table import FAST, Viewers

    bus, names, store = await open_store(nats_server.url, "host-1")
    try:
        seats: list[Occupant] = [keyed("ana", 1), keyed("beto", 2)]
        actor = TableActor("t1", "argentino", {"match_games": 1, "target": 15}, seats, Viewers().send,
                           pace=FAST, seed=5, store=store, title="la mesa")  # type: ignore[arg-type]
        actor.start()
        await play_out(actor)
        await actor.stop()
        winner = actor.state.winner if actor.state is not None else None
        assert winner in (0, 1)
        for seat, name in enumerate(("ana", "beto")):
            stats = await store.player_stats(f"SHA256:{name}")
            (variant, players, rating, games, wins), = stats["ratings"]
            assert (variant, players, games, wins) == ("argentino", 2, 1, int(seat == winner))
            assert (rating > 0) == (seat == winner)
            line = stats["recent"][0]
            assert line[2] == "la mesa" and line[7] == 1
            assert line[5] >= 15 if seat == winner else line[6] >= 15  # the points, from the log
        assert [b[0] for b in await store.leaderboard("argentino", 2)] == (
            ["ana", "beto"] if winner == 0 else ["beto", "ana"])
    finally:
        await names.close()
        await bus.close()
