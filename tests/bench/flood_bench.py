"""Flood benchmark: one hostile client against everyone else's round trips, over real SSH.

The server runs in its own process. A flooder (this file run with --flood, its own process,
connecting from 127.0.0.2) types lobby chat lines as fast as its SSH link lets it write and
changes its window size every millisecond. Meanwhile, from 127.0.0.1, two players chat in
the lobby (the time from pressing Enter to the line on the other player's screen and back
on the sender's) and four play one table (one action a second, press to drawn on the other
three screens, as load_bench measures it). The same is measured first without the flooder.
The parent reads the server's CPU time from /proc over each window.
Run: `python tests/bench/flood_bench.py [--seconds 15]`.
"""
from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
# Bench files are run as scripts (`python tests/bench/run.py`, the Makefile's bench target;
# this one also starts itself as the flooder): Python puts only this folder on sys.path then,
# so the lines below add what it imports.
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parents[1]))
sys.path.insert(0, str(HERE.parents[1] / "tests" / "e2e"))

from harness import ScreenClient  # noqa: E402
from load_bench import PlayStats, close_all, pct, play_table, set_up_private_table  # noqa: E402
from session_bench import ServerProcess, connect_to_lobby, cpu_seconds  # noqa: E402

ScreenClient.feed_slice = 2048  # the measuring clients' screens do not hold each other's reads

FLOOD_ADDRESS = "127.0.0.2"  # the flooder: another address, as on the internet
CHAT_EVERY = 1.2  # seconds between two lines of the measured chatters (the chat limit is 1/s)
CHAT_TIMEOUT = 10.0
AFTER_SECONDS = 3.0  # the chat measured right after the flood stops
# The flood's first seconds, while the input budget's burst is being spent, are measured on
# their own ("start_"), then the steady flood ("flood_").
FLOOD_WARMUP = 3.0
SETTLE_LOOK = 0.25  # seconds between two looks at the server's CPU time, waiting for it to settle
SETTLE_BUSY = 0.2  # settled: under this share of a core over two looks in a row
SETTLE_MAX = 10.0
LAG_WINDOW = 1.0  # seconds each of the server's event-loop lag summaries covers (server/ops/loop_lag.py)


# -- the flooder (its own process) -------------------------------------------------------------
KINDS = ("chat", "keys", "resize", "paste")
# What a key flood types: moves over the lobby's tables and players, Tab, a help opened and
# closed (screens pushed and popped): keys that cost the server work but change nothing.
KEY_STORM = "\x1b[B\x1b[A\t?\x1b[B\x1b[A\x1b"
PASTE = ("x" * 60 + " ") * 60  # a paste of 3,660 characters into the chat, over and over


async def flood_one(port: int, seconds: float, kinds: tuple[str, ...], number: int,
                    everyone_in: asyncio.Barrier, go: asyncio.Event) -> dict[str, float]:
    """One flooding session: in the lobby, then (once every session is in and the parent
    says go) ``seconds`` of flood; the first through the barrier tells the parent, which
    lets the server settle, says go and measures from then on (its first FLOOD_WARMUP
    seconds apart)."""
    client = ScreenClient()
    name = f"flooder{number}"
    await client.connect(port, name, local_addr=FLOOD_ADDRESS)
    await client.wait_for(lambda t: "Lobby" in t and name in t, 60)
    client.muted = True  # its screen is not read: the flooder spends nothing on it
    process = client.process
    assert process is not None
    if await everyone_in.wait() == 0:
        sys.stdout.write("connected\n")
        sys.stdout.flush()
    await go.wait()
    stop = time.monotonic() + seconds
    sent = {"bytes_written": 0.0, "lines": 0.0, "keys": 0.0, "resizes": 0.0, "pastes": 0.0}

    async def write(data: str) -> None:
        process.stdin.write(data.encode())
        sent["bytes_written"] += len(data)
        with contextlib.suppress(asyncio.TimeoutError):  # the window stays shut: time is up
            await asyncio.wait_for(process.stdin.drain(), max(0.01, stop - time.monotonic()))

    async def chat() -> None:
        n = 0
        while time.monotonic() < stop:
            await write(f"c flood {n} " + "x" * 40 + "\r")  # the first c opens the chat (it stays open)
            sent["lines"] += 1
            n += 1

    async def keys() -> None:
        while time.monotonic() < stop:
            await write(KEY_STORM)
            sent["keys"] += KEY_STORM.count("\x1b") + 2

    async def paste() -> None:
        while time.monotonic() < stop:
            await write("c\x1b[200~" + PASTE + "\x1b[201~\r")  # bracketed paste, then Enter
            sent["pastes"] += 1

    async def storm() -> None:
        n = 0
        while time.monotonic() < stop:
            process.change_terminal_size(60 + n % 40, 20 + n % 10)
            sent["resizes"] += 1
            n += 1
            await asyncio.sleep(0.001)

    jobs = {"chat": chat, "keys": keys, "resize": storm, "paste": paste}
    results = await asyncio.gather(*(jobs[kind]() for kind in kinds), return_exceptions=True)
    sent["errors"] = float(sum(isinstance(r, BaseException) for r in results))
    await client.close()
    return sent


