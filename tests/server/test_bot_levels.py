"""Bot levels at a table (issue 17): the owner's choice reaches the seat, the table's
listing and every viewer; the hard level thinks off the event loop."""
from __future__ import annotations

import os

import pytest

import protocol as p
from server.table import Occupant, Pace, TableActor
from server.table.search_pool import POOL, SearchPool
from tests.server.test_hub import join
from tests.server.test_table import Viewers, until

FAST = Pace(bot_delay=0, hand_pause=0)


async def test_the_owner_chooses_each_bots_level_and_everyone_sees_it(hub) -> None:  # type: ignore[no-untyped-def]  # noqa: F811
    ana = await join(hub, "ana")
    ana.send(p.CreateTable(variant="argentino", players=4, options={}, title="niveles"))
    await ana.settle()
    table_id = ana.of(p.TableCreated)[0].table_id
    ana.send(p.AddBot(table_id=table_id, seat=1, level="easy"))
    ana.send(p.AddBot(table_id=table_id, seat=2, level="godlike"))
    await ana.settle()
    assert ana.of(p.Error)[-1].code == "bad_level"
    ana.send(p.AddBot(table_id=table_id, seat=2))  # no level: the default
    ana.send(p.AddBot(table_id=table_id, seat=3, level="hard"))
    await ana.settle()
    table = hub.tables[table_id]
    assert [o.level if o is not None and o.bot else None for o in table.seats] == [
        None, "easy", "normal", "hard"]
    listed = [m.table for m in ana.of(p.TableUpdated) if m.table.table_id == table_id][-1]
    assert listed.bot_levels == ("", "easy", "normal", "hard")
    await until(lambda: any(isinstance(m, p.TableUpdate) for m in ana.inbox) or ana.link.queued > 0)
    await ana.settle()
    update = [m for m in ana.inbox if isinstance(m, p.TableUpdate)][-1]
    assert [(s.bot, s.level) for s in update.seats] == [
        (False, ""), (True, "easy"), (True, "normal"), (True, "hard")]


def test_a_bots_level_survives_a_restart_record() -> None:
    bot = Occupant("Bot 1", None, bot=True, level="hard")
    assert Occupant.from_record(bot.to_record()).level == "hard"
    odd = dict(bot.to_record(), level="godlike")  # a record from elsewhere: played as normal
    assert Occupant.from_record(odd).level == "normal"


@pytest.mark.slow
async def test_a_hard_bot_searches_in_another_process_and_its_table_plays_on() -> None:
    """Three hands with a hard bot (a whole match took 30 s of the suite; the other levels'
    tables play whole matches in tests/server/test_table.py)."""
    POOL.pids.clear()
    seats = [Occupant("Bot 1", None, bot=True, level="hard"), Occupant("Bot 2", None, bot=True, level="easy")]
    actor = TableActor("t", "argentino", {"target": 15, "match_games": 1}, seats, Viewers().send,
                       pace=FAST, seed=7)
    actor.start()
    try:
        await until(lambda: actor.finished or (actor.state is not None and actor.state.deal_no > 3), timeout=120)
    finally:
        await actor.stop()
    assert actor.state is not None and (actor.state.match_over or actor.state.deal_no > 3)
    assert POOL.pids and os.getpid() not in POOL.pids  # it searched, never in this process


async def test_a_search_process_that_dies_answers_none_and_the_next_search_runs() -> None:
    pool = SearchPool(workers=1)
    try:
        assert await pool.run(os._exit, 3) is None  # the worker dies under the search
        assert await pool.run(abs, -4) == 4  # a new pool took over
        assert pool.pids and os.getpid() not in pool.pids
        with pytest.raises(ZeroDivisionError):  # the search's own failure reaches the caller
            await pool.run(divmod, 1, 0)
    finally:
        pool.shutdown()


def test_a_search_starts_while_a_terminal_apps_capture_is_the_processs_stderr() -> None:
    """A running Textual app replaces sys.stderr with a capture whose fileno() is -1; the
    pool's first search must still start its processes (a hard bot on a server with a
    terminal session searched never: "bad value(s) in fds_to_keep"). In a process of its
    own: multiprocessing starts its resource tracker once per process."""
    import subprocess
    import sys
    from pathlib import Path

    script = (
        "import asyncio, sys\n"
        "from server.table.search_pool import SearchPool\n"
        "class Capture:\n"
        "    def write(self, text): return len(text)\n"
        "    def flush(self): pass\n"
        "    def fileno(self): return -1\n"
        "async def main():\n"
        "    sys.stderr = Capture()\n"
        "    pool = SearchPool(1)\n"
        "    try:\n"
        "        print(await pool.run(pow, 2, 10))\n"
        "    except Exception as exc:\n"
        "        print('failed', repr(exc))\n"
        "    finally:\n"
        "        pool.shutdown()\n"
        "asyncio.run(main())\n"
    )
    root = Path(__file__).resolve().parents[2]
    ran = subprocess.run([sys.executable, "-c", script], cwd=root, capture_output=True, text=True, timeout=120)
    assert ran.stdout.strip() == "1024", ran.stdout + ran.stderr
