"""Connect benchmark: the server's CPU from an SSH connect to being seated at a table, by phase.

Starts the real server as a subprocess on 127.0.0.1 (a free port, a temporary data dir) and
seats players two by two at quick-play tables, one player after another (no queueing: the
figures are the cost of one player, not of a crowd). Each player:

* handshake: TCP connect, key exchange, public-key authentication (an ed25519 client key,
  as most OpenSSH users have), up to asyncssh's ``connect`` returning;
* lobby: the session channel with a PTY and a shell (this is where the server re-keys to
  zlib for a client that lists it, as OpenSSH does even without ``-C``), up to the lobby
  drawn on the client's screen;
* seated: Quick play (p, Enter on argentino for 2), up to the table drawn: the first of a
  pair sees the waiting table; the second sits, the hand starts, and the phase ends when
  BOTH players' screens show the hand (the first player's redraw is part of the cost of the
  second one sitting down).

The server's CPU is read before and after each phase from /proc (every thread's on-CPU time
in nanoseconds, from ``schedstat``), after a short settle so work the server finishes after
the bytes left is charged to the right phase. Each pair hangs up before the next connects, so
no crowd of earlier sessions is redrawn; the first pair warms the server up (imports, first
App) and is not counted. The clients' own CPU (this process: asyncssh, pyte) is reported
separately. Run: ``python tests/bench/connect_bench.py [--players 30]``.
"""
from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

import asyncssh

sys.path.insert(0, str(Path(__file__).resolve().parent))

from session_bench import ROOT, ServerProcess, cpu_seconds  # noqa: E402,F401

from harness import ScreenClient  # noqa: E402

SETTLE = 0.15  # seconds after a phase's screen showed, before its CPU is read
STEP_TIMEOUT = 30.0
PHASES = ("handshake", "lobby", "seated")
QUICK_TITLE = "Quick play"
WAITING = "Waiting for"
HAND = "Hand 1"


def server_cpu_ns(pid: int) -> int:
    """On-CPU nanoseconds of every live thread of the process (/proc/PID/task/*/schedstat):
    far finer than utime+stime, which count in 10 ms ticks."""
    total = 0
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            total += int((task / "schedstat").read_text().split()[0])
        except (OSError, ValueError, IndexError):
            continue  # a thread that ended meanwhile
    return total


class PhasedClient(ScreenClient):
    """A ScreenClient whose connect is split where the server's phases are."""

    async def handshake(self, port: int, username: str, key: asyncssh.SSHKey) -> None:
        self.conn = await asyncssh.connect(
            "127.0.0.1", port, username=username, known_hosts=None, client_keys=[key],
            agent_path=None, password=None, preferred_auth="publickey",
        )

    async def open_shell(self) -> None:
        assert self.conn is not None
        self.process = await self.conn.create_process(
            term_type="xterm-256color", term_size=(self.screen.columns, self.screen.lines),
            encoding=None, env={"LANG": "en_US.UTF-8"},
        )
        self._reader = asyncio.create_task(self._read())


class Meter:
    """Server CPU per phase, summed over the counted players."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.spent: dict[str, list[float]] = {phase: [] for phase in PHASES}
        self._mark = 0

    def start(self) -> None:
        self._mark = server_cpu_ns(self.pid)

    async def end(self, phase: str, counted: bool, settle: bool = True) -> None:
        if settle:
            await asyncio.sleep(SETTLE)
        now = server_cpu_ns(self.pid)
        if counted:
            self.spent[phase].append((now - self._mark) / 1e6)
        self._mark = now


async def to_lobby(meter: Meter, port: int, name: str, counted: bool) -> PhasedClient:
    key = asyncssh.generate_private_key("ssh-ed25519")  # before the clock: the client's work
    client = PhasedClient()
    meter.start()
    await client.handshake(port, name, key)
    await meter.end("handshake", counted, settle=False)  # the next step starts at once
    await client.open_shell()
    await client.wait_for(lambda s: "Lobby" in s and name in s, STEP_TIMEOUT)
    await meter.end("lobby", counted)
    return client


async def quick_play(client: PhasedClient) -> None:
    client.send("p")
    await client.wait_for(QUICK_TITLE, STEP_TIMEOUT)
    client.send("\r")


async def seat_pair(meter: Meter, port: int, n: int, counted: bool) -> list[PhasedClient]:
    first = await to_lobby(meter, port, f"c{n}a", counted)
    await quick_play(first)
    await first.wait_for(WAITING, STEP_TIMEOUT)
    await meter.end("seated", counted)
    second = await to_lobby(meter, port, f"c{n}b", counted)
    await quick_play(second)
    await second.wait_for(HAND, STEP_TIMEOUT)
    await first.wait_for(HAND, STEP_TIMEOUT)
    await meter.end("seated", counted)
    return [first, second]


async def measure(players: int, port: int, pid: int) -> dict[str, float]:
    meter = Meter(pid)
    pairs = max(1, players // 2)
    clients_cpu = 0.0
    started = time.perf_counter()
    for n in range(pairs + 1):  # pair 0 warms the server up
        counted = n > 0
        cpu0 = time.process_time()
        pair = await seat_pair(meter, port, n, counted)
        if counted:
            clients_cpu += time.process_time() - cpu0
        for client in pair:
            await client.close()
        await asyncio.sleep(0.5)  # the hang-ups finish before the next pair's clock starts
    wall = time.perf_counter() - started
    counted_players = 2 * pairs
    result: dict[str, float] = {"players": float(counted_players)}
    totals = [0.0] * counted_players
    for phase in PHASES:
        values = meter.spent[phase]
        result[f"server_cpu_{phase}_ms_per_player"] = sum(values) / counted_players
        result[f"server_cpu_{phase}_median_ms"] = statistics.median(values)
        for i, value in enumerate(values):
            totals[i] += value
    result["server_cpu_total_ms_per_player"] = sum(totals) / counted_players
    result["server_cpu_total_max_ms"] = max(totals)
    result["client_cpu_ms_per_player"] = clients_cpu / counted_players * 1000
    result["wall_seconds"] = wall
    return result


async def run_async(players: int) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as tmp:
        server = ServerProcess(Path(tmp))
        try:
            figures = await measure(players, server.port, server.proc.pid)
        finally:
            code = server.stop()
    figures["server_exit_code"] = float(code)
    return figures


def run(players: int = 30) -> dict[str, float]:
    return asyncio.run(run_async(players))


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--players", type=int, default=30)
    args = parser.parse_args()
    for name, value in run(args.players).items():
        print(f"{name:40s} {value:10.2f}")
