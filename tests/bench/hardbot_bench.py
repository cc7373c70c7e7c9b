"""Hard bots thinking beside players (issue 35): do their searches change anyone's latency?

`truco-ssh serve` in a subprocess. MEASURED private 4-player tables whose four seats are
programs on the `truco` subsystem (server/cli/remote_bot.py), each action timed from its send
to the seat's next table update. First alone for ``seconds``, then with HARD more tables of
one program and three server-side `hard` bots each (3 x HARD searches of 0.2-0.4 s of CPU
each decision, running in the server's search processes). Printed for both windows: the
measured tables' send-to-update median and p99 and actions, and the server's event-loop lag
(its log lines, server/ops/loop_lag.py). Part of `make bench` (tests/bench/run.py).
Run: `python tests/bench/hardbot_bench.py [--seconds 20] [--hard 7]`.
"""
from __future__ import annotations

import argparse
import asyncio
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))  # run as a script: see codec_bench.py
sys.path.insert(0, str(ROOT / "tests" / "bench"))

import protocol as p  # noqa: E402
from protocol.client import Client  # noqa: E402
from server.cli.remote_bot import Plan, RemoteBot  # noqa: E402
from tests.ports import free_port  # noqa: E402

MEASURED, HARD = 2, 7
LAG_WINDOW = 2.0
LAG_LINE = re.compile(r"event loop lag over .* p99 ([0-9.]+) ms, max ([0-9.]+) ms")
OPTIONS = {"target": 30, "match_games": 2}  # long matches: nobody finishes inside a window


class TimedClient(Client):
    """Send-to-update times of its own actions (the first TableUpdate after each)."""

    sent_at: float | None = None
    times: list[float]

    async def send(self, command: p.Command) -> None:
        if isinstance(command, p.TableAction):
            self.sent_at = time.perf_counter()
        await super().send(command)

    async def receive(self, timeout: float | None = None) -> p.Event:
        event = await super().receive(timeout)
        if isinstance(event, p.TableUpdate) and self.sent_at is not None:
            self.times.append(time.perf_counter() - self.sent_at)
            self.sent_at = None
        return event


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


class Server:
    def __init__(self, tmp: Path) -> None:
        self.port = free_port()
        self.lags: list[tuple[float, float, float]] = []
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "server.cli.main", "serve", "--host", "127.0.0.1", "--port", str(self.port),
             "--data-dir", str(tmp / "data"), "--host-key", str(tmp / "hk"), "--bot-delay", "0.3",
             "--hand-pause", "0.5", "--log-level", "INFO", "--max-connections-per-ip", "1000",
             "--connections-per-minute-per-ip", "100000"],
            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
            env={**os.environ, "PYTHONPATH": str(ROOT), "TRUCO_LOOP_LAG_WINDOW": str(LAG_WINDOW)})
        self.listening = threading.Event()
        threading.Thread(target=self._drain, daemon=True).start()
        if not self.listening.wait(30):
            self.proc.kill()
            raise RuntimeError("the server did not start")

    def _drain(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            if "Press Ctrl-C" in line:
                self.listening.set()
            if (lag := LAG_LINE.search(line)) is not None:
                self.lags.append((time.monotonic(), float(lag[1]), float(lag[2])))

    def lag_between(self, start: float, end: float) -> tuple[float, float]:
        """The worst p99 and max (ms) of the lag windows inside [start, end]."""
        inside = [(p99, worst) for at, p99, worst in self.lags if start + LAG_WINDOW <= at <= end + 0.5]
        return (max((x[0] for x in inside), default=float("nan")), max((x[1] for x in inside), default=float("nan")))

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(15)
        except subprocess.TimeoutExpired:
            self.proc.kill()


async def players_table(port: int, name: str, seed: int) -> tuple[list[TimedClient], list[asyncio.Task[int]]]:
    four = [await TimedClient.connect("127.0.0.1", port, f"{name}s{i}") for i in range(4)]
    for client in four:
        client.times = []
    await four[0].send(p.CreateTable(variant="argentino", players=4, private=True, options=OPTIONS, turn_timer=0))
    created = await four[0].wait_for(p.TableCreated)
    for client in four[1:]:
        await client.send(p.JoinByCode(code=created.code))
    tasks = [asyncio.create_task(RemoteBot(c, Plan(wait=True), random.Random(seed + i)).run()) for i, c in enumerate(four)]
    return four, tasks


async def hard_table(port: int, name: str, seed: int) -> tuple[Client, asyncio.Task[int]]:
    client = await Client.connect("127.0.0.1", port, name)
    await client.send(p.CreateTable(variant="argentino", players=4, private=True, options=OPTIONS, turn_timer=0,
                                    owner_starts=True))
    created = await client.wait_for(p.TableCreated)
    for _ in range(3):
        await client.send(p.AddBot(table_id=created.table_id, level="hard"))
    await client.send(p.StartTable(table_id=created.table_id))
    return client, asyncio.create_task(RemoteBot(client, Plan(wait=True), random.Random(seed)).run())


async def window(clients: list[TimedClient], server: Server, seconds: float, prefix: str) -> dict[str, float]:
    for client in clients:
        client.times = []
    start = time.monotonic()
    await asyncio.sleep(seconds)
    times = [t for client in clients for t in client.times]
    lag_p99, lag_max = server.lag_between(start, time.monotonic())
    return {f"{prefix}_send_to_update_median_ms": pct(times, 0.5) * 1000,
            f"{prefix}_send_to_update_p99_ms": pct(times, 0.99) * 1000,
            f"{prefix}_actions": float(len(times)),
            f"{prefix}_event_loop_lag_p99_ms": lag_p99, f"{prefix}_event_loop_lag_max_ms": lag_max}


async def measure(seconds: float, hard: int) -> dict[str, float]:
    tmp = Path(tempfile.mkdtemp(prefix="hardbot-bench-"))
    server = Server(tmp)
    closing: list[Client] = []
    tasks: list[asyncio.Task[int]] = []
    try:
        measured: list[TimedClient] = []
        for t in range(MEASURED):
            four, run = await players_table(server.port, f"m{t}", t * 10)
            measured += four
            closing += four
            tasks += run
        await asyncio.sleep(2.0)  # dealt and playing
        figures = await window(measured, server, seconds, "alone")
        for t in range(hard):
            client, run = await hard_table(server.port, f"h{t}", 100 + t)
            closing.append(client)
            tasks.append(run)
        await asyncio.sleep(2.0)  # the hard bots are thinking
        figures.update(await window(measured, server, seconds, "with_hard_bots"))
        figures["hard_bots"] = float(3 * hard)
        return figures
    finally:
        for task in tasks:
            task.cancel()
        for client in closing:
            await client.close()
        server.stop()
        shutil.rmtree(tmp, ignore_errors=True)


def run(seconds: float = 20.0, hard: int = HARD) -> dict[str, float]:
    return asyncio.run(measure(seconds, hard))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--hard", type=int, default=HARD, help="tables of three hard bots added")
    args = parser.parse_args()
    for key, value in run(args.seconds, args.hard).items():
        print(f"{key:44s} {value:10.2f}")


if __name__ == "__main__":
    main()
