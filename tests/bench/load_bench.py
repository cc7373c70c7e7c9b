"""Load generator: bot-driven asyncssh clients with PTYs playing real 4-player tables.

The server runs in its own process. The clients (asyncssh + a pyte screen each) are spread
over a few worker processes (this file run with --worker), each owning whole tables so a
mover and the three players watching it share one clock. Tables are set up in parallel
through private tables: the owner ticks "Private" in the New-table form and reads the code
off its screen; the other three press k in the lobby and type it. A bounded number of
tables is set up at once, so connects (CPU heavy for both sides) do not stampede.

When every table that could be set up is playing, the measurement window starts: each table
acts once a second (whoever's screen says "Your move." presses the key a person would read
off it), and each worker records the time from the key press to the change arriving on the
other three players' screens. The parent reads the server's CPU time from /proc over that
window only; the workers report their own. Everything stays on 127.0.0.1 and is bounded by
deadlines; tables that could not be set up in time are reported, never hidden.

Also measured here, on one table: the bytes one client receives for one complete hand
(raw, and zlib-compressed the way SSH compresses: one stream, a sync flush per write),
and the first paint of the table screen.
Run: `python tests/bench/load_bench.py --tables 1 25`.
"""
from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import math
import re
import sys
import tempfile
import time
import zlib
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parents[1]))
sys.path.insert(0, str(HERE.parents[1] / "tests" / "e2e"))

import protocol as p  # noqa: E402
from harness import ScreenClient  # noqa: E402
from session_bench import ServerProcess, connect_to_lobby, cpu_seconds  # noqa: E402
from table_bench import choose_key  # noqa: E402

TAB, ENTER, DOWN, ESC, CTRL_S = "\t", "\r", "\x1b[B", "\x1b", "\x13"
STEP_TIMEOUT = 30.0  # one step of setting up (a screen to appear) under load
DRAW_TIMEOUT = 5.0  # a watcher's screen not changed by then counts as not redrawn
SETUP_AT_ONCE = 8  # tables being set up at the same time, over all workers
CODE = re.compile(r"code\W+([%s]{%d})\b" % ("A-Z2-9", p.CODE_LEN))
FOUR_PLAYERS = re.compile(r"Players\s+4 players")
TIMER_OFF = re.compile(r"Turn timer \(s\)\s+off")
SERVER_FLAGS = ("--hand-pause", "1.0")


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


async def press_and_see(client: ScreenClient, key: str) -> None:
    """A key, then wait until the screen changes (a dialog or a list opened)."""
    before = client.text()
    client.send(key)
    await client.wait_for(lambda t: t != before, STEP_TIMEOUT)


async def select_next(client: ScreenClient, chosen: re.Pattern[str]) -> None:
    """On a focused drop-down: open it, move one down and take it, until `chosen` shows.

    A key that arrives before the opened list has focus goes to the closed drop-down, which
    then keeps its value; the pattern on the screen tells, and the step is tried again.
    """
    for _ in range(3):
        await press_and_see(client, ENTER)
        await keys(client, DOWN, ENTER, pause=0.1)
        with contextlib.suppress(AssertionError):
            await client.wait_for(lambda t: chosen.search(t) is not None, STEP_TIMEOUT)
            return
    raise AssertionError(f"the form never showed {chosen.pattern!r}; screen:\n{client.text()}")


async def create_table(owner: ScreenClient, *, private: bool) -> str | None:
    """Owner's New-table form: 4 players, turn timer off; the join code if private."""
    owner.send("n")
    await owner.wait_for("New table", STEP_TIMEOUT)
    await keys(owner, TAB)  # Game -> Players
    await select_next(owner, FOUR_PLAYERS)
    await keys(owner, TAB, TAB)  # -> Table name -> Private
    if private:
        owner.send(" ")
        await owner.wait_for("[x] Private", STEP_TIMEOUT)
    await keys(owner, TAB)  # -> Turn timer
    await select_next(owner, TIMER_OFF)
    owner.send(CTRL_S)
    text = await owner.wait_for("Waiting for", STEP_TIMEOUT)
    if not private:
        return None
    # The code comes in a notification that may wrap; join the screen's lines to read it.
    text = await owner.wait_for(lambda t: CODE.search(t) is not None, STEP_TIMEOUT)
    return CODE.search(text).group(1)  # type: ignore[union-attr]


