"""Ratings and stats: written with a finished match's record, read by the stats screen and
the leaderboards. Rated 1v1, 2v2 and 3v3; unrated with a bot or a guest; abandoning loses."""
from __future__ import annotations

from pathlib import Path
from typing import AsyncIterator

import pytest

import engine
from engine.core.events import Scoring
import protocol as p
from server.store import EventRow, GameRecord, Store, TableRecord
from server.store.match_stats import match_stats
from server.store.ratings import MODEL, new_ratings, ordinal


def hand(*events: engine.Event) -> list[dict[str, object]]:
    deal = engine.HandDealt(1, 0, "normal", (None, None), None)
    return [deal.to_wire(), *(e.to_wire() for e in events)]


# Team 0 wins an envido and a truco; team 1 refuses a retruco of team 0 in the second hand
# and wins a hand without any truco call (no truco won for that).
EVENTS = (
    hand(engine.Acted(1, "envido"), engine.Acted(0, "quiero"),
         engine.PointsScored(0, 2, Scoring.ENVIDO, (2, 0)),
         engine.Acted(0, "truco"), engine.Acted(1, "quiero"),
         engine.PointsScored(0, 2, Scoring.TRUCO, (4, 0)))
    + hand(engine.Acted(0, "truco"), engine.Acted(1, "no_quiero"),
           engine.PointsScored(0, 1, Scoring.TRUCO_DECLINED, (5, 0)))
    + hand(engine.PointsScored(1, 1, Scoring.TRUCO, (5, 1)))
)


def test_the_log_counts_points_envidos_and_trucos_per_team() -> None:
    ours, theirs = match_stats(EVENTS)
    assert (ours.points_for, ours.envidos_won, ours.trucos_won, ours.trucos_refused) == (5, 1, 2, 0)
    assert (theirs.points_for, theirs.envidos_won, theirs.trucos_won, theirs.trucos_refused) == (1, 0, 0, 1)


@pytest.fixture
async def store(tmp_path: Path) -> AsyncIterator[Store]:
    store = Store(tmp_path / "db.sqlite3")
    await store.open()
    yield store
    await store.close()


async def finish(store: Store, table_id: str, names: list[str], fps: list[str | None], winner: int,
                 *, bots: tuple[int, ...] = (), abandoned: tuple[int, ...] = (), at: int = 1000) -> None:
    """A finished match as a table writes it: its events and its record in one append."""
    n = len(names)
    await store.create_table(TableRecord(
        table_id=table_id, title=f"mesa {table_id}", variant="argentino", options={}, owner=names[0],
        private=False, code="", turn_timer=0, seats=[], seed="s"))
    rows = [EventRow(i + 1, 1, e) for i, e in enumerate(EVENTS)]
    scores = [5, 1] if winner == 0 else [1, 5]
    game = GameRecord(table_id, 1, "argentino", f"mesa {table_id}", names, scores, winner, 3, at,
                      abandoned=abandoned)
    players = [(s, names[s], fps[s]) for s in range(n) if s not in bots]
    await store.append(table_id, rows, games=[(game, players)])


def keys(n: int) -> list[str | None]:
    return [f"SHA256:p{i}" for i in range(n)]


@pytest.mark.parametrize("n", [2, 4, 6])
async def test_a_match_between_key_holders_moves_every_rating(store: Store, n: int) -> None:
    names = [f"p{i}" for i in range(n)]
    await finish(store, "t1", names, keys(n), winner=0)
    fresh = MODEL.rating()
    for seat in range(n):
        stats = await store.player_stats(f"SHA256:p{seat}")
        (variant, players, rating, games, wins), = stats["ratings"]
        assert (variant, players, games) == ("argentino", n, 1)
        won = seat % 2 == 0
        assert wins == int(won)
        assert (rating > ordinal(fresh.mu, fresh.sigma)) if won else (rating < ordinal(fresh.mu, fresh.sigma))
        games_, wins_, pf, pa, envidos, trucos, refused = stats["totals"]
        assert (games_, wins_) == (1, int(won))
        assert (pf, pa, envidos, trucos, refused) == ((5, 1, 1, 2, 0) if won else (1, 5, 0, 0, 1))
        line = stats["recent"][0]
        assert line[2] == "mesa t1" and bool(line[3]) == won and line[7] == 1
        assert (line[8] > 0) == won  # the rating's change
    # the same result for partners: one team, one update
    after = {s: (await store.player_stats(f"SHA256:p{s}"))["ratings"][0][2] for s in range(n)}
    assert len({round(after[s], 9) for s in range(0, n, 2)}) == 1
    assert len({round(after[s], 9) for s in range(1, n, 2)}) == 1
    assert min(after[s] for s in range(0, n, 2)) > max(after[s] for s in range(1, n, 2))


