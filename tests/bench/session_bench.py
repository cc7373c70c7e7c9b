"""Session benchmark: time from SSH connect to a drawn lobby, and server RSS per session.

Starts the real server as a subprocess on 127.0.0.1 (a free port, a temporary data dir),
connects asyncssh clients with PTYs whose output is fed to pyte, and reads the server's
RSS from /proc. Everything stays on loopback and is bounded in count and time.
Run: `python tests/bench/session_bench.py [--sessions 20]`.
"""
from __future__ import annotations

import argparse
import asyncio
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# Bench files are run as scripts (`python tests/bench/run.py`, the Makefile's bench target;
# load_bench also starts itself as a worker script, restart_bench can time another checkout):
# Python puts only this folder on sys.path then, so the lines below add what it imports.
sys.path.insert(0, str(ROOT / "tests" / "e2e"))
sys.path.insert(0, str(ROOT))

from harness import ScreenClient  # noqa: E402
from tests.ports import free_port  # noqa: E402,F401 (the other benches import it from here)


def cpu_seconds(pid: int) -> float:
    """User + system CPU time the process has used so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def process_tree(pid: int) -> list[int]:
    """The process and its descendants (``--workers``: the supervisor, the nats-server and
    the workers), read from /proc; processes that end meanwhile are left out."""
    found, todo = [], [pid]
    while todo:
        current = todo.pop()
        found.append(current)
        try:
            for task in Path(f"/proc/{current}/task").iterdir():
                todo.extend(int(child) for child in (task / "children").read_text().split())
        except OSError:
            continue
    return found


def tree_cpu_seconds(pid: int) -> dict[str, float]:
    """CPU time (user + system) used so far by the process and each of its descendants,
    by "pid name" (name: the program, and for Python the script or module it runs)."""
    out: dict[str, float] = {}
    for member in process_tree(pid):
        try:
            seconds = cpu_seconds(member)
            argv = Path(f"/proc/{member}/cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        words = [a.decode(errors="replace") for a in argv if a]
        name = Path(words[0]).name if words else "?"
        if name.startswith("python") and len(words) > 1:  # the script, or -m module
            name = words[2] if words[1] == "-m" and len(words) > 2 else Path(words[1]).name
        out[f"{member} {name}"] = seconds
    return out


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise RuntimeError("no VmRSS")


STARTUP_SECONDS = 30.0  # for each process of the server to say it listens


LAG_LINE = re.compile(r"event loop lag over .* p99 ([0-9.]+) ms, max ([0-9.]+) ms")
LAG_SAMPLES = re.compile(r"samples ms: ([0-9. ]+)")


# The benches' players all come from 127.0.0.1, as no crowd of people does: the input budget
# every session from one address shares (server/session/input_gate.py) would pause their keys
# (the load bench's terminal tables could not even be set up, the connect bench's tenth player
# could not pick a game). Each session keeps its own budget. The flood bench keeps the real one.
PEOPLE_AT_ONE_ADDRESS = ("--input-cpu-per-address-per-second", "1000")


class ServerProcess:
    """``truco-ssh serve`` on 127.0.0.1 (a free port, a temporary data dir). ``listeners``:
    how many processes say they listen before it counts as started (``--workers N``: N).
    ``address_budget``: the input budget of an address as a server has it (else
    ``PEOPLE_AT_ONE_ADDRESS``)."""

    def __init__(self, tmp: Path, *extra: str, listeners: int = 1, env: dict[str, str] | None = None,
                 address_budget: bool = False) -> None:
        self.port = free_port()
        exe = [str(Path(sys.executable).parent / "truco-ssh")]
        profile = os.environ.get("TRUCO_BENCH_PROFILE")
        if profile:  # where the server's CPU goes: python -m cProfile -o PATH
            exe = [sys.executable, "-m", "cProfile", "-o", profile, "-m", "server.cli.main"]
        gc_trace = os.environ.get("TRUCO_BENCH_GC")
        if gc_trace:  # what the garbage collector's pauses free (tests/bench/gc_trace.py)
            exe = [sys.executable, str(Path(__file__).with_name("gc_trace.py")), gc_trace]
        self.proc = subprocess.Popen(
            [*exe, "serve", "--host", "127.0.0.1", "--port", str(self.port),
             "--data-dir", str(tmp / "data"), "--host-key", str(tmp / "key"),
             "--max-connections-per-ip", "1000", "--max-sessions", "1000",
             "--connections-per-minute-per-ip", "100000",
             "--new-player-minutes", "0", *(() if address_budget else PEOPLE_AT_ONE_ADDRESS),
             *extra],  # (its players are all new, and chat as they please)
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
            env={**os.environ, **(env or {})},
        )
        # One thread reads everything it prints, from the start (a full pipe would stop the
        # server mid-run); this waits with a deadline of its own, which holds even when the
        # server prints nothing at all, for the line that says it is ready: "Press Ctrl-C" from
        # one process; from `--workers N`, each worker's listening line (the supervisor says
        # "Press Ctrl-C" once, before its workers start).
        self._ready_line = "Press Ctrl-C" if listeners == 1 else "truco-ssh listening on"
        self.output: list[str] = []
        self.lags: list[tuple[float, float, float]] = []  # (monotonic time read, p99 s, max s)
        # (monotonic time read, every sample of the window in s), with TRUCO_LOOP_LAG_SAMPLES=1
        self.lag_samples: list[tuple[float, list[float]]] = []
        self._listening = 0
        self._news = threading.Condition()
        threading.Thread(target=self._drain, daemon=True).start()
        budget = STARTUP_SECONDS * listeners
        with self._news:
            done = self._news.wait_for(lambda: self._listening >= listeners or self.proc.poll() is not None,
                                       timeout=budget)
        if not done or self._listening < listeners:
            why = (f"exited with {self.proc.returncode}" if self.proc.poll() is not None
                   else f"{self._listening} of {listeners} processes listening after {budget:.0f} s")
            self.stop()
            raise RuntimeError(f"the server did not start ({why}); its last lines:\n" + "".join(self.output[-20:]))

    def _drain(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            with self._news:
                self.output.append(line)
                del self.output[:-200]
                self._listening += self._ready_line in line
                if (lag := LAG_LINE.search(line)) is not None:  # server/ops/loop_lag.py, at INFO
                    self.lags.append((time.monotonic(), float(lag[1]) / 1000, float(lag[2]) / 1000))
                    if (samples := LAG_SAMPLES.search(line)) is not None:
                        self.lag_samples.append((time.monotonic(), [float(x) / 1000 for x in samples[1].split()]))
                self._news.notify_all()
        with self._news:
            self._news.notify_all()  # the pipe closed: it exited

    def stop(self) -> int:
        self.proc.send_signal(2)
        try:
            return self.proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            return -9


async def connect_to_lobby(port: int, name: str,
                           factory: type[ScreenClient] = ScreenClient,
                           host: str = "127.0.0.1", local_addr: str | None = None) -> tuple[ScreenClient, float]:
    """``local_addr``: the address the player connects from (another 127.x: another person)."""
    start = time.perf_counter()
    client = await factory().connect(port, name, host=host, local_addr=local_addr)
    await client.wait_for(lambda s: "Lobby" in s and name in s, timeout=30)
    return client, time.perf_counter() - start


async def measure(sessions: int) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as tmp:
        server = ServerProcess(Path(tmp))
        try:
            warm, _ = await connect_to_lobby(server.port, "warmup")  # imports, first app
            await warm.close()
            await asyncio.sleep(0.5)
            base = rss_kib(server.proc.pid)
            clients, times = [], []
            cpu0 = cpu_seconds(server.proc.pid)
            for i in range(sessions):  # one after another: connect latency without queueing
                client, seconds = await connect_to_lobby(server.port, f"bench{i}")
                client.muted = True  # the server still draws its lobby; this process need not
                clients.append(client)
                times.append(seconds)
            await asyncio.sleep(1.0)
            # Each newcomer's own session, and every lobby already there redrawing its list
            # of players (the crowd's share grows with the crowd: tui/screens/lobby.py)
            cpu = cpu_seconds(server.proc.pid) - cpu0
            loaded = rss_kib(server.proc.pid)
            openssh = openssh_connect_seconds(server.port)
            for client in clients:
                await client.close()
        finally:
            code = server.stop()
    result = {
        "sessions": float(sessions),
        "connect_to_lobby_median_ms": statistics.median(times) * 1000,
        "connect_to_lobby_max_ms": max(times) * 1000,
        "server_cpu_per_session_ms": cpu / sessions * 1000,
        "rss_base_mib": base / 1024,
        "rss_loaded_mib": loaded / 1024,
        "rss_per_session_mib": (loaded - base) / 1024 / sessions,
        "server_exit_code": float(code),
    }
    if openssh is not None:
        result["openssh_start_to_lobby_ms"] = openssh * 1000
    return result


def openssh_connect_seconds(port: int) -> float | None:
    """Wall time from starting the OpenSSH client (in tmux) to the lobby on its screen."""
    if not (shutil.which("ssh") and shutil.which("tmux")):
        return None
    sock = f"truco-bench-{os.getpid()}"
    cmd = (f"ssh -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o LogLevel=ERROR "
           f"-p {port} openssh@127.0.0.1")
    start = time.perf_counter()
    subprocess.run(["tmux", "-L", sock, "new-session", "-d", "-x", "80", "-y", "24", cmd], check=True)
    try:
        deadline = start + 30
        while time.perf_counter() < deadline:
            screen = subprocess.run(["tmux", "-L", sock, "capture-pane", "-p"], capture_output=True,
                                    text=True).stdout
            if "Lobby" in screen and "openssh" in screen:
                return time.perf_counter() - start
            time.sleep(0.01)
        return None
    finally:
        subprocess.run(["tmux", "-L", sock, "kill-server"], capture_output=True)


def run(sessions: int = 20) -> dict[str, float]:
    return asyncio.run(measure(sessions))


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--sessions", type=int, default=20)
    args = parser.parse_args()
    for key, value in run(args.sessions).items():
        print(f"{key:32s} {value:10.2f}")
