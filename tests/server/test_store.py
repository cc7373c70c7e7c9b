"""The SQLite store: migrations, refusing bad files, the event log without gaps, games."""
from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from server.store import (
    MIGRATIONS, EventRow, GameRecord, Snapshot, Store, StoreError, TableRecord, check_database,
)


def record(table_id: str = "t1") -> TableRecord:
    return TableRecord(
        table_id=table_id, title="mesa", variant="argentino", options={"target": 15}, owner="ana",
        private=False, code="", turn_timer=0,
        seats=[{"name": "ana", "fp": "SHA256:x", "resume": "", "bot": False, "human": True}],
        seed="abc",
    )


async def test_a_version_1_database_is_migrated_and_keeps_its_players(tmp_path: Path) -> None:
    path = tmp_path / "db.sqlite3"
    db = sqlite3.connect(path)
    db.executescript(MIGRATIONS[0])
    db.execute("INSERT INTO players VALUES ('ana', 'ana', 'SHA256:k', 1, 1)")
    db.execute("PRAGMA user_version=1")
    db.commit()
    db.close()
    store = Store(path)
    await store.open()
    try:
        assert [(r.name, r.fingerprint) for r in await store.reservations()] == [("ana", "SHA256:k")]
        await store.create_table(record())
        assert [t.table_id for t in await store.open_tables()] == ["t1"]
    finally:
        await store.close()
    db = sqlite3.connect(path)
    assert db.execute("PRAGMA user_version").fetchone()[0] == len(MIGRATIONS)
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    db.close()


async def test_a_corrupt_file_is_reported_and_left_untouched(tmp_path: Path) -> None:
    path = tmp_path / "db.sqlite3"
    garbage = b"this is not a database" * 100
    path.write_bytes(garbage)
    store = Store(path)
    with pytest.raises(StoreError, match="cannot use the database"):
        await store.open()
    await store.close()
    assert path.read_bytes() == garbage


async def test_a_damaged_page_fails_the_check_and_is_not_replaced(tmp_path: Path) -> None:
    path = tmp_path / "db.sqlite3"
    store = Store(path)
    await store.open()
    await store.create_table(record())
    await store.append("t1", [EventRow(i, 1, {"type": "x", "pad": "y" * 200}) for i in range(1, 200)])
    await store.close()
    db = sqlite3.connect(path)
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db.close()
    data = bytearray(path.read_bytes())
    page = 4096
    assert len(data) > page * 4
    for i in range(page, len(data), 7):  # scribble over every page but the schema
        data[i] = 0xA5
    path.write_bytes(bytes(data))
    damaged = path.read_bytes()
    store = Store(path)
    with pytest.raises(StoreError):
        await store.open()
    await store.close()
    assert path.read_bytes() == damaged


async def test_a_newer_schema_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "db.sqlite3"
    db = sqlite3.connect(path)
    db.execute(f"PRAGMA user_version={len(MIGRATIONS) + 1}")
    db.close()
    store = Store(path)
    with pytest.raises(StoreError, match="newer"):
        await store.open()
    await store.close()


async def test_events_append_in_order_and_a_duplicate_sequence_number_is_refused(tmp_path: Path) -> None:
    store = Store(tmp_path / "db.sqlite3")
    await store.open()
    try:
        await store.create_table(record())
        await store.append("t1", [EventRow(1, 1, {"type": "a", "cards": ["1e", "7o"]}),
                                  EventRow(2, 1, {"type": "b", "n": None}, seat=0, cid=77)])
        await store.append("t1", [EventRow(3, 2, {"type": "c"})])
        with pytest.raises(sqlite3.IntegrityError):
            await store.append("t1", [EventRow(4, 2, {"type": "d"}), EventRow(3, 2, {"type": "again"})])
        (table,) = await store.open_tables()
        assert [(e.seq, e.match_no, e.data["type"], e.cid) for e in table.events] == [
            (1, 1, "a", None), (2, 1, "b", 77), (3, 2, "c", None)]  # the failed batch left nothing
        assert table.events[0].data == {"type": "a", "cards": ["1e", "7o"]}
        await store.close_table("t1")
        assert await store.open_tables() == []
    finally:
        await store.close()
    report = check_database(tmp_path / "db.sqlite3")
    assert report == {"integrity": "ok", "gaps": [], "events": {"t1": 3}}


