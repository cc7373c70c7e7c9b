"""Load generator: bot-driven asyncssh clients with PTYs playing real 4-player tables.

The server runs in its own process; this process holds every client (asyncssh + a pyte
screen each). Each client acts when its screen says "Your move." (an answer if one is
offered, else a card: the keys a person reads off the screen), at one action per second
per table. For each action, the time from the key press to the change on the other three
players' screens is recorded, and the server's CPU time is read from /proc. Everything
stays on 127.0.0.1 and is bounded by a deadline; tables that could not be set up in time
are reported, not hidden.

Also measured here, on one table: the bytes one client receives for one complete hand
(raw, and zlib-compressed the way SSH compresses: one stream, a sync flush per write),
and the first paint of the table screen.
Run: `python tests/bench/load_bench.py --tables 1 25`.
"""
from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
import zlib
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parents[1] / "tests" / "e2e"))

from harness import ScreenClient  # noqa: E402
from session_bench import ServerProcess, connect_to_lobby, cpu_seconds  # noqa: E402
from table_bench import choose_key  # noqa: E402

TAB, ENTER, DOWN, CTRL_S = "\t", "\r", "\x1b[B", "\x13"


def compressed_size(chunks: list[bytes]) -> int:
    comp = zlib.compressobj()
    return sum(len(comp.compress(c) + comp.flush(zlib.Z_SYNC_FLUSH)) for c in chunks)


class Recorder:
    """Keeps the chunks one client received, as they arrived."""

    def __init__(self, client: ScreenClient) -> None:
        self.chunks: list[bytes] = []
        self.client = client
        feed = client.stream.feed

        def recording_feed(data: bytes) -> None:
            self.chunks.append(bytes(data))
            feed(data)

        client.stream.feed = recording_feed  # type: ignore[method-assign]


async def keys(client: ScreenClient, *sequence: str, pause: float = 0.12) -> None:
    for key in sequence:
        client.send(key)
        await asyncio.sleep(pause)


async def set_up_table(port: int, n: int) -> list[ScreenClient]:
    """Four players at one table (turn timer off), ready to play."""
    names = [f"t{n}p{i}" for i in range(4)]
    players = []
    for name in names:
        client, _ = await connect_to_lobby(port, name)
        players.append(client)
    owner = players[0]
    owner.send("n")
    await owner.wait_for("New table", 20)
    await asyncio.sleep(0.2)
    await keys(owner, TAB, ENTER, DOWN, ENTER)  # players: 4
    await keys(owner, TAB, TAB, TAB, ENTER, DOWN, ENTER, CTRL_S)  # turn timer: off
    await owner.wait_for("Waiting for", 20)
    for client in players[1:]:
        await client.wait_for("waiting", 20)
        # The lobby keeps the cursor on the table it was on; the waiting table sorts first.
        await keys(client, *["\x1b[A"] * 3, pause=0.05)
        client.send("j")
        await client.wait_for(lambda t: "Waiting for" in t or "Hand 1" in t, 20)
    for client in players:
        await client.wait_for("Hand 1", 20)
    return players


async def play_table(players: list[ScreenClient], until: float, latencies: list[float],
                     actions: list[int]) -> None:
    """One action per second: whoever the screen says must move presses a key."""
    while time.monotonic() < until:
        started = time.monotonic()
        mover = next((c for c in players if "Your move." in c.text()), None)
        if mover is not None:
            others = [c for c in players if c is not mover]
            for key in choose_key(mover.text()):
                before = [c.text() for c in others]
                t0 = time.perf_counter()
                mover.send(key)
                waits = [asyncio.ensure_future(c.wait_for(lambda t, b=b: t != b, timeout=3.0))
                         for c, b in zip(others, before)]
                done = 0
                for w, c in zip(waits, others):
                    try:
                        await w
                        latencies.append(time.perf_counter() - t0)
                        done += 1
                    except AssertionError:
                        pass
                if done:
                    actions[0] += 1
                    break
        await asyncio.sleep(max(0.05, 1.0 - (time.monotonic() - started)))


def pct(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(q * (len(values) - 1) + 0.5))] if values else float("nan")


