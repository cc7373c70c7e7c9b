"""Server CPU per action when every player is a program on the `truco` subsystem (issue 17).

`truco-ssh serve` in a subprocess (no bot delay, no pause between hands); TABLES private
4-player Argentine tables to 15 points, one match each, every seat a `RemoteBot` of this
process through `protocol.client.Client`. Measured: the server process's CPU time (user +
system, from /proc) over the matches, per action sent. No screen is drawn, so this is the
hub, the tables, the log and the protocol per action with four watching seats: what the load
generator would measure without Textual. Not part of `make bench` (tests/bench/run.py).
Run: `python tests/bench/subsystem_bench.py --tables 1 5 10`.
"""
from __future__ import annotations

import argparse
import asyncio
import os
import random
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))  # run as a script: see codec_bench.py

import protocol as p  # noqa: E402
from protocol.client import Client  # noqa: E402
from server.cli.remote_bot import Plan, RemoteBot  # noqa: E402


class CountingClient(Client):
    actions = 0

    async def send(self, command: p.Command) -> None:
        if isinstance(command, p.TableAction):
            CountingClient.actions += 1
        await super().send(command)


def _cpu(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def _ready(port: int, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            _, writer = await asyncio.open_connection("127.0.0.1", port)
            writer.close()
            return
        except OSError:
            await asyncio.sleep(0.2)
    raise RuntimeError("the server did not start")


async def run(tables: int) -> dict[str, float]:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    data = Path(tempfile.mkdtemp(prefix="subsystem-bench-"))
    server = subprocess.Popen(
        [sys.executable, "-m", "server.cli.main", "serve", "--host", "127.0.0.1", "--port", str(port),
         "--data-dir", str(data), "--host-key", str(data / "hk"), "--bot-delay", "0", "--hand-pause", "0",
         "--max-connections-per-ip", "1000", "--connections-per-minute-per-ip", "100000"],
        cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)}, stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL)
    clients: list[Client] = []
    try:
        await _ready(port)
        seated = []
        for t in range(tables):
            four = [await CountingClient.connect("127.0.0.1", port, f"b{t}s{i}") for i in range(4)]
            clients += four
            await four[0].send(p.CreateTable(variant="argentino", players=4, private=True,
                                             options={"target": 15, "match_games": 1}))
            seated.append((four, await four[0].wait_for(p.TableCreated)))
        CountingClient.actions = 0
        cpu0, wall0 = _cpu(server.pid), time.monotonic()
        runs = []
        for four, created in seated:
            for c in four[1:]:
                await c.send(p.JoinByCode(code=created.code))
            runs += [RemoteBot(c, Plan(wait=True), random.Random(i)).run() for i, c in enumerate(four)]
        finished = await asyncio.wait_for(asyncio.gather(*runs), 600)
        cpu, wall = _cpu(server.pid) - cpu0, time.monotonic() - wall0
        actions = CountingClient.actions
        return {"tables": tables, "matches": sum(finished) / 4, "actions": actions, "wall_s": round(wall, 1),
                "server_cpu_s": round(cpu, 2), "cpu_ms_per_action": round(cpu / actions * 1000, 2),
                "actions_per_s": round(actions / wall)}
    finally:
        for c in clients:
            await c.close()
        server.terminate()
        server.wait(10)
        shutil.rmtree(data, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, nargs="+", default=[1, 5])
    for tables in parser.parse_args().tables:
        print(asyncio.run(run(tables)))


if __name__ == "__main__":
    main()
