"""The database's schema: its versions, applied in order at start, and the checks.

A database that cannot be opened, checked or migrated is reported (``StoreError``),
never silently replaced.
"""
from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

# Historical text: never edit a step (the comments name the modules of the time); add one.
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
    # 4: ratings (openskill) per key, variant and table size, and each key holder's line of
    # every finished two-team match (the stats screen: totals and the last matches)
    """
    CREATE TABLE ratings (
        fingerprint TEXT NOT NULL,
        variant     TEXT NOT NULL,
        players     INTEGER NOT NULL,
        mu          REAL NOT NULL,
        sigma       REAL NOT NULL,
        games       INTEGER NOT NULL,         -- rated matches
        wins        INTEGER NOT NULL,
        updated_at  INTEGER NOT NULL,
        PRIMARY KEY (fingerprint, variant, players)
    ) WITHOUT ROWID;
    CREATE INDEX ratings_board ON ratings (variant, players);
    CREATE TABLE match_stats (
        table_id       TEXT NOT NULL,
        match_no       INTEGER NOT NULL,
        seat           INTEGER NOT NULL,
        fingerprint    TEXT NOT NULL,
        variant        TEXT NOT NULL,
        players        INTEGER NOT NULL,
        won            INTEGER NOT NULL,
        abandoned      INTEGER NOT NULL,
        points_for     INTEGER NOT NULL,
        points_against INTEGER NOT NULL,
        envidos_won    INTEGER NOT NULL,
        trucos_won     INTEGER NOT NULL,
        trucos_refused INTEGER NOT NULL,
        rated          INTEGER NOT NULL,
        rating_before  REAL,                  -- the ordinal (mu - 3 sigma), rated matches only
        rating_after   REAL,
        finished_at    INTEGER NOT NULL,
        PRIMARY KEY (table_id, match_no, seat)
    ) WITHOUT ROWID;
    CREATE INDEX match_stats_fp ON match_stats (fingerprint, finished_at);
    """,
    # 5: the señas of each table's current hand and who saw each (server/table/talk.py): a
    # seña seen is part of that seat's game, so a restarted table shows it again
    """
    CREATE TABLE senas (
        table_id TEXT NOT NULL,
        match_no INTEGER NOT NULL,
        deal_no  INTEGER NOT NULL,
        n        INTEGER NOT NULL,            -- its number in the hand, from 0
        seat     INTEGER NOT NULL,            -- who made it
        sena     TEXT NOT NULL,
        seen     TEXT NOT NULL,               -- JSON list of the seats that saw it
        PRIMARY KEY (table_id, match_no, deal_no, n)
    ) WITHOUT ROWID;
    """,
    # 6: each table's latest chat lines (server/table/talk.py), so a restarted table shows
    # them again as a table rebuilt on another process of a cluster does
    """
    CREATE TABLE table_chat (
        table_id TEXT NOT NULL,
        n        INTEGER NOT NULL,            -- its number at the table, from 0
        sender   TEXT NOT NULL,
        text     TEXT NOT NULL,
        ts       INTEGER NOT NULL,            -- unix seconds
        PRIMARY KEY (table_id, n)
    ) WITHOUT ROWID;
    """,
    # 7: the operators' bans and mutes, and every action of theirs (server/moderation/)
    """
    CREATE TABLE restrictions (
        number    INTEGER PRIMARY KEY AUTOINCREMENT,
        what      TEXT NOT NULL,              -- ban | mute
        on_what   TEXT NOT NULL,              -- key | name | address
        target    TEXT NOT NULL,              -- a fingerprint, a name key, a network
        until     REAL NOT NULL,              -- unix seconds; 0: for good
        reason    TEXT NOT NULL,
        by_key    TEXT NOT NULL,              -- the operator's fingerprint
        at        REAL NOT NULL,
        lifted_at REAL                        -- NULL unless lifted before its time
    );
    CREATE TABLE moderation_log (
        n       INTEGER PRIMARY KEY AUTOINCREMENT,
        at      REAL NOT NULL,
        by_key  TEXT NOT NULL,
        action  TEXT NOT NULL,                -- kick | ban | mute | lift | broadcast
        target  TEXT NOT NULL,
        reason  TEXT NOT NULL
    );
    """,
    # 8: players' reports of each other, with their evidence (server/moderation/reports.py)
    """
    CREATE TABLE reports (
        number           INTEGER PRIMARY KEY AUTOINCREMENT,
        at               REAL NOT NULL,
        reported         TEXT NOT NULL,       -- the name
        reported_key     TEXT NOT NULL,       -- the fingerprint, '' for a guest
        reported_address TEXT NOT NULL,
        reason           TEXT NOT NULL,
        text             TEXT NOT NULL,
        by_name          TEXT NOT NULL,
        by_key           TEXT NOT NULL,
        by_address       TEXT NOT NULL,
        table_id         TEXT,
        seats            TEXT NOT NULL,       -- JSON list of names
        evidence         TEXT NOT NULL        -- JSON list of chat lines
    );
    CREATE INDEX reports_at ON reports (at);
    """,
    # 9: whom each key ignores (server/lobby/moderation.py)
    """
    CREATE TABLE ignores (
        fingerprint TEXT PRIMARY KEY,
        names       TEXT NOT NULL             -- JSON list of names as written
    ) WITHOUT ROWID;
    """,
    # 10: whose chat each key hears: everyone, partners, nobody (server/lobby/moderation.py)
    """
    ALTER TABLE ignores ADD COLUMN hear TEXT NOT NULL DEFAULT 'everyone';
    """,
    # 11: each finished match's deal secret, the proof of its deals (protocol/deal_proof.py)
    """
    ALTER TABLE games ADD COLUMN deal_secret TEXT NOT NULL DEFAULT '';
    """,
    # 12: reports an operator has dealt with leave the queue (server/moderation/reports.py)
    """
    ALTER TABLE reports ADD COLUMN settled_at REAL;
    ALTER TABLE reports ADD COLUMN settled_by TEXT;
    """,
    # 13: keys an operator named operators (besides the settings' own; server/moderation/book.py)
    """
    CREATE TABLE operators (
        fingerprint TEXT PRIMARY KEY,
        by_key      TEXT NOT NULL,
        at          REAL NOT NULL
    ) WITHOUT ROWID;
    """,
)


