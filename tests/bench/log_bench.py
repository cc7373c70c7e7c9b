"""Event-log benchmark: what the SQLite writer sustains, and what it adds to each action.

- ``writer_events_per_s_*``: events appended per second through ``Store.append`` (one
  transaction per call, on the writer thread), one event per call and 8 per call, by
  one table and by 20 tables at once.
- ``action_ms_*``: time from a player's command entering a table actor to its update
  being handed to the connection, without a log and with the log (append, commit, then
  send), mean and 95th percentile over a few hundred actions.
Run: `python tests/bench/log_bench.py`.
"""
from __future__ import annotations

import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# Bench files are run as scripts (`python tests/bench/run.py`, the Makefile's bench target;
# load_bench also starts itself as a worker script, restart_bench can time another checkout):
# Python puts only this folder on sys.path then, so the lines below add what it imports.
sys.path.insert(0, str(ROOT))

import protocol as p  # noqa: E402
from server.store import EventRow, Store, TableRecord  # noqa: E402
from server.table import Occupant, Pace, TableActor  # noqa: E402
from server.table import messages as tm

EVENT = {"type": "acted", "seat": 1, "call": "play", "card": "7o", "value": None}


def record(table_id: str) -> TableRecord:
    return TableRecord(table_id, "bench", "argentino", {}, "b", False, "", 0, [], "seed")


async def writer(store: Store, tables: int, per_call: int, seconds: float) -> float:
    for t in range(tables):
        await store.create_table(record(f"w{tables}-{per_call}-{t}"))
    count = 0
    stop = time.perf_counter() + seconds

    async def one(table_id: str) -> None:
        nonlocal count
        seq = 0
        while time.perf_counter() < stop:
            rows = [EventRow(seq + i + 1, 1, EVENT) for i in range(per_call)]
            await store.append(table_id, rows)
            seq += per_call
            count += per_call

    began = time.perf_counter()
    await asyncio.gather(*(one(f"w{tables}-{per_call}-{t}") for t in range(tables)))
    return count / (time.perf_counter() - began)


async def action_latency(store: Store | None, actions: int) -> list[float]:
    """Two people play (always the first legal card, else the first legal call)."""
    times: list[float] = []
    table_no = 0
    while len(times) < actions:
        table_no += 1
        updates: dict[int, p.TableUpdate] = {}
        arrived = asyncio.Event()

        def send(conn_id: int, frame: bytes) -> None:
            message = p.decode(frame)
            if isinstance(message, p.TableUpdate):
                updates[conn_id] = message
                arrived.set()

        table_id = f"lat{table_no}{'s' if store else ''}"
        seats = [Occupant("ana", 1), Occupant("beto", 2)]
        if store is not None:
            await store.create_table(record(table_id))
        actor = TableActor(table_id, "argentino", {"match_games": 1, "target": 15}, seats, send,
                           pace=Pace(bot_delay=0, hand_pause=0), seed=table_no, store=store)
        actor.start()
        while len(updates) < 2:
            arrived.clear()
            await arrived.wait()
        while len(times) < actions and not actor.finished:
            update = updates[1]
            if not update.waiting:
                arrived.clear()
                await arrived.wait()
                continue
            seat = update.waiting[0]
            view = updates[seat + 1].view
            legal = view.legal
            choice = next((a for a in legal if a.card), legal[0])
            seq = actor.seq
            arrived.clear()
            start = time.perf_counter()
            actor.post(tm.Act(seat + 1, p.TableAction(table_id=table_id, call=choice.call,
                                                      card=choice.card, cid=len(times) + 1)))
            while updates[seat + 1].seq == seq:
                arrived.clear()
                await arrived.wait()
            times.append((time.perf_counter() - start) * 1000)
        await actor.stop()
    return times


async def main_async() -> dict[str, float]:
    results: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as tmp:
        store = Store(Path(tmp) / "bench.sqlite3")
        await store.open()
        try:
            for tables, per_call in ((1, 1), (1, 8), (20, 1), (20, 8)):
                key = f"writer_events_per_s_{tables}tables_{per_call}per_commit"
                results[key] = await writer(store, tables, per_call, 1.5)
            plain = await action_latency(None, 400)
            logged = await action_latency(store, 400)
        finally:
            await store.close()
    results["action_ms_mean_no_log"] = statistics.mean(plain)
    results["action_ms_p95_no_log"] = statistics.quantiles(plain, n=20)[-1]
    results["action_ms_mean_with_log"] = statistics.mean(logged)
    results["action_ms_p95_with_log"] = statistics.quantiles(logged, n=20)[-1]
    results["action_ms_added_by_log"] = results["action_ms_mean_with_log"] - results["action_ms_mean_no_log"]
    return results


def run() -> dict[str, float]:
    return asyncio.run(main_async())


if __name__ == "__main__":
    for name, value in run().items():
        print(f"{name:44s} {value:12.3f}")
