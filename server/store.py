"""SQLite persistence, used only from one writer thread so the event loop never blocks.

Schema versions are applied in order at start (``MIGRATIONS``); a database
that cannot be opened or checked is reported, never silently replaced.
"""
from __future__ import annotations

import asyncio
import sqlite3
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, TypeVar

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
)


class StoreError(RuntimeError):
    """The database could not be opened, checked or migrated."""


@dataclass(frozen=True)
class Reservation:
    name_key: str
    name: str
    fingerprint: str


class Store:
    def __init__(self, path: Path) -> None:
        self.path = path
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="truco-store")
        self._db: sqlite3.Connection | None = None

    # -- lifecycle (the connection lives on the writer thread) ---------------
    async def open(self) -> None:
        await self._run(self._open_sync)

    def _open_sync(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        try:
            db = sqlite3.connect(self.path, isolation_level=None)
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=NORMAL")
            check = db.execute("PRAGMA quick_check").fetchone()[0]
            if check != "ok":
                raise StoreError(f"{self.path}: integrity check failed: {check}")
            version = db.execute("PRAGMA user_version").fetchone()[0]
            if version > len(MIGRATIONS):
                raise StoreError(
                    f"{self.path}: schema version {version} is newer than this server "
                    f"({len(MIGRATIONS)}); upgrade truco-ssh"
                )
            for number in range(version, len(MIGRATIONS)):
                db.execute("BEGIN")
                db.execute(MIGRATIONS[number])
                db.execute(f"PRAGMA user_version={number + 1}")
                db.execute("COMMIT")
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"{self.path}: cannot use the database: {exc}") from exc
        self._db = db

    async def close(self) -> None:
        if self._db is not None:
            await self._run(self._db.close)
            self._db = None
        self._executor.shutdown(wait=True)

    async def _run(self, fn: Callable[..., T], *args: Any) -> T:
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._executor, fn, *args)

    def _conn(self) -> sqlite3.Connection:
        if self._db is None:
            raise StoreError("store is not open")
        return self._db

    # -- players ---------------------------------------------------------------
    async def reservations(self) -> list[Reservation]:
        def load() -> list[Reservation]:
            rows = self._conn().execute("SELECT name_key, name, fingerprint FROM players")
            return [Reservation(*row) for row in rows]

        return await self._run(load)

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
