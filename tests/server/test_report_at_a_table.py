"""A report made at a table (issue 34) carries where (table, match, log position) and what
the two said there; nobody else's words, and no partner-only line the reporter did not hear."""
from __future__ import annotations

import asyncio
from pathlib import Path

import protocol as p
from protocol import moderation as m
from server.config import ServerConfig
from server.lobby import Hub
from server.moderation.book import Moderation
from server.store import Store
from server.variants import validate_options, variant_infos
from tests.server.test_hub import join
from tests.server.test_leavers import a_match_between


async def test_a_report_at_a_table_carries_the_hand_and_the_two_players_table_chat(tmp_path: Path) -> None:
    store = Store(tmp_path / "db.sqlite3")
    await store.open()
    hub = Hub(ServerConfig(), variant_infos(), validate_options, store, moderation=Moderation(records=store))
    await hub.load()
    task = asyncio.create_task(hub.run())
    try:
        ana = await join(hub, "ana")
        mallory = await join(hub, "mallory")
        eve = await join(hub, "eve")
        table_id = await a_match_between(ana, mallory)
        eve.send(p.WatchTable(table_id=table_id))
        await eve.settle()
        mallory.send(p.TableChat(table_id=table_id, text="you cheat, idiot"))
        mallory.send(p.TableChat(table_id=table_id, text="to my partner only", partners=True))
        eve.send(p.TableChat(table_id=table_id, text="a spectator's words"))
        ana.send(p.TableChat(table_id=table_id, text="please stop"))
        await asyncio.sleep(0)
        for client in (mallory, eve, ana):
            await client.settle()
        ana.send(m.ReportPlayer(name="mallory", reason="abuse", text="at our table"))
        await ana.settle()
        async def kept() -> None:
            while not await store.latest_reports():
                await asyncio.sleep(0.01)
        await asyncio.wait_for(kept(), 5)
        (report,) = await store.latest_reports()
        assert report.table_id == table_id and report.seats == ("ana", "mallory")
        where, *said = report.evidence
        assert where.startswith(f"(table {table_id}, match 1, log event ")
        assert said == ["[table] mallory: you cheat, idiot", "[table] ana: please stop"]
    finally:
        hub.request_shutdown()
        await task
        await hub.stop_tables()
        await hub.drain_writes()
        await store.close()
