"""SQLite persistence, used only from one writer thread so the event loop never blocks.

The ``Store`` queues every query on that thread (in the order asked); the SQL itself is
in ``schema`` (versions, checks), ``events`` (the tables' logs and snapshots) and
``games`` (finished games).
"""
from __future__ import annotations

import asyncio
import json
import sqlite3
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, Callable, Iterable, TypeVar

from server.ops import metrics
from server.store import events as event_sql
from server.store import games as game_sql
from server.store import moderation as moderation_sql
from server.store import ratings as rating_sql
from server.store.records import (
    ChatRow, EventRow, GameRecord, Reservation, SenaRow, Snapshot, TableRecord, pack_event,
)
from server.store.group_commit import GroupCommit
from server.moderation.reports import Report
from server.moderation.restrictions import Restriction
from server.store.schema import StoreError, open_database, quick_check

T = TypeVar("T")


class Store:
    def __init__(self, path: Path) -> None:
        self.path = path
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="truco-store")
        self._db: sqlite3.Connection | None = None
        self._group = GroupCommit(self._submit, self._conn)

    # -- lifecycle (the connection lives on the writer thread) ---------------
    async def open(self, check: bool = True) -> None:
        """Open (and migrate) the database; ``check=False`` leaves the integrity check, which
        reads the whole file, to ``check()`` (the server runs it while tables restore)."""
        self._db = await self._run(open_database, self.path, check)

    async def check(self) -> None:
        """PRAGMA quick_check on a connection of its own (StoreError if the file is damaged)."""
        await asyncio.to_thread(quick_check, self.path)

    async def close(self) -> None:
        if self._db is not None:
            await self._run(self._db.close)
            self._db = None
        self._executor.shutdown(wait=True)

    def _run(self, fn: Callable[..., T], *args: Any) -> "asyncio.Future[T]":
        """Queue ``fn`` on the writer thread now; the result is awaitable.

        Submitted at the call, not when awaited: writes run in the order they were asked
        for, also when synchronous code (the hub) fires them without waiting.
        """
        self._group.close_batch()  # appends asked for after this are committed after it
        return self._submit(fn, *args)

    def _submit(self, fn: Callable[..., T], *args: Any) -> "asyncio.Future[T]":
        loop = asyncio.get_running_loop()
        return loop.run_in_executor(self._executor, fn, *args)

    def _on_db(self, fn: Callable[..., T], *args: Any) -> "asyncio.Future[T]":
        """``fn(connection, *args)`` on the writer thread (see ``_run``)."""
        return self._run(lambda: fn(self._conn(), *args))

    async def _read_at_start(self, fn: Callable[..., T], *args: Any) -> T:
        """A read the server needs before it listens: a damaged file is a StoreError (reported,
        exit status 2), like at ``open``."""
        try:
            return await self._on_db(fn, *args)
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"{self.path}: cannot read the database: {exc}") from exc

    def _conn(self) -> sqlite3.Connection:
        if self._db is None:
            raise StoreError("store is not open")
        return self._db

    # -- players ---------------------------------------------------------------
    async def reservations(self) -> list[Reservation]:
        def load(db: sqlite3.Connection) -> list[Reservation]:
            return [Reservation(*row) for row in db.execute("SELECT name_key, name, fingerprint FROM players")]

        return await self._read_at_start(load)

    async def reserve(self, name_key: str, name: str, fingerprint: str) -> None:
        def write(db: sqlite3.Connection) -> None:
            now = int(time.time())
            db.execute(
                "INSERT INTO players (name_key, name, fingerprint, created_at, last_seen)"
                " VALUES (?, ?, ?, ?, ?)"
                " ON CONFLICT(name_key) DO UPDATE SET last_seen = excluded.last_seen"
                " WHERE fingerprint = excluded.fingerprint",
                (name_key, name, fingerprint, now, now),
            )

        await self._on_db(write)

    # -- the operators' bans, mutes and actions (server/moderation/) ---------------------------
    async def restrictions(self) -> list[Restriction]:
        return await self._read_at_start(moderation_sql.in_force)

    async def restrict(self, what: str, on: str, target: str, until: float, reason: str, by: str) -> Restriction:
        return await self._on_db(moderation_sql.restrict, what, on, target, until, reason, by, time.time())

    async def lift(self, number: int, by: str) -> bool:
        return await self._on_db(moderation_sql.lift, number, by, time.time())

    async def note_action(self, by: str, action: str, target: str, reason: str) -> None:
        def write(db: sqlite3.Connection) -> None:
            with moderation_sql.transaction(db):
                moderation_sql.note(db, time.time(), by, action, target, reason)

        await self._on_db(write)

    async def moderation_log(self, limit: int) -> list[tuple[float, str, str, str, str]]:
        return await self._on_db(moderation_sql.log_lines, limit)

    async def add_report(self, report: Report) -> int:
        return await self._on_db(moderation_sql.add_report, report)

    async def latest_reports(self) -> list[Report]:
        return await self._on_db(moderation_sql.latest_reports)

    async def settle_reports(self, number: int, by: str, reason: str) -> list[Report]:
        return await self._on_db(moderation_sql.settle_reports, number, by, reason, time.time())

    async def named_operators(self) -> dict[str, tuple[str, float]]:
        return await self._on_db(moderation_sql.named_operators)

    async def name_operator(self, fingerprint: str, on: bool, by: str) -> bool:
        return await self._on_db(moderation_sql.name_operator, fingerprint, on, by, time.time())

    async def listening(self, fingerprint: str) -> tuple[list[str], str]:
        return await self._on_db(moderation_sql.listening, fingerprint)

    async def keep_listening(self, fingerprint: str, names: list[str], hear: str) -> None:
        await self._on_db(moderation_sql.keep_listening, fingerprint, names, hear)

    # -- tables and their event log --------------------------------------------------------
    def create_table(self, record: TableRecord) -> "asyncio.Future[None]":
        def write(db: sqlite3.Connection) -> None:
            db.execute(
                "INSERT INTO tables (table_id, title, variant, options, owner, private, code,"
                " turn_timer, seats, seed, demo, created_at) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
                (record.table_id, record.title, record.variant, json.dumps(record.options),
                 record.owner, int(record.private), record.code, record.turn_timer,
                 json.dumps(record.seats), record.seed, int(record.demo), int(time.time())),
            )

        return self._on_db(write)

    async def append(
        self, table_id: str, rows: Iterable[EventRow],
        games: Iterable[tuple[GameRecord, list[tuple[int, str, str | None]]]] = (),
        snapshot: Snapshot | None = None, senas: Iterable[SenaRow] = (), chat: Iterable[ChatRow] = (),
    ) -> None:
        """Append events (and the señas and table chat lines said meanwhile) in one
        transaction; returns once they are committed.

        The records of the matches these events finish, and the table's latest snapshot, go
        in the same transaction: a crash keeps all of them or none ("My games" never misses
        a match whose end is in the log).
        """
        now = time.time()
        params: list[tuple[object, ...]] = [
            (table_id, r.seq, r.match_no, pack_event(r.data), r.seat, r.cid, now) for r in rows
        ]
        # With the other tables' appends waiting meanwhile: one transaction, one sync for all.
        with metrics.EVENT_WRITE.time():
            await self._group.append((table_id, params, list(games), snapshot, list(senas), list(chat)))

    def update_seats(self, table_id: str, seats: list[dict[str, Any]]) -> "asyncio.Future[None]":
        return self._on_db(event_sql.update_seats, table_id, seats)

    def close_table(self, table_id: str) -> "asyncio.Future[None]":
        def write(db: sqlite3.Connection) -> None:
            db.execute(
                "UPDATE tables SET closed_at = ? WHERE table_id = ? AND closed_at IS NULL",
                (int(time.time()), table_id),
            )
            db.execute("DELETE FROM senas WHERE table_id = ?", (table_id,))  # no hand to come back to
            db.execute("DELETE FROM table_chat WHERE table_id = ?", (table_id,))

        return self._on_db(write)

    async def open_tables(self) -> list[TableRecord]:
        """Every table that may resume, with its whole event log in order.

        Reads everything ever logged at those tables (tools, tests): a restart reads only
        what its replay needs (``restart_tables``).
        """
        return await self._on_db(event_sql.open_tables, True)

    async def restart_tables(self) -> list[TableRecord]:
        """Every table that may resume, with what its replay needs (see ``load_matches``)."""
        records = await self.table_index()
        await self.load_matches(records)
        return records

    async def table_index(self) -> list[TableRecord]:
        """Every table that may resume, without its log (quick: one row per table)."""
        return await self._read_at_start(event_sql.open_tables, False)

    async def load_matches(self, records: list[TableRecord]) -> None:
        """Fill in each record's current match: its snapshot and the events after it.

        Earlier matches are never read: a restart costs the same whatever the history.
        """

        def load(db: sqlite3.Connection) -> None:
            for record in records:
                record.snapshot, record.events = event_sql.current_match(db, record.table_id)
                record.senas = event_sql.current_senas(db, record.table_id)
                record.chat = event_sql.current_chat(db, record.table_id)

        await self._on_db(load)

    async def match_events(self, table_id: str, match_no: int) -> list[EventRow]:
        """Every event of one match of a table, in order (for tools and tests)."""
        return await self._on_db(event_sql.match_events, table_id, match_no)

    # -- when the server was last alive (what a running turn timer had used up) -----------
    def mark_alive(self, when: float | None = None) -> "asyncio.Future[None]":
        stamp = time.time() if when is None else when

        def write(db: sqlite3.Connection) -> None:
            db.execute("INSERT OR REPLACE INTO meta (key, value) VALUES ('alive_at', ?)", (stamp,))

        return self._on_db(write)

    async def last_alive(self) -> float | None:
        def load(db: sqlite3.Connection) -> float | None:
            row = db.execute("SELECT value FROM meta WHERE key = 'alive_at'").fetchone()
            return None if row is None else float(row[0])

        return await self._read_at_start(load)

    # -- finished games --------------------------------------------------------------------
    async def finish_game(self, game: GameRecord, players: list[tuple[int, str, str | None]]) -> None:
        """Record a finished match; ``players`` holds (seat, name key, fingerprint) per human.

        Tables record their matches with their last events (``append``); this is for tools.
        """

        def write(db: sqlite3.Connection) -> None:
            db.execute("BEGIN")
            try:
                game_sql.write_game(db, game, players)
            except BaseException:
                db.execute("ROLLBACK")
                raise
            db.execute("COMMIT")

        await self._on_db(write)

    async def my_games(self, fingerprint: str | None, name_key: str, limit: int = 50) -> list[GameRecord]:
        return await self._on_db(game_sql.my_games, fingerprint, name_key, limit)

    async def game_log(
        self, table_id: str, match_no: int, fingerprint: str | None, name_key: str
    ) -> tuple[GameRecord, list[EventRow]] | None:
        """A finished game the asker played in, and its events in order (else None)."""
        return await self._on_db(game_sql.game_log, table_id, match_no, fingerprint, name_key)

    # -- ratings and stats (written with each finished match: ``games``) ------------------
    def desert(self, game: GameRecord, players: list[tuple[int, str, str | None]]) -> "asyncio.Future[None]":
        """Everybody left a match before its end: kept (My games, the proof of its deals) with
        nobody's win, and a loss for each of them if it was rated."""
        def write(db: sqlite3.Connection) -> None:
            with moderation_sql.transaction(db):
                game_sql.write_deserted(db, game, players)

        return self._on_db(write)

    async def player_stats(self, fingerprint: str, recent: int = 20) -> dict[str, Any]:
        """A key holder's totals, ratings and last ``recent`` matches (``ratings.player_stats``)."""
        return await self._on_db(rating_sql.player_stats, fingerprint, recent)

    async def leaderboard(self, variant: str, players: int, limit: int = 20) -> list[tuple[str, float, int, int, int]]:
        """(name, rating, games, wins, left) of the best rated at a variant and table size."""
        return await self._on_db(rating_sql.leaderboard, variant, players, limit)
