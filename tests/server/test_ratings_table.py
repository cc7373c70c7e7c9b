"""A real table's finished match moves the ratings of its key holders (the table writes the
match's record with its last events; the ratings go in the same transaction)."""
from __future__ import annotations

import asyncio
import random
from pathlib import Path

from server.store import Store
from server.table import Occupant, TableActor
from server.table import messages as tm
from tests.server.test_table import FAST, Viewers, play_as_the_bot_would, until


async def play_out(actor: TableActor, timeout: float = 60.0) -> None:
    """Every seat the match waits on moves as a bot would (people included), to the end."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    rng = random.Random(1)
    while not actor.finished:
        assert loop.time() < deadline, "the match did not end"
        if actor.state is not None and not actor.state.match_over:
            for seat in actor.waiting_on():
                if not actor.seats[seat].bot:
                    await play_as_the_bot_would(actor, seat, rng)
                    break
        await asyncio.sleep(0.001)


def keyed(name: str, conn: int) -> Occupant:
    occupant = Occupant(name, conn)
    occupant.fingerprint = f"SHA256:{name}"
    return occupant


async def test_a_2v2_match_of_key_holders_is_rated_and_the_one_who_left_loses(tmp_path: Path) -> None:
    store = Store(tmp_path / "db.sqlite3")
    await store.open()
    try:
        seats = [keyed(n, i + 1) for i, n in enumerate(("ana", "beto", "carla", "dani"))]
        actor = TableActor("t1", "argentino", {"match_games": 1, "target": 15}, seats, Viewers().send,
                           pace=FAST, seed=11, store=store, title="la mesa")
        actor.start()
        await until(lambda: actor.state is not None and actor.seq > 2)
        actor.post(tm.Leave(3))  # carla leaves for good: a bot plays her seat
        await until(lambda: seats[2].bot)
        await play_out(actor)
        await actor.stop()
        winner = actor.state.winner
        assert winner in (0, 1)
        for seat, name in enumerate(("ana", "beto", "carla", "dani")):
            stats = await store.player_stats(f"SHA256:{name}")
            (variant, players, rating, games, wins), = stats["ratings"]
            assert (variant, players, games) == ("argentino", 4, 1)
            won = seat % 2 == winner and seat != 2
            assert wins == int(won) and (rating > 0) == won
            line = stats["recent"][0]
            assert line[2] == "la mesa" and line[7] == 1 and bool(line[4]) == (seat == 2)
        board = await store.leaderboard("argentino", 4)
        assert len(board) == 4
    finally:
        await store.close()


async def test_a_match_against_a_bot_is_not_rated_but_counts_in_the_stats(tmp_path: Path) -> None:
    store = Store(tmp_path / "db.sqlite3")
    await store.open()
    try:
        seats = [keyed("ana", 1), Occupant("Bot 1", None, bot=True)]
        actor = TableActor("t2", "argentino", {"match_games": 1, "target": 15}, seats, Viewers().send,
                           pace=FAST, seed=3, store=store)
        actor.start()
        await play_out(actor)
        await actor.stop()
        stats = await store.player_stats("SHA256:ana")
        assert stats["ratings"] == [] and stats["totals"][0] == 1
        assert stats["totals"][2] + stats["totals"][3] >= 15  # the points of both sides
    finally:
        await store.close()
