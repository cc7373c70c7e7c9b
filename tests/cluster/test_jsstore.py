"""The cluster's store on a real nats-server: what the hub and the tables ask of a store."""
from __future__ import annotations

import asyncio

import protocol as p
from server.cluster.bus import Bus, BusOptions
from server.cluster.jsstore import GAMES_BUCKET, TABLES_BUCKET, JetStreamStore
from server.cluster.names import NameMirror
from server.cluster.natsd import NatsServer
from server.store import EventRow, GameRecord, SenaRow
from tests.cluster.stores import open_store, table_record


async def test_a_second_host_reads_back_what_the_first_wrote(nats_server: NatsServer) -> None:
    bus, names, store = await open_store(nats_server.url, "host-1")
    bus2 = None
    try:
        await store.reserve("ana", "ana", "SHA256:a")
        await store.create_table(table_record("t1"))
        await store.create_table(table_record("t2"))
        await store.close_table("t2")
        moved = [dict(s) for s in table_record("t1").seats]
        moved[1]["name"] = "Bot 2"
        await store.update_seats("t1", moved)
        rows = [EventRow(seq=n, match_no=1 if n < 3 else 2, data={"type": "x", "n": n}) for n in range(1, 5)]
        game = GameRecord("t1", 1, "argentino", "mesa", ["ana", "Bot 1"], [15, 9], 0, 6, 1_700_000_000)
        await store.append("t1", rows[:2], games=[(game, [(0, "ana", "SHA256:a")])])
        await store.append("t1", rows[2:])
        await store.mark_alive(1_700_000_123.5)

        bus2, names2, other = await open_store(nats_server.url, "host-2")
        for _ in range(750):  # the watch brings the reservation (slowly on a loaded machine)
            if await other.reservations():
                break
            await asyncio.sleep(0.02)
        assert [(r.name_key, r.fingerprint) for r in await other.reservations()] == [("ana", "SHA256:a")]
        index = await other.table_index()
        assert [r.table_id for r in index] == ["t1"]
        assert index[0].seats[1]["name"] == "Bot 2" and index[0].seed == "s33d"
        await other.load_matches(index)
        assert [r.seq for r in index[0].events] == [3, 4]  # the current match only
        assert [r.seq for r in await other.match_events("t1", 1)] == [1, 2]
        assert await other.last_alive() == 1_700_000_123.5
        assert [g.match_no for g in await other.my_games("SHA256:a", "ana")] == [1]
        assert await other.my_games(None, "ana") == []  # a guest named ana did not play it
        found = await other.game_log("t1", 1, "SHA256:a", "ana")
        assert found is not None and found[0] == game and [e.data["n"] for e in found[1]] == [1, 2]
        await other.append("t1", [EventRow(seq=5, match_no=2, data={"type": "x"})])  # follows the log
        await names2.close()
    finally:
        await names.close()
        await bus.close()
        if bus2 is not None:
            await bus2.close()


async def test_the_hands_senas_are_kept_for_the_next_host(nats_server: NatsServer) -> None:
    """A seña seen is part of the seat's game: a table taken over by another process shows
    each seat the señas of the hand being played, and only that hand's."""
    bus, names, store = await open_store(nats_server.url, "host-1")
    bus2 = None
    try:
        await store.create_table(table_record("t1"))
        old = SenaRow(1, 3, 0, 0, "tres", (0, 2))
        await store.append("t1", [EventRow(seq=1, match_no=1, data={"type": "x"})], senas=[old])
        now = [SenaRow(1, 4, 0, 1, "ancho_espadas", (1, 3, 0)), SenaRow(1, 4, 1, 2, "nada", (2, 0))]
        await store.append("t1", [EventRow(seq=2, match_no=1, data={"type": "x"})], senas=now[:1])
        await store.append("t1", [], senas=now[1:])  # a seña alone, between two events
        bus2, names2, other = await open_store(nats_server.url, "host-2")
        index = await other.table_index()
        await other.load_matches(index)
        assert index[0].senas == now  # the current hand's, with who saw each
        await other.close_table("t1")
        await names2.close()
        again = await other.table_index()
        await other.load_matches(again)
        assert again == []
        senas = await bus.js.key_value("truco_senas")
        await senas.put("t1", b"junk")
        await store.create_table(table_record("t1"))
        (record,) = await other.table_index()
        await other.load_matches([record])
        assert record.senas == []  # a bad value is skipped, never trusted
    finally:
        await names.close()
        await bus.close()
        if bus2 is not None:
            await bus2.close()