async def join_by_code(client: ScreenClient, code: str) -> None:
    """In the lobby: k, type the code, Enter; until the table screen shows."""
    for _ in range(3):
        await press_and_see(client, "k")
        await client.wait_for("Join a private table", STEP_TIMEOUT)
        client.send(code + ENTER)
        with contextlib.suppress(AssertionError):
            await client.wait_for(lambda t: "Waiting for" in t or "Hand 1" in t, STEP_TIMEOUT)
            return
        if "Join a private table" in client.text():
            client.send(ESC)  # the code went astray (typed before the prompt had focus): again
        await asyncio.sleep(0.3)
    raise AssertionError(f"never got to the table with code {code}; screen:\n{client.text()}")


async def set_up_private_table(port: int, n: int, players: list[ScreenClient]) -> None:
    """Four players (appended to `players` as they connect) at one private table, playing."""
    for i in range(4):
        client, _ = await connect_to_lobby(port, f"t{n}p{i}")
        players.append(client)
    code = await create_table(players[0], private=True)
    assert code is not None
    await asyncio.gather(*(join_by_code(c, code) for c in players[1:]))
    await asyncio.gather(*(c.wait_for("Hand 1", STEP_TIMEOUT) for c in players))


class PlayStats:
    def __init__(self) -> None:
        self.actions = 0
        self.latencies: list[float] = []  # seconds, one per watcher screen that changed
        self.not_redrawn = 0  # watcher screens that did not change within DRAW_TIMEOUT


async def act(mover: ScreenClient, others: list[ScreenClient], key: str, stats: PlayStats) -> bool:
    """Press a key; time its arrival on the other screens. False when nobody's screen moved
    (the key was not a legal move)."""
    befores = [c.text() for c in others]
    pressed = time.perf_counter()
    mover.send(key)

    async def drawn(client: ScreenClient, before: str) -> float:
        await client.wait_for(lambda t: t != before, DRAW_TIMEOUT)
        return client.changed_at - pressed

    results = await asyncio.gather(*(drawn(c, b) for c, b in zip(others, befores)),
                                   return_exceptions=True)
    seen = [r for r in results if isinstance(r, float)]
    if not seen:
        return False
    stats.actions += 1
    stats.latencies.extend(seen)
    stats.not_redrawn += len(results) - len(seen)
    return True


async def play_table(players: list[ScreenClient], until: float, stats: PlayStats) -> None:
    """One action per second: whoever the screen says must move presses a key."""
    tick = time.monotonic()
    while tick < until:
        mover = next((c for c in players if "Your move." in c.text()), None)
        if mover is not None:
            others = [c for c in players if c is not mover]
            for key in choose_key(mover.text()):
                if await act(mover, others, key, stats):
                    break
        tick += 1.0
        await asyncio.sleep(max(0.0, tick - time.monotonic()))


def pct(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(q * (len(values) - 1) + 0.5))] if values else float("nan")


# -- a worker process: whole tables, set up, then played on the parent's word ---------------
async def close_all(clients: list[ScreenClient]) -> None:
    await asyncio.gather(*(c.close() for c in clients), return_exceptions=True)


