"""The store's group commit (server/store/group_commit.py): appends that wait for the writer
share one transaction, keep their order with everything else, and a bad one fails alone."""
from __future__ import annotations

import asyncio
import sqlite3
import time
from pathlib import Path
from typing import Any, Callable

import pytest

from server.store import EventRow, Store, TableRecord
from server.store.group_commit import GroupCommit
from server.store.records import pack_event
from server.store.schema import open_database


def _record(table_id: str) -> TableRecord:
    return TableRecord(table_id, "mesa", "argentino", {}, "ana", False, "", 0, [], "seed")


def _args(table_id: str, seq: int) -> tuple[Any, ...]:
    return (table_id, [(table_id, seq, 1, pack_event({"type": "x", "n": seq}), None, None, time.time())],
            [], None, [], [])


class Writer:
    """A writer thread the test runs by hand: the jobs queue until ``run_next``."""

    def __init__(self) -> None:
        self.jobs: list[tuple[Callable[..., object], tuple[Any, ...]]] = []

    def submit(self, fn: Callable[..., object], *args: Any) -> None:
        self.jobs.append((fn, args))

    def run_next(self) -> None:
        fn, args = self.jobs.pop(0)
        fn(*args)


async def test_appends_waiting_for_the_writer_share_one_commit_and_a_bad_one_fails_alone(tmp_path: Path) -> None:
    db = open_database(tmp_path / "db.sqlite3")
    writer = Writer()
    group = GroupCommit(writer.submit, lambda: db)
    first = [group.append(_args(f"t{n}", 1)) for n in range(5)]
    assert len(writer.jobs) == 1  # one job for the five
    writer.run_next()
    await asyncio.gather(*first)
    assert (group.commits, group.appends) == (1, 5)
    again = group.append(_args("t0", 1))  # seq 1 of t0 is there already: refused
    fine = group.append(_args("t1", 2))
    writer.run_next()
    with pytest.raises(sqlite3.IntegrityError):
        await again
    await fine
    rows = db.execute("SELECT table_id, seq FROM events ORDER BY table_id, seq").fetchall()
    assert rows == [("t0", 1), ("t1", 1), ("t1", 2), ("t2", 1), ("t3", 1), ("t4", 1)]


async def test_an_append_asked_after_another_write_is_committed_after_it(tmp_path: Path) -> None:
    db = open_database(tmp_path / "db.sqlite3")
    writer = Writer()
    group = GroupCommit(writer.submit, lambda: db)
    before = group.append(_args("t1", 1))
    group.close_batch()  # what the store does when anything else is asked of the writer
    writer.submit(lambda: db.execute("INSERT INTO meta (key, value) VALUES ('between', 1)"))
    after = group.append(_args("t1", 2))
    assert len(writer.jobs) == 3  # the first batch, the other write, a second batch
    while writer.jobs:
        writer.run_next()
    await asyncio.gather(before, after)
    assert group.commits == 2


async def test_many_tables_at_once_all_reach_the_log_in_order(tmp_path: Path) -> None:
    store = Store(tmp_path / "db.sqlite3")
    await store.open()
    try:
        async def table(n: int) -> None:
            await store.create_table(_record(f"t{n}"))
            for seq in range(1, 11):
                await store.append(f"t{n}", [EventRow(seq, 1, {"type": "x", "n": seq})])

        await asyncio.gather(*(table(n) for n in range(20)))
        tables = {t.table_id: [e.seq for e in t.events] for t in await store.open_tables()}
        assert tables == {f"t{n}": list(range(1, 11)) for n in range(20)}
    finally:
        await store.close()


def test_every_commit_is_synced_to_the_disk(tmp_path: Path) -> None:
    db = open_database(tmp_path / "db.sqlite3")
    assert db.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