async def test_bad_values_in_the_buckets_are_skipped(nats_server: NatsServer) -> None:
    bus, names, store = await open_store(nats_server.url, "host-1")
    try:
        await store.create_table(table_record("t1"))
        tables = await bus.js.key_value(TABLES_BUCKET)
        await tables.put("t9", b"\x00not a table")
        await tables.put("t8", p.encode(p.Ping(n=3)))
        games = await bus.js.key_value(GAMES_BUCKET)
        await games.put("t1.1", b"junk")
        assert [r.table_id for r in await store.table_index()] == ["t1"]
        assert await store.my_games("SHA256:a", "ana") == []
        assert await store.game_log("t1", 1, "SHA256:a", "ana") is None
        assert bus.dropped >= 3
    finally:
        await names.close()
        await bus.close()


async def test_an_owner_that_is_not_sure_of_its_lease_writes_nothing(nats_server: NatsServer) -> None:
    from server.cluster.eventlog import Fenced, TableLog

    bus = await Bus.connect(nats_server.url, BusOptions(), owner="host-1")
    names = await NameMirror.open(bus)
    answers = [True, False]

    async def still_owns(table_id: str) -> bool:
        assert table_id == "t1"
        return answers.pop(0)

    store = JetStreamStore(bus, names, still_owns)
    await store.open()
    try:
        await store.append("t1", [EventRow(seq=1, match_no=1, data={"type": "x"})])
        try:
            await store.append("t1", [EventRow(seq=2, match_no=1, data={"type": "x"})])
        except Fenced:
            pass
        else:
            raise AssertionError("an owner unsure of its lease wrote to the log")
        assert [r.seq for r in await TableLog(bus, "t1").read()] == [1]
    finally:
        await names.close()
        await bus.close()


async def test_a_finished_match_in_the_log_reaches_my_games_even_if_the_host_died_before_the_bucket(
        nats_server: NatsServer) -> None:
    from server.cluster.eventlog import TableLog
    from server.cluster.jsstore import _entry

    bus, names, store = await open_store(nats_server.url, "host-1")
    try:
        await store.create_table(table_record("t4"))
        game = GameRecord("t4", 1, "argentino", "mesa", ["ana", "Bot 1"], [15, 2], 0, 5, 1_700_000_500)
        # As the dead host left it: the events and the game in the log, nothing in the bucket
        await TableLog(bus, "t4").append([EventRow(seq=1, match_no=1, data={"type": "x"})],
                                         (_entry(game, [(0, "ana", "SHA256:a")]),))
        assert await store.my_games("SHA256:a", "ana") == []
        index = await store.table_index()
        await store.load_matches(index)  # the next host restores the table ...
        assert await store.my_games("SHA256:a", "ana") == [game]  # ... and the game is listed
    finally:
        await names.close()
        await bus.close()


async def test_a_waiting_room_with_free_seats_and_no_log_reads_back(nats_server: NatsServer) -> None:
    """A table with partners is stored from its creation (server/lobby/seats.py save_room):
    free seats are {} and nothing is logged until its creator starts it."""
    bus, names, store = await open_store(nats_server.url, "host-1")
    try:
        room = table_record("t9")
        room.seats.insert(1, {})
        room.seats.append({})
        await store.create_table(room)
        await store.update_seats("t9", [room.seats[0], {}, room.seats[2], {"name": "beto", "fp": "SHA256:b",
                                                                          "resume": "", "bot": False}])
        index = await store.table_index()
        assert [r.table_id for r in index] == ["t9"]
        assert [s.get("name") for s in index[0].seats] == ["ana", None, "Bot 1", "beto"]
        await store.load_matches(index)
        assert index[0].events == []
    finally:
        await store.close()
        await names.close()
        await bus.close()
