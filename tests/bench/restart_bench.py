"""Restart benchmark: how soon a restarted server listens, and how soon every table is back.

For 10, 100 and 1,000 open tables, each with a long history (``HISTORY`` finished matches
before the one in progress, cut at a random move), a data directory is written through
the store's public interface, then the real server (``truco-ssh serve``, a subprocess) is
started on it, as after a crash. Measured from the moment the process is started:

- ``listening_s``: the server prints that it listens (SSH connections are accepted);
- ``restored_s``: the last open table is back (the server logs ``restored table ...`` for
  each table; a server that restores before listening gets ``restored_s`` <= ``listening_s``).

``empty_listening_s`` is the same start on an empty data directory: the interpreter,
imports and the host key, which no table count changes. ``tables_1000_no_snapshots_*``: the
first restart after an upgrade from a store without snapshots (each current match replayed
from its start).

The logs are real bot-played matches (the engine, 2-player and 4-player Argentine to 30
and 3-player Uruguayan), written as the server writes them: where the store takes state
snapshots (``Store.append(..., snapshot=...)``), the state before each deal goes with it.

Run: ``python tests/bench/restart_bench.py`` (``--code DIR`` measures another checkout's
server, e.g. main's, with the same logs; ``--tables 10,100``; ``--runs 2``).
"""
from __future__ import annotations

import argparse
import inspect
import json
import os
import random
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]

HISTORY = 3  # finished matches before the current one, per table
KINDS = (("argentino", 2), ("argentino", 4), ("uruguayo", 3))  # variant, players (default options)
RESTORED = re.compile(r"restored table (\S+)")


def _code_root(argv: list[str]) -> Path:
    for i, arg in enumerate(argv):
        if arg == "--code" and i + 1 < len(argv):
            return Path(argv[i + 1]).resolve()
        if arg.startswith("--code="):
            return Path(arg.split("=", 1)[1]).resolve()
    return ROOT


CODE = _code_root(sys.argv)
# Bench files are run as scripts (`python tests/bench/run.py`, the Makefile's bench target;
# load_bench also starts itself as a worker script, restart_bench can time another checkout):
# Python puts only this folder on sys.path then, so the lines below add what it imports.
sys.path.insert(0, str(CODE))

import engine  # noqa: E402
from server.store import EventRow, Store, TableRecord  # noqa: E402


def play_match(variant: str, n: int, options: dict[str, Any], seed: int
               ) -> tuple[list[dict[str, Any]], list[int], dict[int, Any]]:
    """One bot-played match: its events (wire form), the indexes after which a move's events
    end (cut points), and the state before each deal by the index of its first event."""
    rules = engine.get_ruleset(variant, **options)
    rng = random.Random(seed)
    state, events = engine.new_match(rules, n, rng)
    log = [e.to_wire() for e in events]
    cuts = [len(log)]
    before_deal: dict[int, Any] = {}
    while not state.match_over:
        if state.needs_deal:
            before_deal[len(log)] = state
            state, events = engine.deal(state, rng)
        else:
            seat = next(s for s in range(n) if engine.legal_actions(state, s))
            seat_view = engine.view(state, seat)
            action = engine.choose_action(seat_view, rules, rng) or seat_view.legal[0]
            state, events = engine.apply(state, action)
        log.extend(e.to_wire() for e in events)
        cuts.append(len(log))
    return log, cuts[:-1], before_deal


def snapshot_support() -> bool:
    return "snapshot" in inspect.signature(Store.append).parameters


