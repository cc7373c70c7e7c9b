"""SQLite persistence, used only from one writer thread so the event loop never blocks.

Schema versions are applied in order at start (``MIGRATIONS``); a database
that cannot be opened or checked is reported, never silently replaced.
"""
from __future__ import annotations

import asyncio
import json
import sqlite3
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, TypeVar

import msgpack

T = TypeVar("T")

MIGRATIONS: tuple[str, ...] = (
    # 1: players and the key that reserves their name
    """
    CREATE TABLE players (
        name_key    TEXT PRIMARY KEY,
        name        TEXT NOT NULL,
        fingerprint TEXT NOT NULL,
        created_at  INTEGER NOT NULL,
        last_seen   INTEGER NOT NULL
    );
    """,
    # 2: the event log of every table, the tables themselves and their finished games
    """
    CREATE TABLE tables (
        table_id    TEXT PRIMARY KEY,
        title       TEXT NOT NULL,
        variant     TEXT NOT NULL,
        options     TEXT NOT NULL,            -- JSON
        owner       TEXT NOT NULL,
        private     INTEGER NOT NULL,
        code        TEXT NOT NULL,
        turn_timer  INTEGER NOT NULL,
        seats       TEXT NOT NULL,            -- JSON: name, fingerprint, resume code, bot
        seed        TEXT NOT NULL,            -- the table's randomness (see server/table.py)
        demo        INTEGER NOT NULL DEFAULT 0,
        created_at  INTEGER NOT NULL,
        closed_at   INTEGER                   -- NULL while the table may resume
    );
    CREATE TABLE events (
        table_id TEXT NOT NULL,
        seq      INTEGER NOT NULL,            -- 1, 2, 3... per table, no gaps
        match_no INTEGER NOT NULL,
        data     BLOB NOT NULL,               -- msgpack of the engine event's wire form
        seat     INTEGER,                     -- with cid: the command that caused this event
        cid      INTEGER,
        ts       REAL NOT NULL,
        PRIMARY KEY (table_id, seq)
    ) WITHOUT ROWID;
    CREATE TABLE games (
        table_id    TEXT NOT NULL,
        match_no    INTEGER NOT NULL,
        variant     TEXT NOT NULL,
        title       TEXT NOT NULL,
        seats       TEXT NOT NULL,            -- JSON list of names
        scores      TEXT NOT NULL,            -- JSON list
        winner      INTEGER,
        hands       INTEGER NOT NULL,
        finished_at INTEGER NOT NULL,
        PRIMARY KEY (table_id, match_no)
    );
    CREATE TABLE game_players (
        table_id    TEXT NOT NULL,
        match_no    INTEGER NOT NULL,
        seat        INTEGER NOT NULL,
        name_key    TEXT NOT NULL,
        fingerprint TEXT,                     -- NULL for guests
        PRIMARY KEY (table_id, match_no, seat)
    );
    CREATE INDEX game_players_fp ON game_players (fingerprint);
    CREATE INDEX game_players_name ON game_players (name_key);
    """,
    # 3: a restart reads only what the replay needs: where each table's current match starts
    # (the index), the state before the latest deal (a snapshot), and when the server was last
    # seen alive (what a turn timer had used up when it stopped)
    """
    CREATE INDEX events_match ON events (table_id, match_no, seq);
    CREATE TABLE snapshots (
        table_id TEXT PRIMARY KEY,
        match_no INTEGER NOT NULL,
        seq      INTEGER NOT NULL,            -- the state after the events up to this one
        state    BLOB NOT NULL                -- see server/table.py snapshot_bytes
    ) WITHOUT ROWID;
    CREATE TABLE meta (
        key   TEXT PRIMARY KEY,
        value REAL NOT NULL
    ) WITHOUT ROWID;
    """,
)


class StoreError(RuntimeError):
    """The database could not be opened, checked or migrated."""


@dataclass(frozen=True)
class Reservation:
    name_key: str
    name: str
    fingerprint: str


@dataclass(frozen=True)
class EventRow:
    """One logged table event: its wire form and, for a player's command, who sent which cid."""

    seq: int
    match_no: int
    data: dict[str, Any]
    seat: int | None = None
    cid: int | None = None
    ts: float = 0.0  # when it was logged (set when read back)


