"""SIGKILL at the moment the server's own move ends a match; the player comes back to it.

After a crash every human is away at once while the bots carry on. Here the table's log
stops where, by the table's seed, the bot's next move ends the match (the bots' choices are
drawn from ``Random(f"{seed}/bot/{seq}")``, so the position and the move are known ahead).
The server is started on that log, as after a crash; the bot moves while ana is away and the
match ends; the server is killed (SIGKILL) the moment that move is in the log, before any
rematch. At the next start ana connects over real SSH with her key, as a program (the `truco`
subsystem): she is back at her seat, told the match is over with the final score, and asks
for a rematch, which starts. (How the screen shows a finished match: tests/tui.)
"""
from __future__ import annotations

import asyncio
import json
import signal
import sqlite3
import time
from pathlib import Path

import asyncssh
import pytest

import engine
import protocol as p
from protocol.client import Client
from server.store import EventRow, Store, TableRecord, check_database, unpack_event
from server.table import Occupant, Pace, TableActor
from server.variants import validate_options
from tests.e2e.programs import dealt, update
from tests.e2e.test_crash_restart import free_port, start

pytestmark = pytest.mark.e2e

OPTIONS = {"target": 15, "match_games": 1, "flor": False}
SERVER = ("--bot-delay", "1.0", "--hand-pause", "0", "--seat-hold", "300", "--away-grace", "60")


async def bot_ends_it(seed: str, options: dict[str, object]) -> tuple[list[EventRow], tuple[int, ...]] | None:
    """The log of a bot-played match up to the move that ends it, if that move is seat 1's
    and seat 1 alone is waited on there; and the final scores. None for other seeds."""
    sent: list[bytes] = []
    actor = TableActor("probe", "argentino", options, [Occupant(f"Bot {i}", None, bot=True) for i in range(2)],
                       lambda conn, frame: sent.append(frame), pace=Pace(bot_delay=0, hand_pause=0),
                       seed=seed)
    actor.start()
    while not actor.finished:
        await asyncio.sleep(0.001)
    await actor.stop()
    assert actor.state is not None
    last = max(i for i, e in enumerate(actor.events) if isinstance(e, engine.Acted))
    if actor.events[last].seat != 1:  # type: ignore[attr-defined]
        return None
    rows = [EventRow(i + 1, 1, e.to_wire()) for i, e in enumerate(actor.events[:last])]
    # The position, as the server will restore it with ana (a person) in seat 0.
    check = TableActor("probe", "argentino", options,
                       [Occupant("ana", None, away=True), Occupant("Bot 1", None, bot=True)],
                       lambda conn, frame: None, seed=seed)
    check.restore(rows)
    if check.finished or check.waiting_on() != (1,):
        return None
    return rows, actor.state.scores


def logged_types(db: Path) -> list[str]:
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        return [unpack_event(d)["type"] for (d,) in con.execute("SELECT data FROM events ORDER BY seq")]
    finally:
        con.close()


def games_rows(db: Path) -> list[tuple[int, str]]:
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        return con.execute("SELECT match_no, scores FROM games").fetchall()
    finally:
        con.close()


async def test_killed_as_the_bots_move_ends_the_match_the_player_finds_the_final_score_and_rematches(
        tmp_path: Path) -> None:
    key = asyncssh.generate_private_key("ssh-ed25519")
    options = validate_options("argentino", 2, dict(OPTIONS))
    found = None
    for n in range(60):
        found = await bot_ends_it(f"crash-seed-{n}", options)
        if found is not None:
            seed = f"crash-seed-{n}"
            break
    assert found is not None, "no seed in 60 where the bot's move ends the match"
    rows, final = found

    db = tmp_path / "data" / "truco.sqlite3"
    store = Store(db)
    await store.open()
    seats = [Occupant("ana", None), Occupant("Bot 1", None, bot=True)]
    seats[0].fingerprint = str(key.get_fingerprint("sha256"))
    await store.create_table(TableRecord("tcrash", "crash", "argentino", dict(options), "ana", False, "", 0,
                                         [o.to_record() for o in seats], seed))
    await store.append("tcrash", rows)
    await store.close()

    port = free_port()
    proc, restored = start(tmp_path, port, *SERVER)
    try:
        assert restored["tcrash"][1] == len(rows)  # back at the position, ana away
        deadline = time.monotonic() + 20
        while "match_ended" not in logged_types(db):  # the bot thinks for a second, then ends it
            assert time.monotonic() < deadline, "the bot did not move"
            await asyncio.sleep(0.01)
    finally:
        proc.send_signal(signal.SIGKILL)  # the moment the server's move is in the log
        proc.wait(timeout=15)
    types = logged_types(db)
    assert types[-1] == "match_ended" and types.count("match_started") == 1  # no rematch yet
    assert check_database(db)["integrity"] == "ok"
    # "My games" has it: its record was written with its last events.
    assert [(m, tuple(json.loads(s))) for m, s in games_rows(db)] == [(1, tuple(final))]

    proc, restored = start(tmp_path, port, *SERVER)
    client: Client | None = None
    try:
        assert "tcrash" in restored  # the table, not closed: the match is over, a rematch possible
        client = await Client.connect("127.0.0.1", port, "ana", client_keys=[key], timeout=10)
        over = await update(client, lambda u: u.table_id == "tcrash")
        assert over.seat == 0 and over.view.match_over
        assert over.view.scores == final and over.view.winner == (0 if final[0] > final[1] else 1)
        await client.send(p.Rematch(table_id="tcrash"))
        # The rematch starts at once (the bot does not vote): a new deal, cards in hand.
        again = await update(client, lambda u: dealt(u) and not u.view.match_over)
        assert again.view.scores == (0, 0)
        assert logged_types(db).count("match_started") == 2
    finally:
        if client is not None:
            await client.close()
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=15)
    assert proc.returncode == 0
