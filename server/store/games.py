"""Finished games ("My games" and their replays), as SQL on the writer thread's connection."""
from __future__ import annotations

import dataclasses
import json
import sqlite3
from typing import Any

from server.store.ratings import record_deserted, record_match
from server.store.records import EventRow, GameRecord, unpack_event

GAME_COLUMNS = ("g.table_id, g.match_no, g.variant, g.title, g.seats, g.scores, g.winner,"
                " g.hands, g.finished_at, g.deal_secret")


def write_game(db: sqlite3.Connection, game: GameRecord,
               players: list[tuple[int, str, str | None]]) -> None:
    """A finished match and who played it (inside the caller's transaction)."""
    _write_row(db, game, players)
    # The match's events are in the log already (the same transaction, written first).
    events = [unpack_event(data) for (data,) in db.execute(
        "SELECT data FROM events WHERE table_id = ? AND match_no = ? ORDER BY seq",
        (game.table_id, game.match_no))]
    record_match(db, game, players, events)


def write_deserted(db: sqlite3.Connection, game: GameRecord,
                   players: list[tuple[int, str, str | None]]) -> None:
    """A match every person left before its end (inside the caller's transaction): kept with
    nobody's win, in My games and with the proof of its deals; a loss for each if rated."""
    _write_row(db, dataclasses.replace(game, winner=None), players)
    record_deserted(db, game, players)


def _write_row(db: sqlite3.Connection, game: GameRecord, players: list[tuple[int, str, str | None]]) -> None:
    db.execute(
        "INSERT OR REPLACE INTO games (table_id, match_no, variant, title, seats,"
        " scores, winner, hands, finished_at, deal_secret) VALUES (?,?,?,?,?,?,?,?,?,?)",
        (game.table_id, game.match_no, game.variant, game.title,
         json.dumps(game.seats), json.dumps(game.scores), game.winner, game.hands,
         game.finished_at, game.deal_secret),
    )
    db.executemany(
        "INSERT OR REPLACE INTO game_players (table_id, match_no, seat, name_key,"
        " fingerprint) VALUES (?,?,?,?,?)",
        [(game.table_id, game.match_no, seat, key, fp) for seat, key, fp in players],
    )


def _whose(fingerprint: str | None, name_key: str) -> tuple[str, tuple[Any, ...]]:
    # Key holders are known by their key; a guest only by the name they played under.
    if fingerprint is not None:
        return "gp.fingerprint = ?", (fingerprint,)
    return "gp.fingerprint IS NULL AND gp.name_key = ?", (name_key,)


def _game(r: tuple[Any, ...]) -> GameRecord:
    return GameRecord(r[0], r[1], r[2], r[3], json.loads(r[4]), json.loads(r[5]), r[6], r[7], r[8],
                      deal_secret=r[9])


def my_games(db: sqlite3.Connection, fingerprint: str | None, name_key: str, limit: int) -> list[GameRecord]:
    where, args = _whose(fingerprint, name_key)
    rows = db.execute(
        f"SELECT DISTINCT {GAME_COLUMNS} FROM games g JOIN game_players gp"
        " ON gp.table_id = g.table_id AND gp.match_no = g.match_no"
        f" WHERE {where} ORDER BY g.finished_at DESC LIMIT ?", (*args, limit),
    ).fetchall()
    return [_game(r) for r in rows]


def game_log(db: sqlite3.Connection, table_id: str, match_no: int, fingerprint: str | None,
             name_key: str) -> tuple[GameRecord, list[EventRow]] | None:
    """A finished game the asker played in, and its events in order (else None)."""
    where, args = _whose(fingerprint, name_key)
    r = db.execute(
        f"SELECT {GAME_COLUMNS} FROM games g JOIN game_players gp"
        " ON gp.table_id = g.table_id AND gp.match_no = g.match_no"
        f" WHERE g.table_id = ? AND g.match_no = ? AND {where} LIMIT 1",
        (table_id, match_no, *args),
    ).fetchone()
    if r is None:
        return None
    events = [
        EventRow(seq, match_no, unpack_event(data)) for seq, data in db.execute(
            "SELECT seq, data FROM events WHERE table_id = ? AND match_no = ? ORDER BY seq",
            (table_id, match_no),
        )
    ]
    return _game(r), events