@dataclass(frozen=True)
class Snapshot:
    """A table's state after event ``seq`` of match ``match_no``, as bytes the table made."""

    match_no: int
    seq: int
    state: bytes


@dataclass
class TableRecord:
    table_id: str
    title: str
    variant: str
    options: dict[str, Any]
    owner: str
    private: bool
    code: str
    turn_timer: int
    seats: list[dict[str, Any]]  # name, fp (fingerprint or None), resume (guest code), bot
    seed: str
    demo: bool = False
    # The log (``open_tables``: all of it), or what a restart needs (``load_matches``): the
    # current match's events, or with ``snapshot`` its match_started and the events after it
    events: list[EventRow] = field(default_factory=list)
    snapshot: Snapshot | None = None


@dataclass(frozen=True)
class GameRecord:
    table_id: str
    match_no: int
    variant: str
    title: str
    seats: list[str]
    scores: list[int]
    winner: int | None
    hands: int
    finished_at: int


def pack_event(data: dict[str, Any]) -> bytes:
    return msgpack.packb(data, use_bin_type=True)  # type: ignore[no-any-return]


def unpack_event(blob: bytes) -> dict[str, Any]:
    return msgpack.unpackb(blob, raw=False, strict_map_key=False)  # type: ignore[no-any-return]


def check_database(path: Path) -> dict[str, Any]:
    """Read-only health report of a database file (for operators and tests).

    ``integrity``: the result of PRAGMA integrity_check; ``gaps``: tables whose
    sequence numbers are not exactly 1..n; ``events``: rows per table.
    """
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        integrity = db.execute("PRAGMA integrity_check").fetchone()[0]
        rows = db.execute(
            "SELECT table_id, COUNT(*), MIN(seq), MAX(seq) FROM events GROUP BY table_id"
        ).fetchall()
    finally:
        db.close()
    gaps = [t for t, n, lo, hi in rows if lo != 1 or hi != n]
    return {"integrity": integrity, "gaps": gaps, "events": {t: n for t, n, _, _ in rows}}


