"""The power-cut filesystem (tests/chaos/lazyfs.py) loses exactly what was not synced, so a
store that acknowledges before syncing is caught: SQLite in WAL mode with
``synchronous=NORMAL`` loses commits at a cut, with ``synchronous=FULL`` none, and the
server's own store loses none."""
from __future__ import annotations

import asyncio
import os
import sqlite3
import sys
from pathlib import Path
from typing import AsyncIterator

import pytest

from tests.chaos.lazyfs import LazyMount, fuse_missing

pytestmark = [pytest.mark.skipif(bool(fuse_missing()), reason=fuse_missing() or "")]


@pytest.fixture
async def mount(tmp_path: Path) -> AsyncIterator[LazyMount]:
    lazy = LazyMount(tmp_path / "below", tmp_path / "mnt")
    await lazy.start()
    try:
        yield lazy
    finally:
        await lazy.cut()


def _write(path: Path, data: bytes, sync: bool, mode: int = os.O_WRONLY | os.O_CREAT) -> None:
    fd = os.open(path, mode, 0o600)
    try:
        os.write(fd, data)
        if sync:
            os.fsync(fd)
    finally:
        os.close(fd)


async def test_a_cut_keeps_what_was_synced_and_loses_the_rest(mount: LazyMount) -> None:
    mnt = mount.mountpoint
    await asyncio.to_thread(_write, mnt / "synced", b"a" * 10_000, True)
    await asyncio.to_thread(_write, mnt / "unsynced", b"b" * 5_000, False)
    await asyncio.to_thread(_write, mnt / "synced", b"c" * 100, False, os.O_WRONLY | os.O_APPEND)
    # before the cut, the programs read everything they wrote
    assert (mnt / "synced").read_bytes() == b"a" * 10_000 + b"c" * 100
    assert (mnt / "unsynced").read_bytes() == b"b" * 5_000
    await mount.cut()
    await mount.start()
    assert (mnt / "synced").read_bytes() == b"a" * 10_000
    assert (mnt / "unsynced").read_bytes() == b""  # the name is durable, its data was not


async def test_a_truncation_is_lost_with_the_writes_after_it_unless_synced(mount: LazyMount) -> None:
    mnt = mount.mountpoint
    await asyncio.to_thread(_write, mnt / "f", b"x" * 9_000, True)

    def shrink_and_grow(sync: bool) -> None:
        with open(mnt / "f", "r+b") as f:
            f.truncate(100)
            f.seek(8_000)
            f.write(b"y")
            f.flush()
            if sync:
                os.fsync(f.fileno())

    await asyncio.to_thread(shrink_and_grow, False)
    assert (mnt / "f").read_bytes() == b"x" * 100 + bytes(7_900) + b"y"
    await mount.cut()
    await mount.start()
    assert (mnt / "f").read_bytes() == b"x" * 9_000
    await asyncio.to_thread(shrink_and_grow, True)
    await mount.cut()
    await mount.start()
    assert (mnt / "f").read_bytes() == b"x" * 100 + bytes(7_900) + b"y"


async def test_a_file_renamed_into_place_before_its_data_was_synced_comes_back_empty(mount: LazyMount) -> None:
    mnt = mount.mountpoint
    await asyncio.to_thread(_write, mnt / "meta", b"old", True)
    await asyncio.to_thread(_write, mnt / "meta.tmp", b"new", False)
    os.rename(mnt / "meta.tmp", mnt / "meta")
    assert (mnt / "meta").read_bytes() == b"new"
    await mount.cut()
    await mount.start()
    assert (mnt / "meta").read_bytes() == b""


COMMIT_ROWS = """
import sqlite3, sys
db = sqlite3.connect(sys.argv[1], isolation_level=None)
db.execute("PRAGMA journal_mode=WAL")
db.execute(f"PRAGMA synchronous={sys.argv[2]}")
db.execute("CREATE TABLE IF NOT EXISTS t (n INTEGER)")
for n in range(50):
    db.execute("INSERT INTO t VALUES (?)", (n,))  # each its own committed transaction
print("committed", flush=True)
sys.stdin.read()  # open until killed: a last close would checkpoint (and sync) the log
"""


async def _rows_after_cut(mount: LazyMount, synchronous: str) -> int:
    db_path = mount.mountpoint / f"{synchronous}.db"
    writer = await asyncio.create_subprocess_exec(sys.executable, "-c", COMMIT_ROWS, str(db_path), synchronous,
                                                  stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE)
    assert writer.stdout is not None
    assert await asyncio.wait_for(writer.stdout.readline(), 60) == b"committed\n"
    writer.kill()  # the power cut: the program and the filesystem's memory at once
    await mount.cut()
    await writer.wait()
    await mount.start()
    db = sqlite3.connect(db_path)
    try:
        return db.execute("SELECT count(*) FROM t").fetchone()[0]
    except sqlite3.OperationalError:  # the table's creation itself was lost
        return 0
    finally:
        db.close()


async def test_sqlite_acknowledging_before_syncing_loses_commits_at_a_cut_and_syncing_loses_none(
        mount: LazyMount) -> None:
    assert await _rows_after_cut(mount, "NORMAL") < 50  # what this filesystem is for: catching it
    assert await _rows_after_cut(mount, "FULL") == 50
