"""A table's latest chat lines in the cluster's store (``server/cluster/table_chat.py``), on a
real nats-server: what a table taken over by another process shows again."""
from __future__ import annotations

from server.cluster.natsd import NatsServer
from server.store import CHAT_KEPT, ChatRow, EventRow
from tests.cluster.stores import open_store, table_record


async def test_a_tables_latest_chat_lines_are_kept_for_the_next_owner(nats_server: NatsServer) -> None:
    """A table taken over by another process shows its chat again: its latest CHAT_KEPT lines,
    in order; a closed table's go with it, and a bad value is skipped."""
    bus, names, store = await open_store(nats_server.url, "host-1")
    bus2 = None
    try:
        await store.create_table(table_record("t1"))
        lines = [ChatRow(n, "ana", f"linea {n}", 1_700_000_000 + n) for n in range(CHAT_KEPT + 4)]
        await store.append("t1", [EventRow(seq=1, match_no=1, data={"type": "x"})], chat=lines[:3])
        await store.append("t1", [], chat=lines[3:])  # chat alone, between two events
        bus2, names2, other = await open_store(nats_server.url, "host-2")
        (record,) = await other.table_index()
        await other.load_matches([record])
        assert record.chat == lines[-CHAT_KEPT:]
        more = ChatRow(CHAT_KEPT + 4, "beto", "y uno más", 1_700_000_100)
        await other.append("t1", [], chat=[more])  # the new owner goes on from what it read
        await store.load_matches([record])
        assert record.chat == [*lines[-CHAT_KEPT + 1:], more]
        await other.close_table("t1")
        await names2.close()
        chat = await bus.js.key_value("truco_chat")
        await chat.put("t1", b"junk")
        await store.create_table(table_record("t1"))
        (record,) = await other.table_index()
        await other.load_matches([record])
        assert record.chat == []  # a bad value is skipped, never trusted
    finally:
        await names.close()
        await bus.close()
        if bus2 is not None:
            await bus2.close()