class StoreError(RuntimeError):
    """The database could not be opened, checked or migrated."""


def open_database(path: Path, check: bool = True) -> sqlite3.Connection:
    """Open (and migrate) the database at ``path``; ``check``: run PRAGMA quick_check first."""
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        db = sqlite3.connect(path, isolation_level=None)
        db.execute("PRAGMA journal_mode=WAL")
        # Every commit synced to the disk before it returns: an event is on stable storage
        # before any player sees it (NORMAL would lose the last commits to a power cut).
        db.execute("PRAGMA synchronous=FULL")
        result = db.execute("PRAGMA quick_check").fetchone()[0] if check else "ok"
        if result != "ok":
            raise StoreError(f"{path}: integrity check failed: {result}")
        version = db.execute("PRAGMA user_version").fetchone()[0]
        if version > len(MIGRATIONS):
            raise StoreError(
                f"{path}: schema version {version} is newer than this server "
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
        raise StoreError(f"{path}: cannot use the database: {exc}") from exc
    return db


def quick_check(path: Path) -> None:
    """PRAGMA quick_check on a read-only connection of its own (StoreError if damaged)."""
    try:
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            result = db.execute("PRAGMA quick_check").fetchone()[0]
        finally:
            db.close()
    except sqlite3.DatabaseError as exc:
        raise StoreError(f"{path}: cannot check the database: {exc}") from exc
    if result != "ok":
        raise StoreError(f"{path}: integrity check failed: {result}")


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
