"""The event log and the snapshots, as SQL on the writer thread's connection.

Every function here runs on the store's writer thread (``Store._run``), never on the loop.
"""
from __future__ import annotations

import json
import sqlite3
from typing import Iterable, Sequence

from server.store.games import write_game
from server.store.records import (
    CHAT_COLUMNS, CHAT_KEPT, EVENT_COLUMNS, SENA_COLUMNS, TABLE_COLUMNS, ChatRow, EventRow, GameRecord,
    SenaRow, Snapshot, TableRecord, event_row, sena_row, table_record,
)

OPEN_TABLES = f"SELECT {TABLE_COLUMNS} FROM tables WHERE closed_at IS NULL ORDER BY created_at"


def append(db: sqlite3.Connection, table_id: str, params: list[tuple[object, ...]],
           games: Iterable[tuple[GameRecord, list[tuple[int, str, str | None]]]],
           snapshot: Snapshot | None, senas: Sequence[SenaRow] = (), chat: Sequence[ChatRow] = ()) -> None:
    """Events, the records of the matches they finish, the latest snapshot and the señas
    and chat lines said since, in one transaction: a crash keeps all of them or none. Only
    the latest hand's señas are kept (a seña is about the cards of its hand), and the
    latest ``CHAT_KEPT`` chat lines."""
    db.execute("BEGIN")
    try:
        write_append(db, table_id, params, games, snapshot, senas, chat)
    except BaseException:
        db.execute("ROLLBACK")
        raise
    db.execute("COMMIT")


def write_append(db: sqlite3.Connection, table_id: str, params: list[tuple[object, ...]],
                 games: Iterable[tuple[GameRecord, list[tuple[int, str, str | None]]]],
                 snapshot: Snapshot | None, senas: Sequence[SenaRow] = (), chat: Sequence[ChatRow] = ()) -> None:
    """``append``'s writes, inside a transaction the caller opened (several tables' appends
    share one commit: the writer's group commit, server/store/database.py)."""
    db.executemany(
        "INSERT INTO events (table_id, seq, match_no, data, seat, cid, ts)"
        " VALUES (?,?,?,?,?,?,?)", params,
    )
    if senas:
        last = senas[-1]
        db.execute("DELETE FROM senas WHERE table_id = ? AND NOT (match_no = ? AND deal_no = ?)",
                   (table_id, last.match_no, last.deal_no))
        db.executemany(
            "INSERT OR REPLACE INTO senas (table_id, match_no, deal_no, n, seat, sena, seen)"
            " VALUES (?,?,?,?,?,?,?)",
            [(table_id, r.match_no, r.deal_no, r.n, r.seat, r.sena, json.dumps(list(r.seen)))
             for r in senas if (r.match_no, r.deal_no) == (last.match_no, last.deal_no)],
        )
    if chat:
        db.executemany("INSERT OR REPLACE INTO table_chat (table_id, n, sender, text, ts) VALUES (?,?,?,?,?)",
                       [(table_id, r.n, r.sender, r.text, r.ts) for r in chat])
        db.execute("DELETE FROM table_chat WHERE table_id = ? AND n <= ?",
                   (table_id, max(r.n for r in chat) - CHAT_KEPT))
    for game, players in games:
        write_game(db, game, players)
    if snapshot is not None:
        db.execute(
            "INSERT OR REPLACE INTO snapshots (table_id, match_no, seq, state)"
            " VALUES (?,?,?,?)", (table_id, snapshot.match_no, snapshot.seq, snapshot.state),
        )


def update_seats(db: sqlite3.Connection, table_id: str, seats: list[dict[str, object]]) -> None:
    db.execute("UPDATE tables SET seats = ? WHERE table_id = ?", (json.dumps(seats), table_id))


def open_tables(db: sqlite3.Connection, with_log: bool) -> list[TableRecord]:
    """Every table that may resume; ``with_log``: with everything ever logged there."""
    records = [table_record(row) for row in db.execute(OPEN_TABLES).fetchall()]
    if with_log:
        for record in records:
            record.events = [
                event_row(row) for row in db.execute(
                    f"SELECT {EVENT_COLUMNS} FROM events WHERE table_id = ? ORDER BY seq",
                    (record.table_id,),
                )
            ]
            record.senas = current_senas(db, record.table_id)
            record.chat = current_chat(db, record.table_id)
    return records


def current_match(db: sqlite3.Connection, table_id: str) -> tuple[Snapshot | None, list[EventRow]]:
    """The current match of a table: its latest snapshot and the events its replay needs."""
    last = db.execute(
        "SELECT match_no FROM events WHERE table_id = ? ORDER BY seq DESC LIMIT 1", (table_id,)
    ).fetchone()
    if last is None:
        return None, []
    match_no = last[0]
    snap = db.execute(
        "SELECT seq, state FROM snapshots WHERE table_id = ? AND match_no = ?", (table_id, match_no)
    ).fetchone()
    first = db.execute(
        "SELECT MIN(seq) FROM events WHERE table_id = ? AND match_no = ?", (table_id, match_no)
    ).fetchone()[0]
    snapshot = None if snap is None else Snapshot(match_no, snap[0], snap[1])
    query = f"SELECT {EVENT_COLUMNS} FROM events WHERE table_id = ?"
    if snapshot is None:
        found = db.execute(query + " AND seq >= ? ORDER BY seq", (table_id, first)).fetchall()
    else:  # the match's opening event, then what follows the snapshot (two key ranges:
        # one query with OR would read every event of the table)
        found = db.execute(query + " AND seq = ?", (table_id, first)).fetchall()
        found += db.execute(query + " AND seq > ? ORDER BY seq", (table_id, snapshot.seq)).fetchall()
    return snapshot, [event_row(row) for row in found]


def match_events(db: sqlite3.Connection, table_id: str, match_no: int) -> list[EventRow]:
    return [
        event_row(row) for row in db.execute(
            f"SELECT {EVENT_COLUMNS} FROM events WHERE table_id = ? AND match_no = ? ORDER BY seq",
            (table_id, match_no),
        )
    ]


def current_senas(db: sqlite3.Connection, table_id: str) -> list[SenaRow]:
    """The señas kept for a table (those of its latest hand that had any), in order."""
    return [sena_row(row) for row in db.execute(
        f"SELECT {SENA_COLUMNS} FROM senas WHERE table_id = ? ORDER BY match_no, deal_no, n", (table_id,))]


def current_chat(db: sqlite3.Connection, table_id: str) -> list[ChatRow]:
    """A table's latest chat lines, oldest first."""
    rows = db.execute(f"SELECT {CHAT_COLUMNS} FROM table_chat WHERE table_id = ? ORDER BY n DESC LIMIT ?",
                      (table_id, CHAT_KEPT)).fetchall()
    return [ChatRow(*row) for row in reversed(rows)]