async def test_games_are_listed_for_their_players_only(tmp_path: Path) -> None:
    store = Store(tmp_path / "db.sqlite3")
    await store.open()
    try:
        await store.create_table(record())
        await store.append("t1", [EventRow(1, 1, {"type": "match_started"}), EventRow(2, 1, {"type": "x"})])
        game = GameRecord("t1", 1, "argentino", "mesa", ["ana", "guest"], [15, 3], 0, 4, 1_700_000_000)
        await store.finish_game(game, [(0, "ana", "SHA256:x"), (1, "guest", None)])
        assert await store.my_games("SHA256:x", "whatever") == [game]
        assert await store.my_games(None, "guest") == [game]
        assert await store.my_games(None, "ana") == []  # a guest named ana is not the key holder
        found = await store.game_log("t1", 1, None, "guest")
        assert found is not None and [e.data["type"] for e in found[1]] == ["match_started", "x"]
        assert await store.game_log("t1", 1, "SHA256:other", "ana") is None
    finally:
        await store.close()


async def test_a_finished_match_is_recorded_in_the_transaction_of_its_last_events(tmp_path: Path) -> None:
    store = Store(tmp_path / "db.sqlite3")
    await store.open()
    try:
        await store.create_table(record())
        game = GameRecord("t1", 1, "argentino", "mesa", ["ana", "bot"], [15, 9], 0, 5, 1_700_000_000)
        players = [(0, "ana", "SHA256:x")]
        await store.append("t1", [EventRow(1, 1, {"type": "match_started"})])
        with pytest.raises(sqlite3.IntegrityError):  # the events fail: no record either
            await store.append("t1", [EventRow(1, 1, {"type": "again"})], games=[(game, players)])
        assert await store.my_games("SHA256:x", "ana") == []
        await store.append("t1", [EventRow(2, 1, {"type": "match_ended"})], games=[(game, players)])
        assert await store.my_games("SHA256:x", "ana") == [game]
    finally:
        await store.close()


async def test_a_restart_reads_the_latest_snapshot_of_the_current_match_and_what_follows(tmp_path: Path) -> None:
    store = Store(tmp_path / "db.sqlite3")
    await store.open()
    try:
        await store.create_table(record())
        await store.append("t1", [EventRow(i, 1, {"type": "x", "i": i}) for i in range(1, 4)],
                           snapshot=Snapshot(1, 2, b"state after 2"))
        (table,) = await store.restart_tables()
        # the match's opening event, then the events after the snapshot
        assert table.snapshot == Snapshot(1, 2, b"state after 2") and [e.seq for e in table.events] == [1, 3]
        # A new match: the last match's snapshot is of no use; its events from the start.
        await store.append("t1", [EventRow(i, 2, {"type": "y"}) for i in range(4, 7)])
        (table,) = await store.restart_tables()
        assert table.snapshot is None and [e.seq for e in table.events] == [4, 5, 6]
        await store.append("t1", [EventRow(7, 2, {"type": "y"})], snapshot=Snapshot(2, 6, b"later"))
        (table,) = await store.restart_tables()
        assert table.snapshot == Snapshot(2, 6, b"later") and [e.seq for e in table.events] == [4, 7]
    finally:
        await store.close()


async def test_a_version_2_database_gets_the_restart_index_and_keeps_its_log(tmp_path: Path) -> None:
    path = tmp_path / "db.sqlite3"
    db = sqlite3.connect(path)
    db.executescript(MIGRATIONS[0] + MIGRATIONS[1])
    db.execute("INSERT INTO tables (table_id, title, variant, options, owner, private, code, turn_timer,"
               " seats, seed, created_at) VALUES ('t1', 'm', 'argentino', '{}', 'ana', 0, '', 0, '[]', 's', 1)")
    db.executemany("INSERT INTO events VALUES ('t1', ?, ?, x'80', NULL, NULL, 1.0)",
                   [(1, 1), (2, 1), (3, 2), (4, 2)])
    db.execute("PRAGMA user_version=2")
    db.commit()
    db.close()
    store = Store(path)
    await store.open()
    try:
        (table,) = await store.restart_tables()
        assert [e.seq for e in table.events] == [3, 4] and await store.last_alive() is None
        await store.mark_alive(1234.5)
        assert await store.last_alive() == 1234.5
    finally:
        await store.close()
    db = sqlite3.connect(path)
    assert db.execute("PRAGMA user_version").fetchone()[0] == len(MIGRATIONS)
    plan = db.execute("EXPLAIN QUERY PLAN SELECT MIN(seq) FROM events WHERE table_id = 't1'"
                      " AND match_no = 2").fetchall()
    assert "events_match" in str(plan)
    db.close()