class Store:
    def __init__(self, path: Path) -> None:
        self.path = path
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="truco-store")
        self._db: sqlite3.Connection | None = None

    # -- lifecycle (the connection lives on the writer thread) ---------------
    async def open(self, check: bool = True) -> None:
        """Open (and migrate) the database; ``check=False`` leaves the integrity check, which
        reads the whole file, to ``check()`` (the server runs it while tables restore)."""
        await self._run(self._open_sync, check)

    async def check(self) -> None:
        """PRAGMA quick_check on a connection of its own (StoreError if the file is damaged)."""

        def run() -> None:
            try:
                db = sqlite3.connect(f"file:{self.path}?mode=ro", uri=True)
                try:
                    result = db.execute("PRAGMA quick_check").fetchone()[0]
                finally:
                    db.close()
            except sqlite3.DatabaseError as exc:
                raise StoreError(f"{self.path}: cannot check the database: {exc}") from exc
            if result != "ok":
                raise StoreError(f"{self.path}: integrity check failed: {result}")

        await asyncio.to_thread(run)

    def _open_sync(self, check: bool = True) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        try:
            db = sqlite3.connect(self.path, isolation_level=None)
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=NORMAL")
            result = db.execute("PRAGMA quick_check").fetchone()[0] if check else "ok"
            if result != "ok":
                raise StoreError(f"{self.path}: integrity check failed: {result}")
            version = db.execute("PRAGMA user_version").fetchone()[0]
            if version > len(MIGRATIONS):
                raise StoreError(
                    f"{self.path}: schema version {version} is newer than this server "
                    f"({len(MIGRATIONS)}); upgrade truco-ssh"
                )
            for number in range(version, len(MIGRATIONS)):
                try:  # one transaction per step: a failed step leaves the previous version
                    db.executescript(
                        f"BEGIN; {MIGRATIONS[number]}; PRAGMA user_version={number + 1}; COMMIT;"
                    )
                except sqlite3.DatabaseError:
                    if db.in_transaction:
                        db.execute("ROLLBACK")
                    raise
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"{self.path}: cannot use the database: {exc}") from exc
        self._db = db

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
        loop = asyncio.get_running_loop()
        return loop.run_in_executor(self._executor, fn, *args)

    async def _read_at_start(self, fn: Callable[[], T]) -> T:
        """A read the server needs before it listens: a damaged file is a StoreError (reported,
        exit status 2), like at ``open``."""
        try:
            return await self._run(fn)
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"{self.path}: cannot read the database: {exc}") from exc

    def _conn(self) -> sqlite3.Connection:
        if self._db is None:
            raise StoreError("store is not open")
        return self._db

    # -- players ---------------------------------------------------------------
    async def reservations(self) -> list[Reservation]:
        def load() -> list[Reservation]:
            rows = self._conn().execute("SELECT name_key, name, fingerprint FROM players")
            return [Reservation(*row) for row in rows]

        return await self._read_at_start(load)

    async def reserve(self, name_key: str, name: str, fingerprint: str) -> None:
        def write() -> None:
            now = int(time.time())
            self._conn().execute(
                "INSERT INTO players (name_key, name, fingerprint, created_at, last_seen)"
                " VALUES (?, ?, ?, ?, ?)"
                " ON CONFLICT(name_key) DO UPDATE SET last_seen = excluded.last_seen"
                " WHERE fingerprint = excluded.fingerprint",
                (name_key, name, fingerprint, now, now),
            )

        await self._run(write)

    # -- tables and their event log --------------------------------------------------------
    def create_table(self, record: TableRecord) -> "asyncio.Future[None]":
        def write() -> None:
            self._conn().execute(
                "INSERT INTO tables (table_id, title, variant, options, owner, private, code,"
                " turn_timer, seats, seed, demo, created_at) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
                (record.table_id, record.title, record.variant, json.dumps(record.options),
                 record.owner, int(record.private), record.code, record.turn_timer,
                 json.dumps(record.seats), record.seed, int(record.demo), int(time.time())),
            )

        return self._run(write)

    async def append(
        self, table_id: str, rows: Iterable[EventRow],
        games: Iterable[tuple[GameRecord, list[tuple[int, str, str | None]]]] = (),
        snapshot: Snapshot | None = None,
    ) -> None:
        """Append events in one transaction; returns once they are committed.

        The records of the matches these events finish, and the table's latest snapshot, go
        in the same transaction: a crash keeps all of them or none ("My games" never misses
        a match whose end is in the log).
        """
        now = time.time()
        params = [
            (table_id, r.seq, r.match_no, pack_event(r.data), r.seat, r.cid, now) for r in rows
        ]
        finished = list(games)

        def write() -> None:
            db = self._conn()
            db.execute("BEGIN")
            try:
                db.executemany(
                    "INSERT INTO events (table_id, seq, match_no, data, seat, cid, ts)"
                    " VALUES (?,?,?,?,?,?,?)", params,
                )
                for game, players in finished:
                    self._write_game(db, game, players)
                if snapshot is not None:
                    db.execute(
                        "INSERT OR REPLACE INTO snapshots (table_id, match_no, seq, state)"
                        " VALUES (?,?,?,?)", (table_id, snapshot.match_no, snapshot.seq, snapshot.state),
                    )
            except BaseException:
                db.execute("ROLLBACK")
                raise
            db.execute("COMMIT")

        await self._run(write)

    def update_seats(self, table_id: str, seats: list[dict[str, Any]]) -> "asyncio.Future[None]":
        def write() -> None:
            self._conn().execute(
                "UPDATE tables SET seats = ? WHERE table_id = ?", (json.dumps(seats), table_id)
            )

        return self._run(write)

    def close_table(self, table_id: str) -> "asyncio.Future[None]":
        def write() -> None:
            self._conn().execute(
                "UPDATE tables SET closed_at = ? WHERE table_id = ? AND closed_at IS NULL",
                (int(time.time()), table_id),
            )

        return self._run(write)

    async def open_tables(self) -> list[TableRecord]:
        """Every table that may resume, with its whole event log in order.

        Reads everything ever logged at those tables (tools, tests): a restart reads only
        what its replay needs (``restart_tables``).
        """

        def load() -> list[TableRecord]:
            db = self._conn()
            records = []
            for row in db.execute(
                "SELECT table_id, title, variant, options, owner, private, code, turn_timer,"
                " seats, seed, demo FROM tables WHERE closed_at IS NULL ORDER BY created_at"
            ).fetchall():
                record = TableRecord(
                    table_id=row[0], title=row[1], variant=row[2], options=json.loads(row[3]),
                    owner=row[4], private=bool(row[5]), code=row[6], turn_timer=row[7],
                    seats=json.loads(row[8]), seed=row[9], demo=bool(row[10]),
                )
                record.events = [
                    EventRow(seq, match_no, unpack_event(data), seat, cid, ts)
                    for seq, match_no, data, seat, cid, ts in db.execute(
                        "SELECT seq, match_no, data, seat, cid, ts FROM events WHERE table_id = ?"
                        " ORDER BY seq", (record.table_id,),
                    )
                ]
                records.append(record)
            return records

        return await self._run(load)

    async def restart_tables(self) -> list[TableRecord]:
        """Every table that may resume, with what its replay needs (see ``load_matches``)."""
        records = await self.table_index()
        await self.load_matches(records)
        return records

    async def table_index(self) -> list[TableRecord]:
        """Every table that may resume, without its log (quick: one row per table)."""

        def load() -> list[TableRecord]:
            return [
                TableRecord(
                    table_id=row[0], title=row[1], variant=row[2], options=json.loads(row[3]),
                    owner=row[4], private=bool(row[5]), code=row[6], turn_timer=row[7],
                    seats=json.loads(row[8]), seed=row[9], demo=bool(row[10]),
                )
                for row in self._conn().execute(
                    "SELECT table_id, title, variant, options, owner, private, code, turn_timer,"
                    " seats, seed, demo FROM tables WHERE closed_at IS NULL ORDER BY created_at"
                )
            ]

        return await self._read_at_start(load)

    async def load_matches(self, records: list[TableRecord]) -> None:
        """Fill in each record's current match: its snapshot and the events after it.

        Earlier matches are never read: a restart costs the same whatever the history.
        """

        def load() -> None:
            db = self._conn()
            for record in records:
                record.snapshot, record.events = self._current_match(db, record.table_id)

        await self._run(load)

    @staticmethod
    def _current_match(db: sqlite3.Connection, table_id: str) -> tuple[Snapshot | None, list[EventRow]]:
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
        query = "SELECT seq, match_no, data, seat, cid, ts FROM events WHERE table_id = ?"
        if snapshot is None:
            found = db.execute(query + " AND seq >= ? ORDER BY seq", (table_id, first)).fetchall()
        else:  # the match's opening event, then what follows the snapshot (two key ranges:
            # one query with OR would read every event of the table)
            found = db.execute(query + " AND seq = ?", (table_id, first)).fetchall()
            found += db.execute(query + " AND seq > ? ORDER BY seq", (table_id, snapshot.seq)).fetchall()
        rows = [
            EventRow(seq, match, unpack_event(data), seat, cid, ts)
            for seq, match, data, seat, cid, ts in found
        ]
        return snapshot, rows

    async def match_events(self, table_id: str, match_no: int) -> list[EventRow]:
        """Every event of one match of a table, in order (for tools and tests)."""

        def load() -> list[EventRow]:
            return [
                EventRow(seq, match, unpack_event(data), seat, cid, ts)
                for seq, match, data, seat, cid, ts in self._conn().execute(
                    "SELECT seq, match_no, data, seat, cid, ts FROM events WHERE table_id = ?"
                    " AND match_no = ? ORDER BY seq", (table_id, match_no),
                )
            ]

        return await self._run(load)

    # -- when the server was last alive (what a running turn timer had used up) -----------
    def mark_alive(self, when: float | None = None) -> "asyncio.Future[None]":
        stamp = time.time() if when is None else when

        def write() -> None:
            self._conn().execute(
                "INSERT OR REPLACE INTO meta (key, value) VALUES ('alive_at', ?)", (stamp,)
            )

        return self._run(write)

    async def last_alive(self) -> float | None:
        def load() -> float | None:
            row = self._conn().execute("SELECT value FROM meta WHERE key = 'alive_at'").fetchone()
            return None if row is None else float(row[0])

        return await self._read_at_start(load)

    # -- finished games --------------------------------------------------------------------
    async def finish_game(self, game: GameRecord, players: list[tuple[int, str, str | None]]) -> None:
        """Record a finished match; ``players`` holds (seat, name key, fingerprint) per human.

        Tables record their matches with their last events (``append``); this is for tools.
        """

        def write() -> None:
            db = self._conn()
            db.execute("BEGIN")
            try:
                self._write_game(db, game, players)
            except BaseException:
                db.execute("ROLLBACK")
                raise
            db.execute("COMMIT")

        await self._run(write)

    @staticmethod
    def _write_game(db: sqlite3.Connection, game: GameRecord,
                    players: list[tuple[int, str, str | None]]) -> None:
        db.execute(
            "INSERT OR REPLACE INTO games (table_id, match_no, variant, title, seats,"
            " scores, winner, hands, finished_at) VALUES (?,?,?,?,?,?,?,?,?)",
            (game.table_id, game.match_no, game.variant, game.title,
             json.dumps(game.seats), json.dumps(game.scores), game.winner, game.hands,
             game.finished_at),
        )
        db.executemany(
            "INSERT OR REPLACE INTO game_players (table_id, match_no, seat, name_key,"
            " fingerprint) VALUES (?,?,?,?,?)",
            [(game.table_id, game.match_no, seat, key, fp) for seat, key, fp in players],
        )

    @staticmethod
    def _whose(fingerprint: str | None, name_key: str) -> tuple[str, tuple[Any, ...]]:
        # Key holders are known by their key; a guest only by the name they played under.
        if fingerprint is not None:
            return "gp.fingerprint = ?", (fingerprint,)
        return "gp.fingerprint IS NULL AND gp.name_key = ?", (name_key,)

    async def my_games(self, fingerprint: str | None, name_key: str, limit: int = 50) -> list[GameRecord]:
        where, args = self._whose(fingerprint, name_key)

        def load() -> list[GameRecord]:
            rows = self._conn().execute(
                "SELECT DISTINCT g.table_id, g.match_no, g.variant, g.title, g.seats, g.scores,"
                " g.winner, g.hands, g.finished_at FROM games g JOIN game_players gp"
                " ON gp.table_id = g.table_id AND gp.match_no = g.match_no"
                f" WHERE {where} ORDER BY g.finished_at DESC LIMIT ?", (*args, limit),
            ).fetchall()
            return [
                GameRecord(r[0], r[1], r[2], r[3], json.loads(r[4]), json.loads(r[5]), r[6], r[7], r[8])
                for r in rows
            ]

        return await self._run(load)

    async def game_log(
        self, table_id: str, match_no: int, fingerprint: str | None, name_key: str
    ) -> tuple[GameRecord, list[dict[str, Any]]] | None:
        """A finished game the asker played in, and its events in order (else None)."""
        where, args = self._whose(fingerprint, name_key)

        def load() -> tuple[GameRecord, list[dict[str, Any]]] | None:
            db = self._conn()
            r = db.execute(
                "SELECT g.table_id, g.match_no, g.variant, g.title, g.seats, g.scores, g.winner,"
                " g.hands, g.finished_at FROM games g JOIN game_players gp"
                " ON gp.table_id = g.table_id AND gp.match_no = g.match_no"
                f" WHERE g.table_id = ? AND g.match_no = ? AND {where} LIMIT 1",
                (table_id, match_no, *args),
            ).fetchone()
            if r is None:
                return None
            game = GameRecord(r[0], r[1], r[2], r[3], json.loads(r[4]), json.loads(r[5]), r[6], r[7], r[8])
            events = [
                unpack_event(data) for (data,) in db.execute(
                    "SELECT data FROM events WHERE table_id = ? AND match_no = ? ORDER BY seq",
                    (table_id, match_no),
                )
            ]
            return game, events

        return await self._run(load)