async def flood(port: int, seconds: float, kinds: tuple[str, ...] = ("chat", "resize"),
                connections: int = 1) -> dict[str, float]:
    """``connections`` sessions from one address, each flooding with every one of ``kinds``."""
    cpu0 = time.process_time()
    everyone_in = asyncio.Barrier(connections)
    go = asyncio.Event()

    async def wait_for_go() -> None:  # a line on stdin
        await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)
        go.set()

    waiting = asyncio.create_task(wait_for_go())
    each = await asyncio.gather(*(flood_one(port, seconds, kinds, n, everyone_in, go) for n in range(connections)))
    await waiting
    sent = {key: sum(s[key] for s in each) for key in each[0]}
    sent["flooder_cpu_seconds"] = time.process_time() - cpu0
    return sent


# -- the measured players ------------------------------------------------------------------------
async def own_lag(until: float, every: float = 0.005) -> float:
    """The longest this process's own event loop was late (seconds) until ``until``: the
    measuring clients' screens are emulated here, and a latency measured while this loop was
    held is partly the instrument's own."""
    worst = 0.0
    while (now := time.monotonic()) < until:
        await asyncio.sleep(every)
        worst = max(worst, time.monotonic() - now - every)
    return worst


async def chat_round_trips(sender: ScreenClient, other: ScreenClient, until: float,
                           prefix: str) -> list[float]:
    """Enter pressed until the line is on both screens, one line every CHAT_EVERY seconds."""
    times: list[float] = []
    n = 0
    while time.monotonic() < until:
        token = f"{prefix}{n}q"
        if n == 0:  # the lobby's chat stays open after Enter: c once
            sender.send("c")
            await asyncio.sleep(0.15)
        n += 1
        pressed = time.perf_counter()
        sender.send(f"{token}\r")
        try:
            stamps = await asyncio.gather(*(c.stamped_wait(lambda t, tok=token: tok in t, CHAT_TIMEOUT)
                                            for c in (sender, other)))
            times.append(max(changed for changed, _ in stamps) - pressed)
        except AssertionError:
            times.append(CHAT_TIMEOUT)  # not there in time: counted as the timeout
        await asyncio.sleep(max(0.0, CHAT_EVERY - (time.perf_counter() - pressed)))
    return times


async def settled(pid: int) -> None:
    """Until the server has done what the flooders' arrival gave it (their screens, everyone's
    lists of players): SETTLE_BUSY of a core at most over two looks, or SETTLE_MAX."""
    calm = 0
    deadline = time.monotonic() + SETTLE_MAX
    while calm < 2 and time.monotonic() < deadline:
        cpu0 = cpu_seconds(pid)
        await asyncio.sleep(SETTLE_LOOK)
        calm = calm + 1 if cpu_seconds(pid) - cpu0 < SETTLE_BUSY * SETTLE_LOOK else 0


async def measure_window(chatters: list[ScreenClient], table: list[ScreenClient], seconds: float,
                         server: ServerProcess, prefix: str) -> dict[str, float]:
    server_pid = server.proc.pid
    started = time.monotonic()
    until = started + seconds
    stats = PlayStats()
    cpu0 = cpu_seconds(server_pid)
    chat, _, bench_lag = await asyncio.gather(chat_round_trips(chatters[0], chatters[1], until, prefix),
                                              play_table(table, until, stats), own_lag(until))
    cpu = cpu_seconds(server_pid) - cpu0
    ended = time.monotonic()
    seconds = ended - started
    # The server's event-loop lag, from its one-second summaries within the window
    lags = [(p99, worst) for at, p99, worst in server.lags if started + LAG_WINDOW <= at <= ended + 0.5]
    return {
        "loop_lag_p99_worst_second_ms": max((p99 for p99, _ in lags), default=float("nan")) * 1000,
        "loop_lag_max_ms": max((worst for _, worst in lags), default=float("nan")) * 1000,
        "chat_round_trip_median_ms": pct(chat, 0.5) * 1000,
        "chat_round_trip_max_ms": max(chat, default=float("nan")) * 1000,
        "chat_lines": float(len(chat)),
        "action_median_ms": pct(stats.latencies, 0.5) * 1000,
        "action_p99_ms": pct(stats.latencies, 0.99) * 1000,
        "action_arrived_median_ms": pct(stats.arrivals, 0.5) * 1000,
        "action_arrived_p99_ms": pct(stats.arrivals, 0.99) * 1000,
        "actions": float(stats.actions),
        "screens_not_redrawn_in_5s": float(stats.not_redrawn),
        "server_cpu_percent": cpu / seconds * 100,
        "bench_clients_loop_lag_max_ms": bench_lag * 1000,
    }