async def worker(port: int, tables: list[int], at_once: int, setup_deadline: float) -> None:
    """Sets up `tables`, says so on stdout, waits for "go START UNTIL" on stdin, plays, reports."""
    started = time.monotonic()
    gate = asyncio.Semaphore(at_once)
    playing: list[list[ScreenClient]] = []
    errors: list[str] = []

    async def one(n: int) -> None:
        async with gate:
            players: list[ScreenClient] = []
            try:
                left = setup_deadline - time.monotonic()
                if left <= 0:
                    raise asyncio.TimeoutError
                await asyncio.wait_for(set_up_private_table(port, n, players), left)
                playing.append(players)
            except Exception as exc:  # noqa: BLE001 - a table not set up is reported, not fatal
                errors.append(f"table {n}: {type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}")
                await close_all(players)

    await asyncio.gather(*(one(n) for n in tables))
    say({"ready": len(playing), "failed": len(tables) - len(playing), "errors": errors[:3],
         "setup_seconds": time.monotonic() - started})
    line = await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)
    _, start, until = line.split()
    await asyncio.sleep(max(0.0, float(start) - time.monotonic()))
    stats = PlayStats()
    cpu0 = time.process_time()
    await asyncio.gather(*(play_table(players, float(until), stats) for players in playing))
    cpu = time.process_time() - cpu0
    say({"actions": stats.actions, "latencies": stats.latencies, "not_redrawn": stats.not_redrawn,
         "cpu_seconds": cpu})
    await close_all([c for players in playing for c in players])


def say(message: dict[str, object]) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


# -- the parent: the server, the workers, the measurement window ------------------------------
async def read_message(proc: asyncio.subprocess.Process, deadline: float) -> dict[str, object]:
    assert proc.stdout is not None
    line = await asyncio.wait_for(proc.stdout.readline(), max(1.0, deadline - time.monotonic()))
    if not line:
        raise RuntimeError(f"a load worker exited (code {await proc.wait()})")
    return dict(json.loads(line))


def worker_count(tables: int) -> int:
    return 1 if tables < 4 else min(4, math.ceil(tables / 10))


async def measure_load(tables: int, seconds: float, setup_budget: float,
                       workers: int | None = None) -> dict[str, object]:
    workers = workers or worker_count(tables)
    shares = [list(range(tables))[w::workers] for w in range(workers)]
    with tempfile.TemporaryDirectory() as tmp:
        server = ServerProcess(Path(tmp), *SERVER_FLAGS)
        procs: list[asyncio.subprocess.Process] = []
        try:
            warm, _ = await connect_to_lobby(server.port, "warmup")  # imports, the first app
            await warm.close()
            setup_started = time.monotonic()
            setup_cpu0 = cpu_seconds(server.proc.pid)
            deadline = setup_started + setup_budget
            at_once = max(1, math.ceil(SETUP_AT_ONCE / workers))
            for w, share in enumerate(shares):
                procs.append(await asyncio.create_subprocess_exec(
                    sys.executable, __file__, "--worker", "--port", str(server.port),
                    "--at-once", str(at_once), "--setup-deadline", repr(deadline),
                    "--tables", *map(str, share),
                    stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
                    stderr=open(Path(tmp) / f"worker{w}.log", "wb"),
                ))
            readies = [await read_message(proc, deadline + 60) for proc in procs]
            setup_seconds = time.monotonic() - setup_started
            setup_cpu = cpu_seconds(server.proc.pid) - setup_cpu0
            start = time.monotonic() + 0.5
            until = start + seconds
            for proc in procs:
                assert proc.stdin is not None
                proc.stdin.write(f"go {start!r} {until!r}\n".encode())
                await proc.stdin.drain()
            await asyncio.sleep(start - time.monotonic())
            cpu0 = cpu_seconds(server.proc.pid)
            await asyncio.sleep(until - time.monotonic())
            cpu = cpu_seconds(server.proc.pid) - cpu0
            reports = [await read_message(proc, until + DRAW_TIMEOUT + 60) for proc in procs]
            for proc in procs:
                await asyncio.wait_for(proc.wait(), 60)
        finally:
            for proc in procs:
                if proc.returncode is None:
                    proc.kill()
                    await proc.wait()
            server.stop()
            logs = "".join((Path(tmp) / f"worker{w}.log").read_text(errors="replace")[-2000:]
                           for w in range(len(procs)))
            if logs.strip():
                print(logs, file=sys.stderr)
    playing = sum(int(r["ready"]) for r in readies)  # type: ignore[call-overload]
    actions = sum(int(r["actions"]) for r in reports)  # type: ignore[call-overload]
    latencies = [x for r in reports for x in r["latencies"]]  # type: ignore[union-attr]
    errors = [e for r in readies for e in r["errors"]]  # type: ignore[union-attr]
    per_action = cpu / max(1, actions)
    figures: dict[str, object] = {
        "tables_requested": float(tables),
        "tables_playing": float(playing),
        "client_workers": float(workers),
        "setup_seconds": setup_seconds,
        "setup_server_busy_percent": setup_cpu / setup_seconds * 100,
        "actions": float(actions),
        "actions_per_second_requested": float(playing),
        "actions_per_second": actions / seconds,
        "server_cpu_per_action_ms": per_action * 1000,
        "server_cpu_per_action_per_watching_seat_ms": per_action / 4 * 1000,
        "server_cpu_busy_percent": cpu / seconds * 100,
        "clients_cpu_percent": sum(float(r["cpu_seconds"]) for r in reports) / seconds * 100,  # type: ignore[arg-type]
        "press_to_draw_median_ms": pct(latencies, 0.5) * 1000,
        "press_to_draw_p99_ms": pct(latencies, 0.99) * 1000,
        "screens_not_redrawn_in_5s": float(sum(int(r["not_redrawn"]) for r in reports)),  # type: ignore[call-overload]
    }
    if errors:
        figures["setup_errors"] = "; ".join(errors[:3])
    return figures