async def measure_load(tables: int, seconds: float, setup_budget: float) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as tmp:
        server = ServerProcess(Path(tmp), "--hand-pause", "1.0")
        all_clients: list[ScreenClient] = []
        try:
            warm, _ = await connect_to_lobby(server.port, "warmup")
            await warm.close()
            set_up: list[list[ScreenClient]] = []
            deadline = time.monotonic() + setup_budget
            for n in range(tables):  # one after another: "j" takes the one waiting table
                if time.monotonic() > deadline:
                    break
                try:
                    players = await set_up_table(server.port, n)
                except AssertionError:  # too slow to set up under this load: report, go on
                    break
                set_up.append(players)
                all_clients.extend(players)
            latencies: list[float] = []
            actions = [0]
            cpu0 = cpu_seconds(server.proc.pid)
            until = time.monotonic() + seconds
            await asyncio.gather(*(play_table(p, until, latencies, actions) for p in set_up))
            cpu = cpu_seconds(server.proc.pid) - cpu0
        finally:
            for client in all_clients:
                await client.close()
            server.stop()
    return {
        "tables_requested": float(tables),
        "tables_playing": float(len(set_up)),
        "actions": float(actions[0]),
        "actions_per_second": actions[0] / seconds,
        "server_cpu_per_action_ms": cpu / max(1, actions[0]) * 1000,
        "server_cpu_per_action_per_watching_seat_ms": cpu / max(1, actions[0]) / 4 * 1000,
        "server_cpu_busy_percent": cpu / seconds * 100,
        "press_to_draw_median_ms": pct(latencies, 0.5) * 1000,
        "press_to_draw_p99_ms": pct(latencies, 0.99) * 1000,
    }


async def measure_bytes() -> dict[str, float]:
    """One client's bytes for the first paint of the table and for one complete hand."""
    with tempfile.TemporaryDirectory() as tmp:
        server = ServerProcess(Path(tmp), "--hand-pause", "1.0")
        players: list[ScreenClient] = []
        try:
            names = [f"b{i}" for i in range(4)]
            for name in names:
                client, _ = await connect_to_lobby(server.port, name)
                players.append(client)
            watcher = players[3]
            rec = Recorder(watcher)
            owner = players[0]
            owner.send("n")
            await owner.wait_for("New table", 20)
            await asyncio.sleep(0.2)
            await keys(owner, TAB, ENTER, DOWN, ENTER)
            await keys(owner, TAB, TAB, TAB, ENTER, DOWN, ENTER, CTRL_S)
            await owner.wait_for("Waiting for", 20)
            for client in players[1:3]:
                await client.wait_for("waiting", 20)
                client.send("j")
                await client.wait_for("Waiting for", 20)
            await watcher.wait_for("waiting", 20)
            await asyncio.sleep(0.5)
            rec.chunks.clear()
            watcher.send("j")  # the 4th seat: the hand is dealt at once
            await watcher.wait_for("Hand 1", 20)
            await asyncio.sleep(0.5)
            first = list(rec.chunks)
            rec.chunks.clear()
            latencies: list[float] = []
            actions = [0]
            task = asyncio.ensure_future(play_table(players, time.monotonic() + 120, latencies, actions))
            await watcher.wait_for("Hand 2", 120)
            hand = list(rec.chunks)
            hand_actions = actions[0]
            task.cancel()
        finally:
            for client in players:
                await client.close()
            server.stop()
    return {
        "first_table_paint_bytes": float(sum(map(len, first))),
        "first_table_paint_bytes_zlib": float(compressed_size(first)),
        "hand_bytes_per_client": float(sum(map(len, hand))),
        "hand_bytes_per_client_zlib": float(compressed_size(hand)),
        "hand_actions": float(hand_actions),
    }


def run_load(tables: int, seconds: float = 20.0, setup_budget: float = 150.0) -> dict[str, float]:
    return asyncio.run(measure_load(tables, seconds, setup_budget))


def run_bytes() -> dict[str, float]:
    return asyncio.run(measure_bytes())


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--tables", type=int, nargs="*", default=[1])
    parser.add_argument("--seconds", type=float, default=20.0)
    args = parser.parse_args()
    for key, value in run_bytes().items():
        print(f"{key:44s} {value:10.2f}")
    for n in args.tables:
        for key, value in run_load(n, args.seconds).items():
            print(f"{key:44s} {value:10.2f}")
