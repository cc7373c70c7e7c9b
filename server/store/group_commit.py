"""Group commit on the store's writer thread: the tables' appends asked for while the writer
was busy share one transaction, so one fsync serves them all.

Every commit is synced to the disk before it is acknowledged (``synchronous=FULL``: an event
is on stable storage before any player sees it), and a sync costs a fraction of a
millisecond to milliseconds depending on the disk. Appends that queue up meanwhile (many
tables acting at once) wait for one sync together instead of one each.

Order is kept: a batch takes appends only until something else is asked of the writer (a
table created, seats written), so nothing is committed before what was asked before it.
"""
from __future__ import annotations

import asyncio
import sqlite3
import threading
from typing import Any, Callable

from server.store import events as event_sql

AppendArgs = tuple[Any, ...]  # event_sql.write_append's arguments after the connection


class _Batch:
    __slots__ = ("items", "open")

    def __init__(self) -> None:
        self.items: list[tuple[AppendArgs, asyncio.Future[None]]] = []
        self.open = True  # False once the writer has taken it: later appends start another


class GroupCommit:
    """Appends batched for one writer thread; ``submit(fn, *args)`` queues ``fn`` there."""

    def __init__(self, submit: Callable[..., object], conn: Callable[[], sqlite3.Connection]) -> None:
        self._submit = submit
        self._conn = conn
        self._lock = threading.Lock()  # held only to add to or take a batch: never for long
        self._batch: _Batch | None = None
        self.commits = 0  # transactions written (each one sync), and the appends they held
        self.appends = 0

    def close_batch(self) -> None:
        """Something else was asked of the writer: later appends are committed after it."""
        self._batch = None

    def append(self, args: AppendArgs) -> "asyncio.Future[None]":
        loop = asyncio.get_running_loop()
        done: asyncio.Future[None] = loop.create_future()
        with self._lock:
            batch = self._batch
            if batch is None or not batch.open:
                batch = self._batch = _Batch()
                self._submit(self._commit, batch, loop)
            batch.items.append((args, done))
        return done

    def _commit(self, batch: _Batch, loop: asyncio.AbstractEventLoop) -> None:
        """On the writer thread: one transaction for the batch (each append alone if that
        fails, so that a bad one fails by itself), then every waiting table is told."""
        with self._lock:
            batch.open = False
            items = batch.items
        results: list[BaseException | None]
        try:
            db = self._conn()
            try:
                db.execute("BEGIN")
                for args, _ in items:
                    event_sql.write_append(db, *args)
                db.execute("COMMIT")
                self.commits += 1
                self.appends += len(items)
                results = [None] * len(items)
            except Exception:
                if db.in_transaction:
                    db.execute("ROLLBACK")
                results = [_alone(db, args) for args, _ in items]
        except BaseException as exc:  # no connection, or the rollback failed: all of them fail
            results = [exc] * len(items)
        for (_, done), error in zip(items, results):
            loop.call_soon_threadsafe(_settle, done, error)


def _alone(db: sqlite3.Connection, args: AppendArgs) -> BaseException | None:
    try:
        event_sql.append(db, *args)
    except Exception as exc:
        return exc
    return None


def _settle(done: "asyncio.Future[None]", error: BaseException | None) -> None:
    if done.cancelled():
        return
    if error is None:
        done.set_result(None)
    else:
        done.set_exception(error)