async def test_a_bot_or_a_guest_makes_a_match_unrated_but_key_holders_keep_stats(store: Store) -> None:
    await finish(store, "t1", ["ana", "Bot 1"], ["SHA256:ana", None], winner=0, bots=(1,))
    await finish(store, "t2", ["ana", "guest"], ["SHA256:ana", None], winner=0, at=2000)
    stats = await store.player_stats("SHA256:ana")
    assert stats["ratings"] == []
    assert stats["totals"][:2] == (2, 2)
    assert [line[7] for line in stats["recent"]] == [0, 0]
    assert await store.leaderboard("argentino", 2) == []


async def test_abandoning_a_rated_match_is_a_loss_even_if_the_team_won(store: Store) -> None:
    names = ["ana", "beto", "carla", "dani"]
    await finish(store, "t1", names, keys(4), winner=0, abandoned=(2,))
    quitter = await store.player_stats("SHA256:p2")
    partner = await store.player_stats("SHA256:p0")
    loser = await store.player_stats("SHA256:p1")
    assert quitter["ratings"][0][4] == 0 and quitter["totals"][1] == 0  # no win
    assert quitter["recent"][0][4] == 1  # marked abandoned
    assert quitter["ratings"][0][2] < 0 < partner["ratings"][0][2]
    assert partner["ratings"][0][4] == 1 and loser["ratings"][0][4] == 0
    # The leaderboard says how often each one stayed to the end.
    left = {line[2:] for line in await store.leaderboard("argentino", 4)}
    assert left == {(1, 0, 1), (1, 1, 0), (1, 0, 0)}
    assert p.BoardLine(name="carla", rating=0, games=4, wins=0, left=1).completed == 0.75


def test_new_ratings_rate_a_quitter_as_on_the_losing_side() -> None:
    start = {s: (25.0, 25 / 3) for s in range(4)}
    normal = new_ratings(start, winner=0)
    quit_ = new_ratings(start, winner=0, abandoned=(0,))
    assert quit_[2] == normal[2] and quit_[1] == normal[1]
    assert quit_[0][0] < 25 < normal[0][0]


async def test_the_leaderboard_ranks_by_rating_with_the_keys_names(store: Store) -> None:
    for name, fp in (("ana", "SHA256:a"), ("beto", "SHA256:b"), ("carla", "SHA256:c")):
        await store.reserve(name, name.capitalize(), fp)
    await finish(store, "t1", ["ana", "beto"], ["SHA256:a", "SHA256:b"], winner=0)
    await finish(store, "t2", ["ana", "carla"], ["SHA256:a", "SHA256:c"], winner=0, at=2000)
    await finish(store, "t3", ["beto", "carla"], ["SHA256:b", "SHA256:c"], winner=0, at=3000)
    board = await store.leaderboard("argentino", 2)
    assert [line[0] for line in board] == ["Ana", "Beto", "Carla"]
    assert board[0][2:] == (2, 2, 0)  # games, wins, none left before the end
    assert await store.leaderboard("argentino", 4) == []