async def write_data(data_dir: Path, tables: int, seed: int = 7, snapshots: bool = True) -> int:
    """``tables`` open tables, each with HISTORY finished matches and one cut short
    (``snapshots=False``: a log written before the store took snapshots)."""
    import asyncio

    rng = random.Random(seed)
    matches = {kind: [play_match(kind[0], kind[1], {}, s) for s in range(4)] for kind in KINDS}
    snapshots = snapshots and snapshot_support()
    if snapshots:
        from server.store import Snapshot
        from server.table import snapshot_bytes
    store = Store(data_dir / "truco.sqlite3")
    await store.open()
    total = 0
    try:
        for t in range(tables):
            kind = KINDS[t % len(KINDS)]
            variant, n = kind
            seats = [{"name": f"p{t}", "fp": f"SHA256:bench{t}", "resume": "", "bot": False, "human": True}]
            seats += [{"name": f"Bot {i}", "fp": None, "resume": "", "bot": True, "human": False}
                      for i in range(1, n)]
            table_id = f"b{t:05d}"
            await store.create_table(TableRecord(
                table_id, f"bench {t}", variant, dict(engine.get_ruleset(variant).options),
                f"p{t}", False, "", 0, seats, f"seed{t}"))
            rows: list[EventRow] = []
            for match_no in range(1, HISTORY + 1):
                log, _, _ = rng.choice(matches[kind])
                offset = len(rows)
                rows += [EventRow(offset + i + 1, match_no, e) for i, e in enumerate(log)]
            await store.append(table_id, rows)
            log, cuts, before_deal = rng.choice(matches[kind])
            cut = rng.choice(cuts[len(cuts) // 4:])
            start = len(rows)
            current = [EventRow(start + i + 1, HISTORY + 1, e) for i, e in enumerate(log[:cut])]
            extra: dict[str, Any] = {}
            deals = [i for i in before_deal if i < cut]
            if snapshots and deals:
                i = max(deals)
                extra["snapshot"] = Snapshot(HISTORY + 1, start + i, snapshot_bytes(before_deal[i]))
            await store.append(table_id, current, **extra)
            total += len(rows) + len(current)
            if t % 50 == 49:
                await asyncio.sleep(0)
    finally:
        await store.close()
    return total


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def start_once(data_dir: Path, key: Path, tables: int, timeout: float = 120.0) -> dict[str, float]:
    """Start the server on ``data_dir``; seconds to listening and to the last table restored."""
    exe = Path(sys.executable).parent / "truco-ssh"
    env = dict(os.environ, PYTHONPATH=str(CODE))
    began = time.perf_counter()
    proc = subprocess.Popen(
        [str(exe), "serve", "--host", "127.0.0.1", "--port", str(free_port()), "--data-dir",
         str(data_dir), "--host-key", str(key), "--log-level", "INFO"],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env,
    )
    listening = restored_at = None
    restored: set[str] = set()
    assert proc.stdout is not None
    try:
        deadline = began + timeout
        for line in proc.stdout:
            now = time.perf_counter() - began
            m = RESTORED.search(line)
            if m:
                restored.add(m.group(1))
                if len(restored) == tables:
                    restored_at = now
            elif "listening on" in line and listening is None:
                listening = now
            elif "ERROR" in line or "Traceback" in line:
                raise RuntimeError(f"the server failed: {line.strip()}")
            if listening is not None and len(restored) >= tables:
                break
            if time.perf_counter() > deadline:
                raise RuntimeError(f"not done in {timeout} s: {len(restored)} tables restored")
        else:
            raise RuntimeError("the server stopped")
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    assert listening is not None
    return {"listening_s": listening, "restored_s": restored_at if restored_at is not None else 0.0}


def run(table_counts: tuple[int, ...] = (10, 100, 1000), runs: int = 2) -> dict[str, object]:
    import asyncio

    figures: dict[str, object] = {"history_matches_per_table": HISTORY,
                                  "snapshots_in_log": snapshot_support()}
    with tempfile.TemporaryDirectory(prefix="truco-restart-") as tmp:
        base = Path(tmp)
        key = base / "key"
        empty = [start_once(base / "empty", key, 0)["listening_s"] for _ in range(runs)]
        figures["empty_listening_s"] = min(empty)
        runs_of = [(tables, True) for tables in table_counts]
        if snapshot_support() and table_counts:  # an upgrade: the first restart has no snapshots
            runs_of.append((max(table_counts), False))
        for tables, snapshots in runs_of:
            pristine = base / f"pristine{tables}"
            events = asyncio.run(write_data(pristine, tables, snapshots=snapshots))
            name = f"tables_{tables}" if snapshots else f"tables_{tables}_no_snapshots"
            figures[f"{name}_events"] = events
            listen, restored = [], []
            for _ in range(runs):
                # Every run starts from the same files: a restart changes them (bots move on).
                data = base / f"data{tables}"
                shutil.rmtree(data, ignore_errors=True)
                shutil.copytree(pristine, data)
                result = start_once(data, key, tables)
                listen.append(result["listening_s"])
                restored.append(result["restored_s"])
            figures[f"{name}_listening_s"] = statistics.median(listen)
            figures[f"{name}_all_restored_s"] = statistics.median(restored)
            shutil.rmtree(pristine, ignore_errors=True)
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--code", default=str(ROOT), help="checkout whose server is measured")
    parser.add_argument("--tables", default="10,100,1000")
    parser.add_argument("--runs", type=int, default=2)
    args = parser.parse_args()
    figures = run(tuple(int(n) for n in args.tables.split(",")), args.runs)
    print(json.dumps({"code": str(CODE), **figures}, indent=2))


if __name__ == "__main__":
    main()