async def measure(seconds: float, kinds: tuple[str, ...] = ("chat", "resize"),
                  connections: int = 1, calm: bool = True, flood: bool = True,
                  household: bool = False) -> dict[str, float]:
    """The players' figures without a flooder (``calm``: to compare with), during its flood
    and right after it (``flood``). Each player connects from an address of their own, as
    strangers on the internet do; ``household``: all six from one (people behind one NAT,
    who share its input budget)."""
    with tempfile.TemporaryDirectory() as tmp:
        server = ServerProcess(Path(tmp), "--hand-pause", "1.0", "--log-level", "INFO",
                               env={"TRUCO_LOOP_LAG_WINDOW": str(LAG_WINDOW)}, address_budget=True)
        clients: list[ScreenClient] = []
        flooder: asyncio.subprocess.Process | None = None
        try:
            table: list[ScreenClient] = []
            addresses = [None if household else f"127.0.0.{10 + n}" for n in range(6)]
            await set_up_private_table(server.port, 0, table, local_addrs=tuple(addresses[:4]))
            clients += table
            for name, address in zip(("ana", "beto"), addresses[4:]):
                client, _ = await connect_to_lobby(server.port, name, local_addr=address)
                clients.append(client)
            chatters = clients[-2:]
            figures = {f"calm_{k}": v for k, v in
                       (await measure_window(chatters, table, seconds, server, "calm")).items()} if calm else {}
            if not flood:
                return figures
            flooder = await asyncio.create_subprocess_exec(
                sys.executable, __file__, "--flood", "--port", str(server.port),
                "--seconds", str(seconds + FLOOD_WARMUP), "--kinds", ",".join(kinds),
                "--connections", str(connections), stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE)
            assert flooder.stdout is not None and flooder.stdin is not None
            # The flood, not the connecting: measured once every session is in and the
            # server has drawn what their arrival changed (a connection storm is the
            # connection limits' business); its start, while the input budget's burst is
            # being spent, apart from the rest
            if (await asyncio.wait_for(flooder.stdout.readline(), 120)).strip() != b"connected":
                raise RuntimeError("the flooder did not connect")
            await settled(server.proc.pid)
            flooder.stdin.write(b"go\n")
            await flooder.stdin.drain()
            figures.update({f"start_{k}": v for k, v in
                            (await measure_window(chatters, table, FLOOD_WARMUP, server, "start")).items()})
            figures.update({f"flood_{k}": v for k, v in
                            (await measure_window(chatters, table, seconds, server, "busy")).items()})
            line = await asyncio.wait_for(flooder.stdout.readline(), 60)
            for key, value in json.loads(line or b"{}").items():
                figures[f"flooder_{key}"] = float(value)
            figures["flooder_bytes_written_per_second"] = figures.get("flooder_bytes_written", 0.0) / (seconds + FLOOD_WARMUP)
            # Back to normal once it stops: the chat round trips of the next few seconds.
            after = await chat_round_trips(chatters[0], chatters[1], time.monotonic() + AFTER_SECONDS, "after")
            figures["after_first_chat_round_trip_ms"] = after[0] * 1000
            figures["after_chat_round_trip_max_ms"] = max(after) * 1000
            return figures
        finally:
            if flooder is not None and flooder.returncode is None:
                try:
                    await asyncio.wait_for(flooder.wait(), 30)
                except asyncio.TimeoutError:
                    flooder.kill()
                    await flooder.wait()
            await close_all(clients)
            server.stop()


def run(seconds: float = 15.0, kinds: tuple[str, ...] = ("chat", "resize"), connections: int = 1,
        calm: bool = True, flood: bool = True, household: bool = False) -> dict[str, float]:
    return asyncio.run(measure(seconds, kinds, connections, calm, flood, household))


# make bench's flood stage: each kind alone from one connection, then all of them from as many
# connections as one address may open (the server's default per-address limit).
SCENARIOS = {"chat": (("chat",), 1), "keys": (("keys",), 1), "resize": (("resize",), 1),
             "paste": (("paste",), 1), "all_x8": (KINDS, 8)}


def run_all(seconds: float = 8.0) -> dict[str, dict[str, float]]:
    """Every scenario, and the six players from one address without a flood (what the
    address's budget costs a household)."""
    figures = {name: run(seconds, kinds, connections) for name, (kinds, connections) in SCENARIOS.items()}
    figures["household"] = run(seconds, flood=False, household=True)
    return figures


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=15.0)
    parser.add_argument("--flood", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--kinds", default="chat,resize", help=f"what the flooder sends: of {','.join(KINDS)}")
    parser.add_argument("--connections", type=int, default=1, help="flooding sessions from one address")
    parser.add_argument("--all", action="store_true", help="every scenario of make bench's flood stage")
    parser.add_argument("--port", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.flood:
        kinds = tuple(k for k in args.kinds.split(",") if k)
        sys.stdout.write(json.dumps(asyncio.run(flood(args.port, args.seconds, kinds, args.connections))) + "\n")
        sys.stdout.flush()
        return
    if args.all:
        for name, figures in run_all(args.seconds).items():
            print(f"-- {name}")
            for key, value in figures.items():
                print(f"{key:44s} {value:10.2f}")
        return
    kinds = tuple(k for k in args.kinds.split(",") if k)
    for key, value in run(args.seconds, kinds, args.connections).items():
        print(f"{key:44s} {value:10.2f}")


if __name__ == "__main__":
    main()