async def test_the_hub_answers_stats_to_key_holders_and_leaderboards_to_all(tmp_path: Path) -> None:
    import asyncio

    import protocol as p
    from server.config import ServerConfig
    from server.lobby import Hub
    from server.variants import validate_options, variant_infos
    from tests.server.test_hub import join

    store = Store(tmp_path / "hub.sqlite3")
    await store.open()
    await store.reserve("ana", "Ana", "SHA256:a")
    await store.reserve("beto", "Beto", "SHA256:b")
    await finish(store, "t1", ["Ana", "Beto"], ["SHA256:a", "SHA256:b"], winner=1)
    hub = Hub(ServerConfig(), variant_infos(), validate_options, store)
    await hub.load()
    task = asyncio.create_task(hub.run())
    try:
        beto = await join(hub, "Beto", "SHA256:b")
        guest = await join(hub, "invitado")
        beto.send(p.MyStats())
        guest.send(p.MyStats())
        guest.send(p.Leaderboard(variant="argentino", players=2))
        for _ in range(50):
            await asyncio.sleep(0.02)
            await beto.settle()
            await guest.settle()
            if beto.of(p.StatsReport) and guest.of(p.LeaderboardReport):
                break
        mine = beto.of(p.StatsReport)[-1]
        assert mine.keyed and (mine.games, mine.wins) == (1, 1)
        assert mine.ratings[0].players == 2 and mine.recent[0].rated and mine.recent[0].change > 0
        assert guest.of(p.StatsReport)[-1] == p.StatsReport(keyed=False)
        board = guest.of(p.LeaderboardReport)[-1]
        assert [line.name for line in board.lines] == ["Beto", "Ana"]
        # Beto's rating, read when he took his name, reaches the lobby's list of players (in the
        # guest's first list, or as news after it)
        seen = [player for snapshot in guest.of(p.LobbySnapshot) for player in snapshot.players
                if player.name == "Beto"] + [m.player for m in guest.of(p.PlayerUpdated) if m.player.name == "Beto"]
        assert seen and seen[-1].rating == mine.ratings[0].rating
    finally:
        task.cancel()
        await hub.drain_writes()
        await store.close()


async def test_a_rated_match_everyone_left_is_a_loss_for_each_and_kept_with_its_proof(tmp_path: Path) -> None:
    import asyncio

    import protocol as p
    from protocol.deal_proof import check
    from server.config import ServerConfig
    from server.lobby import Hub
    from server.variants import validate_options, variant_infos
    from tests.server.test_hub import join

    store = Store(tmp_path / "hub.sqlite3")
    await store.open()
    hub = Hub(ServerConfig(), variant_infos(), validate_options, store)
    await hub.load()
    task = asyncio.create_task(hub.run())
    try:
        ana = await join(hub, "ana", "SHA256:a")
        beto = await join(hub, "beto", "SHA256:b")
        ana.send(p.CreateTable(variant="argentino", players=2, options={}))
        await ana.settle()
        table_id = ana.of(p.TableCreated)[-1].table_id
        beto.send(p.JoinTable(table_id=table_id))
        await beto.settle()
        assert hub.tables[table_id].actor is not None  # the match runs
        await ana.until(lambda c: bool(c.of(p.DealSeal)))  # its commitment, before the first card
        ana.send(p.LeaveTable(table_id=table_id))
        await ana.settle()
        beto.send(p.LeaveTable(table_id=table_id))
        await beto.settle()
        assert table_id not in hub.tables
        await hub.drain_writes()
        for fp in ("SHA256:a", "SHA256:b"):
            stats = await store.player_stats(fp)
            (_variant, _players, rating, games, wins), = stats["ratings"]
            assert (games, wins) == (1, 0) and rating < 0
            assert stats["recent"][0][4] == 1  # abandoned
        # kept, with nobody's win: in My games, and the proof of its deals holds
        (game,) = await store.my_games("SHA256:a", "ana")
        assert (game.table_id, game.match_no, game.winner) == (table_id, 1, None)
        seal = ana.of(p.DealSeal)[0]
        ana.send(p.ProveDeals(table_id=table_id, match_no=1))
        await ana.until(lambda c: bool(c.of(p.DealsProof)))
        verdict = check(ana.of(p.DealsProof)[-1], seen_commitment=seal.commitment)
        assert verdict.holds and verdict.deals >= 1, verdict
    finally:
        task.cancel()
        await hub.drain_writes()
        await store.close()
