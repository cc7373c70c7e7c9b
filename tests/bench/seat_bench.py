"""Seat benchmark: the TUI's own CPU per seat, without SSH, clients or other processes.

In one process (Textual's headless driver, 80x24): four apps seated at a 4-player
Argentine table are fed the TableUpdates of a seeded game (mostly cards played, some calls
and answers: ``--steps`` moves), and the CPU each update costs one seat is measured (the
model, the redraw, the screen update; what the load bench's server figure holds besides:
SSH, the table actor, the log, the bytes written). Then, one app at a time, the CPU from
a new session to its drawn lobby, and from the lobby to a drawn table; and the CPU a
seated session costs each second while nothing happens (with and without a turn timer).
Steadier than the load bench on a shared machine (no latencies, no other process), so the
figure to compare before and after a change to the screens. Not part of `make bench` (tests/bench/run.py).
Run: ``python tests/bench/seat_bench.py [--steps 300] [--sessions 10]``.
"""
from __future__ import annotations

import argparse
import asyncio
import contextlib
import dataclasses
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))  # run as a script: the checkout's packages and tests

import engine  # noqa: E402
import protocol as p  # noqa: E402
from tests.tui.kit import TABLE_NAMES, FakeLink, seated_app, update_for, welcome  # noqa: E402
from tui import textual_patches  # noqa: E402
from tui.app import TrucoApp  # noqa: E402

TABLE4 = p.TableInfo(table_id="t1", title="la mesa", variant="argentino", owner="ana",
                     seats=TABLE_NAMES[:4], options={"target": 30, "flor": True}, status="playing")
SIZE = (80, 24)
GAP = 0.03  # seconds between updates: each seat's screen is drawn before the next
WARM_UP = 10  # updates not measured (first paints, caches)


def game(steps: int, seed: int = 5) -> list[tuple[engine.State, list[engine.Event]]]:
    """A seeded 4-player match: mostly cards and answers, sometimes any legal call."""
    rules = engine.get_ruleset("argentino", flor=True)
    rng = random.Random(seed)
    state, events = engine.new_match(rules, 4, rng)
    out = [(state, list(events))]
    for _ in range(steps):
        actions = engine.all_legal_actions(state)
        if not actions:
            break
        usual = [a for a in actions if a.card is not None
                 or a.call is not None and a.call.value in ("quiero", "no_quiero")]
        state, events = engine.advance(state, rng.choice(usual if usual and rng.random() < 0.8 else actions), rng)
        out.append((state, list(events)))
    return out


async def four_seats(stack: contextlib.AsyncExitStack) -> list[tuple[TrucoApp, FakeLink, int]]:
    """Four apps running (until ``stack`` closes), seated at TABLE4, before its first update."""
    apps = []
    for seat in range(4):
        link = FakeLink()
        apps.append((await seated_app(link, seat, table=TABLE4), link, seat))
    pilots = [await stack.enter_async_context(app.run_test(size=SIZE)) for app, _, _ in apps]
    for pilot in pilots:
        await pilot.pause(0.1)
    return apps


async def per_update(steps: int, subtract_building: bool = True) -> dict[str, float]:
    """``subtract_building``: the CPU of building and encoding the updates here is measured
    after the game and taken off the figure (tests/bench/seat_instructions.py counts the
    game alone: False)."""
    moves = game(steps)
    async with contextlib.AsyncExitStack() as stack:
        apps = await four_seats(stack)
        for _, link, seat in apps:
            link.push(update_for(moves[0][0], seat, 1, moves[0][1]))
        await asyncio.sleep(0.3)
        cpu0 = 0.0
        for n, (state, events) in enumerate(moves[1:]):
            if n == WARM_UP:
                cpu0 = time.process_time()
            for _, link, seat in apps:
                link.push(update_for(state, seat, n + 2, events))
            await asyncio.sleep(GAP)
        cpu = time.process_time() - cpu0
        measured = moves[1 + WARM_UP:]
        started = time.process_time()  # what building and encoding the updates cost here
        for state, events in measured if subtract_building else ():
            for seat in range(4):
                p.encode(update_for(state, seat, 1, events))
        built = time.process_time() - started
    per = (cpu - built) / max(1, len(measured)) / 4
    return {"updates": float(len(measured)), "tui_cpu_per_update_per_seat_ms": per * 1000}


async def idle(seconds: float = 5.0) -> dict[str, float]:
    """CPU per seated session per second while nothing happens at its table: without a turn
    timer, and with one running (a decision of 60 s, so it never runs out meanwhile)."""
    moves = game(12)
    out = {}
    for timed in (False, True):
        async with contextlib.AsyncExitStack() as stack:
            apps = await four_seats(stack)
            for n, (state, events) in enumerate(moves):
                for _, link, seat in apps:
                    update = update_for(state, seat, n + 1, events)
                    link.push(dataclasses.replace(update, timer=60.0) if timed else update)
                await asyncio.sleep(GAP)
            await asyncio.sleep(1.0)
            started = time.process_time()
            await asyncio.sleep(seconds)
            cpu = time.process_time() - started
        key = "idle_cpu_per_seat_per_second_timed_ms" if timed else "idle_cpu_per_seat_per_second_ms"
        out[key] = cpu / seconds / 4 * 1000
    return out


async def one_session(i: int) -> tuple[float, float]:
    """CPU from a new app to its drawn lobby, and from there to a drawn table."""
    name = TABLE_NAMES[i % 4]
    link = FakeLink()
    app = TrucoApp(link, name, "en")
    rules = engine.get_ruleset("argentino", flor=True)
    state, events = engine.new_match(rules, 4, random.Random(3))
    started = time.process_time()
    link.push(*welcome(name))
    async with app.run_test(size=SIZE) as pilot:
        for _ in range(100):
            await asyncio.sleep(0.01)
            if type(app.screen).__name__ == "LobbyScreen":
                break
        await pilot.pause()
        lobby = time.process_time()
        link.push(p.TableUpdated(table=TABLE4), p.Seated(table_id="t1", seat=i % 4),
                  update_for(state, i % 4, 1, events))
        for _ in range(100):
            await asyncio.sleep(0.01)
            if type(app.screen).__name__ == "TableScreen":
                break
        await pilot.pause()
        await asyncio.sleep(0.05)
        seated = time.process_time()
    return lobby - started, seated - lobby


async def per_session(sessions: int) -> dict[str, float]:
    await one_session(0)  # imports, the first parse of the stylesheets
    times = [await one_session(i) for i in range(sessions)]
    lobby = statistics.median(t[0] for t in times)
    table = statistics.median(t[1] for t in times)
    return {"sessions": float(sessions), "new_session_to_lobby_cpu_ms": lobby * 1000,
            "lobby_to_table_cpu_ms": table * 1000, "new_session_to_table_cpu_ms": (lobby + table) * 1000}


def run(steps: int = 300, sessions: int = 10) -> dict[str, float]:
    textual_patches.install()
    return {**asyncio.run(per_update(steps)), **asyncio.run(idle()), **asyncio.run(per_session(sessions))}


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=300)
    parser.add_argument("--sessions", type=int, default=10)
    args = parser.parse_args()
    for key, value in run(args.steps, args.sessions).items():
        print(f"{key:36s} {value:10.2f}")