async def measure_bytes() -> dict[str, float]:
    """One client's bytes for the first paint of the table and for one complete hand."""
    with tempfile.TemporaryDirectory() as tmp:
        server = ServerProcess(Path(tmp), *SERVER_FLAGS)
        players: list[ScreenClient] = []
        try:
            names = [f"b{i}" for i in range(4)]
            for name in names:
                client, _ = await connect_to_lobby(server.port, name)
                players.append(client)
            watcher = players[3]
            rec = Recorder(watcher)
            await create_table(players[0], private=False)
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
            stats = PlayStats()
            task = asyncio.ensure_future(play_table(players, time.monotonic() + 120, stats))
            await watcher.wait_for("Hand 2", 120)
            hand = list(rec.chunks)
            hand_actions = stats.actions
            task.cancel()
        finally:
            await close_all(players)
            server.stop()
    return {
        "first_table_paint_bytes": float(sum(map(len, first))),
        "first_table_paint_bytes_zlib": float(compressed_size(first)),
        "hand_bytes_per_client": float(sum(map(len, hand))),
        "hand_bytes_per_client_zlib": float(compressed_size(hand)),
        "hand_actions": float(hand_actions),
    }


def run_load(tables: int, seconds: float = 20.0, setup_budget: float = 150.0,
             workers: int | None = None) -> dict[str, object]:
    return asyncio.run(measure_load(tables, seconds, setup_budget, workers))


def run_bytes() -> dict[str, float]:
    return asyncio.run(measure_bytes())


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tables", type=int, nargs="*", default=[1])
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--setup-budget", type=float, default=150.0)
    parser.add_argument("--workers", type=int, default=None)
    parser.add_argument("--no-bytes", action="store_true")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--port", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--at-once", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--setup-deadline", type=float, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        asyncio.run(worker(args.port, args.tables, args.at_once, args.setup_deadline))
        return
    if not args.no_bytes:
        for key, value in run_bytes().items():
            print(f"{key:44s} {value:10.2f}")
    for n in args.tables:
        for key, value in run_load(n, args.seconds, args.setup_budget, args.workers).items():
            print(f"{key:44s} {value:10.2f}" if isinstance(value, float) else f"{key:44s} {value}")


if __name__ == "__main__":
    main()
