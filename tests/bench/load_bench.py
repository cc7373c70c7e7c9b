"""Load generator: bot-driven SSH clients playing real 4-player tables, at one action a second.

Two kinds of tables, each played by four sessions of one kind (``--screen-share`` says how
many are which): protocol tables, four programs on the ``truco`` subsystem
(tests/bench/proto_table.py: protocol/client.py, the engine's bot deciding from each seat's
view), and screen tables, four terminal sessions with PTYs (asyncssh + a pyte screen each while
the table is set up; once it plays, cheap clients without a screen: tests/bench/cheap_client.py),
which keep measuring what a terminal seat costs the server. The clients are spread over a few
worker processes (this file run with --worker), each owning whole tables so a mover and the
three players watching it share one clock. Tables are set up in parallel as private tables:
a protocol owner sends create_table and the others join_by_code; a screen owner ticks
"Private" in the New-table form and reads the code off its screen, the other three press k in
the lobby and type it. A bounded number of tables is set up at once, so connects (CPU heavy
for both sides) do not stampede.

When every table that could be set up is playing, the measurement windows start: each table
acts once a second (the protocol seat the game waits for sends its bot's move; on a screen
table, whoever's screen says "Your move." presses the key a person would read off it): with
--spread each table at a moment of its own in the second, as players act (`make bench`), else
every table on the second, a burst of all their actions at one instant; and
each worker records the time from the command (key press) to the update (the change) arriving
at the other three seats. First every table plays; then, when there are both kinds, each kind
plays alone for a shorter window, so the server's CPU per action per seat is measured for a
protocol seat and for a screen seat apart. The parent reads the server's CPU time from /proc
over each window only; the workers report their own. Bounded by deadlines; tables that could
not be set up in time are reported, never hidden. `run_load(host, port, ...)` loads a server
that runs already (another lane's cluster); without --port this file starts its own.

Also measured here, on one table: the bytes one client receives for one complete hand
(raw, and zlib-compressed the way SSH compresses: one stream, a sync flush per write),
and the first paint of the table screen.
Run: `python tests/bench/load_bench.py --tables 2 25` (the stages share one server: 23 tables
are added for the second).
"""
from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import math
import os
import random
import re
import sys
import tempfile
import time
import zlib
from collections.abc import Sequence
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
# Bench files are run as scripts (`python tests/bench/run.py`, the Makefile's bench target;
# load_bench also starts itself as a worker script, restart_bench can time another checkout):
# Python puts only this folder on sys.path then, so the lines below add what it imports.
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parents[1]))
sys.path.insert(0, str(HERE.parents[1] / "tests" / "e2e"))

import protocol as p  # noqa: E402
from cheap_client import CheapClient, says_my_move  # noqa: E402
from harness import ScreenClient  # noqa: E402
from proto_table import LEVEL as PROTO_LEVEL  # noqa: E402
from proto_table import ProtoSeat, play_proto_table, set_up_proto_table  # noqa: E402
from protocol.client import Client  # noqa: E402
from session_bench import ServerProcess, connect_to_lobby, process_tree, rss_kib, tree_cpu_seconds  # noqa: E402
from table_bench import choose_key  # noqa: E402

ENTER, ESC, CTRL_S = "\r", "\x1b", "\x13"
STEP_TIMEOUT = 30.0  # one step of setting up (a screen to appear) under load
DRAW_TIMEOUT = 5.0  # a watcher's screen not changed by then counts as not redrawn
TABLES_AT_ONCE = 8  # tables being set up at the same time, over all workers
CONNECTS_AT_ONCE = 8  # SSH handshakes in flight at the same time, over all workers
CODE = re.compile(r"code\W+([%s]{%d})\b" % ("A-Z2-9", p.CODE_LEN))
SERVER_FLAGS = ("--hand-pause", "1.0", "--log-level", "INFO")  # INFO: the loop lag's lines
# Bytes a worker's report line may take (its latencies, one per action: at 100 tables a
# 40 s window passed asyncio's 64 KiB default and the stage failed).
REPORT_LINE_LIMIT = 16 * 1024 * 1024
LAG_WINDOW = 2.0  # seconds each loop-lag line of the server covers (server/ops/loop_lag.py)
SCREEN_SHARE = 0.25  # of the tables, played by terminal sessions (the rest by programs)
BOT_LEVEL = PROTO_LEVEL  # the bot that decides for a protocol seat, unless told otherwise


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


def click(client: ScreenClient, row: int, col: int) -> None:
    """A left click at a 0-based cell (the server asks for SGR mouse reports)."""
    client.send(f"\x1b[<0;{col + 1};{row + 1}M\x1b[<0;{col + 1};{row + 1}m")


def find(client: ScreenClient, row_label: str, text: str) -> tuple[int, int]:
    """Row and column of `text` on the first line that holds `row_label` and `text`."""
    for row, line in enumerate(client.screen.display):
        if row_label in line and text in line:
            return row, line.index(text)
    raise AssertionError(f"no {text!r} on a {row_label!r} line; screen:\n{client.text()}")


async def choose(client: ScreenClient, row_label: str, current: str, wanted: str) -> None:
    """Open a form's drop-down with a click and click one of its choices.

    Clicks rather than keys: a key that arrives before the drop-down's focus has moved back
    (Textual moves it later) goes to the wrong field under load; a click lands where it points.
    """
    row, col = find(client, row_label, current)
    click(client, row, col)

    def option_row(text: str) -> int | None:
        lines = text.splitlines()
        return next((r for r in range(row + 1, len(lines)) if lines[r][col:].startswith(wanted)), None)

    await client.wait_for(lambda t: option_row(t) is not None, STEP_TIMEOUT)
    click(client, option_row(client.text()) or 0, col)
    await client.wait_for(lambda t: wanted in t.splitlines()[row] and option_row(t) is None, STEP_TIMEOUT)


async def create_table(owner: ScreenClient, *, private: bool) -> str | None:
    """Owner's New-table form: 4 players, turn timer off; the join code if private."""
    owner.send("n")
    await owner.wait_for("New table", STEP_TIMEOUT)
    await choose(owner, "Players", "2 players", "4 players")
    if private:  # the default turn timer of a private table is off
        click(owner, *find(owner, "Private", "[ ]"))
        await owner.wait_for("[x] Private", STEP_TIMEOUT)
    else:
        await choose(owner, "Turn timer", "default", "off")
    owner.send(CTRL_S)
    await owner.wait_for("Waiting for", STEP_TIMEOUT)
    if not private:
        return None
    # The code comes in a notification that may wrap; read it across the screen's lines.
    text = await owner.wait_for(lambda t: CODE.search(t) is not None, STEP_TIMEOUT)
    return CODE.search(text).group(1)  # type: ignore[union-attr]


async def join_by_code(client: ScreenClient, code: str) -> None:
    """In the lobby: k, type the code, Enter; until the table screen shows."""
    for _ in range(3):
        client.send("k")
        await client.wait_for("Join a private table", STEP_TIMEOUT)
        client.send(code + ENTER)
        with contextlib.suppress(AssertionError):
            await client.wait_for(lambda t: "Waiting for" in t or "Every seat is taken" in t or "Hand 1" in t,
                                  STEP_TIMEOUT)
            return
        if "Join a private table" in client.text():
            client.send(ESC)  # the code went astray (typed before the prompt had focus): again
        await asyncio.sleep(0.3)
    raise AssertionError(f"never got to the table with code {code}; screen:\n{client.text()}")


async def set_up_private_table(port: int, n: int, players: list[ScreenClient],
                               connecting: asyncio.Semaphore | None = None,
                               factory: type[ScreenClient] = ScreenClient,
                               host: str = "127.0.0.1",
                               local_addrs: tuple[str | None, ...] = (None,) * 4) -> dict[str, float]:
    """Four players (appended to `players` as they connect) at one private table, playing;
    each from its ``local_addrs`` (None: the system's choice, 127.0.0.1 here).

    Returns the seconds each step took: connect (all four to a drawn lobby), create (the
    owner's form until the code shows), join (the other three by code, until the deal)."""
    connecting = connecting or asyncio.Semaphore(1)
    t0 = time.monotonic()

    async def connect(name: str, local_addr: str | None) -> None:
        async with connecting:
            client, _ = await connect_to_lobby(port, name, factory, host=host, local_addr=local_addr)
        players.append(client)

    await asyncio.gather(*(connect(f"t{n}p{i}", local_addrs[i]) for i in range(4)))
    t1 = time.monotonic()
    code = await create_table(players[0], private=True)
    assert code is not None
    t2 = time.monotonic()
    await asyncio.gather(*(join_by_code(c, code) for c in players[1:]))
    await players[0].wait_for("Enter Start", STEP_TIMEOUT)  # a waiting room: its creator starts it
    players[0].send("\r")
    await asyncio.gather(*(c.wait_for("Hand 1", STEP_TIMEOUT) for c in players))
    return {"connect": t1 - t0, "create": t2 - t1, "join": time.monotonic() - t2}


class PlayStats:
    def __init__(self) -> None:
        self.actions = 0
        self.latencies: list[float] = []  # seconds, one per watcher screen that changed
        # The same, to the arrival of the chunk that changed it (without the bench client's
        # own pyte emulation of it, nor its turn behind the other screens' emulations).
        self.arrivals: list[float] = []
        self.not_redrawn = 0  # watcher screens that did not change within DRAW_TIMEOUT


async def act(mover: ScreenClient, others: list[ScreenClient], key: str, stats: PlayStats) -> bool:
    """Press a key; time its arrival on the other screens. False when nobody's screen moved
    (the key was not a legal move). Cheap clients: the first bytes after the press."""
    cheap = [c for c in others if isinstance(c, CheapClient) and c.cheap]
    for client in cheap:
        client.mark()
    befores = [c.text() for c in others]
    pressed = time.perf_counter()
    mover.send(key)

    async def drawn(client: ScreenClient, before: str) -> tuple[float, float]:
        if client in cheap:
            first = await client.next_chunk(DRAW_TIMEOUT) - pressed  # type: ignore[attr-defined]
            return first, first
        changed_at, arrived_at = await client.stamped_wait(lambda t: t != before, DRAW_TIMEOUT)
        return changed_at - pressed, arrived_at - pressed

    results = await asyncio.gather(*(drawn(c, b) for c, b in zip(others, befores)),
                                   return_exceptions=True)
    seen = [r for r in results if isinstance(r, tuple)]
    if not seen:
        return False
    stats.actions += 1
    stats.latencies.extend(drawn_at for drawn_at, _ in seen)
    stats.arrivals.extend(arrived_at for _, arrived_at in seen)
    stats.not_redrawn += len(results) - len(seen)
    return True


def whose_move(players: list[ScreenClient]) -> tuple[ScreenClient, list[str]] | None:
    """The player the game waits for and the keys to try, read off the screens (or, for cheap
    clients, off the latest updates: the last to be told "Your move.")."""
    cheap = [c for c in players if isinstance(c, CheapClient) and c.cheap]
    if cheap:
        movers = [c for c in cheap if c.my_turn]
        if not movers:
            return None
        mover = max(movers, key=lambda c: c.turn_at)
        return mover, mover.offered_keys()
    texts = [c.text() for c in players]  # "Your move." first: a refusal may linger elsewhere
    mover = next((c for c, t in zip(players, texts) if "Your move." in t), None)
    mover = mover or next((c for c, t in zip(players, texts) if says_my_move(t)), None)
    return None if mover is None else (mover, choose_key(mover.text()))


async def play_table(players: list[ScreenClient], until: float, stats: PlayStats, rate: float = 1.0) -> None:
    """One action per second: whoever the screen says must move presses a key. Bounded by
    the clock, not by a count of seconds (keys that draw nothing take DRAW_TIMEOUT each)."""
    tick = time.monotonic()
    while time.monotonic() < until:
        found = whose_move(players)
        if found is not None:
            mover, keys_to_try = found
            others = [c for c in players if c is not mover]
            for key in keys_to_try:
                if time.monotonic() >= until:
                    break
                taken = await act(mover, others, key, stats)
                if isinstance(mover, CheapClient):
                    mover.acted()
                if taken:
                    break
        tick = max(tick + 1.0 / rate, time.monotonic())  # late (keys that drew nothing): no catching up
        await asyncio.sleep(max(0.0, tick - time.monotonic()))


def pct(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(q * (len(values) - 1) + 0.5))] if values else float("nan")


# -- a worker process: whole tables, set up and played on the parent's word ------------------
async def close_all(clients: list[ScreenClient] | list[ProtoSeat]) -> None:
    await asyncio.gather(*(c.close() for c in clients), return_exceptions=True)


KINDS = ("screen", "protocol")


class Worker:
    """Owns whole tables, of both kinds. Reads commands from stdin, one JSON line each, and
    answers on stdout:
    {"setup": {"screen": [table numbers], "protocol": [...]}, "deadline": monotonic time}
        -> how many of each got set up;
    {"play": [start, until], "kinds": [...]} (monotonic times) -> per kind: actions, latencies,
        bytes; and its own CPU over the window (only the tables of those kinds act);
    anything else, or the end of stdin: hang up every client and exit."""

    def __init__(self, host: str, port: int, tables_at_once: int, connects_at_once: int,
                 pyte_clients: bool = False, bot_level: str = BOT_LEVEL) -> None:
        self.host = host
        self.port = port
        self.bot_level = bot_level  # the bot deciding for the protocol seats
        self.pyte_clients = pyte_clients  # emulate a terminal all along (what it cost before)
        self.gate = asyncio.Semaphore(tables_at_once)
        self.connecting = asyncio.Semaphore(connects_at_once)
        self.screens: list[list[ScreenClient]] = []
        self.protos: list[list[ProtoSeat]] = []

    async def run(self) -> None:
        loop = asyncio.get_running_loop()
        try:
            while line := await loop.run_in_executor(None, sys.stdin.readline):
                command = json.loads(line)
                if "setup" in command:
                    say(await self.set_up(command["setup"], command["deadline"]))
                elif "play" in command:
                    say(await self.play(*command["play"], kinds=command.get("kinds", KINDS),
                                        limit=command.get("limit"), spread=command.get("spread", False),
                                        rate=command.get("rate", 1.0)))
                else:
                    break
        finally:
            await close_all([c for players in self.screens for c in players])
            await close_all([s for seats in self.protos for s in seats])

    async def set_up(self, tables: dict[str, list[int]], deadline: float) -> dict[str, object]:
        started = time.monotonic()
        errors: list[str] = []
        steps: list[dict[str, float]] = []
        ready = {kind: 0 for kind in KINDS}

        async def one(kind: str, n: int) -> None:
            async with self.gate:
                clients: list = []  # type: ignore[type-arg]
                try:
                    left = deadline - time.monotonic()
                    if left <= 0:
                        raise asyncio.TimeoutError("no time left to start it")
                    if kind == "screen":
                        setup = set_up_private_table(self.port, n, clients, self.connecting, CheapClient,
                                                     host=self.host)
                    else:
                        setup = set_up_proto_table(self.host, self.port, n, clients, self.connecting,
                                                   STEP_TIMEOUT, self.bot_level)
                    steps.append(await asyncio.wait_for(setup, left))
                    (self.screens if kind == "screen" else self.protos).append(clients)
                    ready[kind] += 1
                except Exception as exc:  # noqa: BLE001 - a table not set up is reported, not fatal
                    if isinstance(exc, AssertionError) and not errors:  # its screen, in the log
                        print(f"table {n}: {exc}", file=sys.stderr)
                    first_line = str(exc).splitlines()[0] if str(exc) else "setup deadline"
                    errors.append(f"{kind} table {n}: {type(exc).__name__}: {first_line}")
                    await close_all(clients)

        # The two kinds interleaved, in proportion: the gate is taken in this order, and
        # screen tables, much slower to set up, would otherwise use the budget all alone.
        jobs = sorted((i / len(numbers), kind, n) for kind in KINDS
                      for numbers in [tables.get(kind, [])] for i, n in enumerate(numbers))
        await asyncio.gather(*(one(kind, n) for _, kind, n in jobs))
        return {"ready": ready, "errors": errors[:3], "steps": steps,
                "setup_seconds": time.monotonic() - started}

    async def play(self, start: float, until: float, kinds: list[str],
                   limit: dict[str, int] | None = None, spread: bool = False,
                   rate: float = 1.0) -> dict[str, object]:
        """``limit``: how many of this worker's tables of each kind act (the first ones; the
        others stay seated, idle); none: all of them. ``spread``: each table's window is
        shifted by a random part of a second, so the tables act at different moments of each
        second (as people do) rather than all at once on the second: a burst of every table's
        action at one instant measures the burst, not what the server holds. ``rate``: actions a
        second per table."""
        await asyncio.sleep(max(0.0, start - time.monotonic()))
        stats = {kind: PlayStats() for kind in KINDS}
        tables = {"screen": self.screens, "protocol": self.protos}
        if limit is not None:
            tables = {kind: tables[kind][:max(0, int(limit.get(kind, 0)))] for kind in KINDS}
        screens = [c for players in tables["screen"] for c in players] if "screen" in kinds else []
        seats = [s for table in tables["protocol"] for s in table] if "protocol" in kinds else []
        if not self.pyte_clients:
            for client in screens:
                if isinstance(client, CheapClient) and not client.cheap:
                    client.go_cheap()  # once: its screen is not kept up to date after that
        proto = stats["protocol"]

        def record(latencies: list[float], missing: int) -> None:
            proto.actions += 1
            proto.latencies.extend(latencies)
            proto.not_redrawn += missing

        cpu0 = time.process_time()
        bytes0 = {"screen": sum(map(received, screens)), "protocol": sum(s.received for s in seats)}
        async def shifted(play: Any, *args: Any) -> None:
            shift = random.random() / rate if spread else 0.0
            await asyncio.sleep(shift)
            await play(*args[:1], until + shift, *args[1:], rate=rate)

        await asyncio.gather(
            *(shifted(play_table, players, stats["screen"]) for players in tables["screen"] if screens),
            *(shifted(play_proto_table, table, DRAW_TIMEOUT, record) for table in tables["protocol"] if seats))
        got = {"screen": sum(map(received, screens)) - bytes0["screen"],
               "protocol": sum(s.received for s in seats) - bytes0["protocol"]}
        return {"cpu_seconds": time.process_time() - cpu0,
                **{kind: {"actions": stats[kind].actions, "latencies": stats[kind].latencies,
                          "not_redrawn": stats[kind].not_redrawn, "bytes_received": got[kind]}
                   for kind in KINDS}}


def machine_cpu() -> tuple[int, int]:
    """Busy and total clock ticks of every core so far (/proc/stat; idle and iowait not busy)."""
    ticks = [int(t) for t in Path("/proc/stat").read_text().splitlines()[0].split()[1:]]
    total = sum(ticks[:8])  # guest time is counted in user already
    return total - ticks[3] - ticks[4], total


def received(client: ScreenClient) -> int:
    return client.received if isinstance(client, CheapClient) else len(client.raw)


def say(message: dict[str, object]) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def screen_tables_for(tables: int, share: float) -> int:
    """How many of ``tables`` are screen tables: ``share`` of them, rounded, at least one when
    the share is not 0 and one protocol table when it is not 1 (with two tables or more)."""
    n = round(tables * share)
    if share > 0:
        n = max(1, n)
    if share < 1 and tables >= 2:
        n = min(n, tables - 1)
    return min(n, tables)


# -- the parent: the server, the workers, the measurement windows ------------------------------
class LoadRun:
    """A few client workers against one server; tables are added in stages, each measured.

    Without ``port`` it starts a server of its own (127.0.0.1); with ``host``/``port`` it loads
    a running one, and reads the CPU of ``server_pids`` (none: no server CPU figures).
    Stages share their set-up: measuring 25 tables after 2 adds 23, and 100 after 25 adds 75,
    so the set-up budget goes to new tables. ``screen_share`` of the tables are screen tables
    (four terminal sessions, cheap clients once playing), the others protocol tables (four
    programs on the subsystem). Each stage measures ``seconds`` with every table playing, then,
    when there are both kinds, ``split_seconds`` with only the protocol tables acting and as
    long with only the screen tables acting: the server's CPU per action per seat of each kind.
    ``play_some(n)`` measures one more window with only ``n`` of the seated tables acting.
    ``spread``: the tables act at random moments of each second rather than all on the second;
    ``burst_seconds`` (with ``spread``): one more window of that length in each stage, every
    table acting on the second, its latencies reported apart (``..._burst_...``): what a
    burst of every table's action at one instant costs, beside what players acting when
    they do see;
    ``rate``: actions a second per table (default 1); ``bot_level``: the bot deciding for
    the protocol seats (default "normal", as ``truco-ssh bot``; "easy" is cheaper for the clients).
    Use as a context manager; ``stage(n, budget)``.
    """

    def __init__(self, seconds: float = 20.0, workers: int = 3, pyte_clients: bool = False, *,
                 screen_share: float = SCREEN_SHARE, split_seconds: float | None = None,
                 host: str = "127.0.0.1", port: int | None = None,
                 server_pids: Sequence[int] = (), server_flags: tuple[str, ...] = (),
                 listeners: int = 1, spread: bool = False, rate: float = 1.0,
                 bot_level: str = BOT_LEVEL, burst_seconds: float = 0.0) -> None:
        if not 0.0 <= screen_share <= 1.0:
            raise ValueError("screen_share is a fraction, 0 to 1")
        self.seconds = seconds
        self.split_seconds = seconds / 2 if split_seconds is None else split_seconds
        self.workers = workers
        self.pyte_clients = pyte_clients
        self.screen_share = screen_share
        self.host = host
        self.port = port
        self.server_pids = list(server_pids)
        self.server_flags = server_flags  # more serve options (workers_bench: --workers 2)
        self.listeners = listeners  # server processes to wait for (--workers N: N)
        self.spread = spread  # tables act at random moments of each second (Worker.play)
        self.burst_seconds = burst_seconds if spread else 0.0  # a window of every table on the second
        self.rate = rate  # actions a second per table
        self.bot_level = bot_level  # the bot deciding for the protocol seats (their clients' CPU)
        self.tables = 0  # table numbers handed out so far (set up or not)
        self.playing = {kind: 0 for kind in KINDS}
        self.playing_by_worker = [{kind: 0 for kind in KINDS} for _ in range(workers)]

    def __enter__(self) -> "LoadRun":
        self._tmp = tempfile.TemporaryDirectory()
        self._runner = asyncio.Runner()
        self.server: ServerProcess | None = None
        try:
            if self.port is None:
                self.server = ServerProcess(Path(self._tmp.name), *SERVER_FLAGS, *self.server_flags,
                                            listeners=self.listeners,
                                            env={"TRUCO_LOOP_LAG_WINDOW": str(LAG_WINDOW),
                                                 "TRUCO_LOOP_LAG_SAMPLES": "1"})
                self.host, self.port, self.server_pids = "127.0.0.1", self.server.port, [self.server.proc.pid]
            self._runner.run(self._start())
        except BaseException:
            self.__exit__()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        try:
            self._runner.run(self._stop())
        finally:
            self._runner.close()
            if self.server is not None:
                self.server.stop()
            logs = "".join(log.read_text(errors="replace")[-2000:]
                           for log in sorted(Path(self._tmp.name).glob("worker*.log")))
            if logs.strip():
                print(logs, file=sys.stderr)
            self._tmp.cleanup()

    async def _start(self) -> None:
        self.procs: list[asyncio.subprocess.Process] = []
        assert self.port is not None
        # The server's first sessions (imports, the first app) are not part of any figure.
        warm = await Client.connect(self.host, self.port, "warmup")
        await warm.close()
        if self.screen_share > 0:
            screen, _ = await connect_to_lobby(self.port, "warmup2", host=self.host)
            await screen.close()

        def share_of(total: int) -> str:
            return str(max(1, math.ceil(total / self.workers)))

        for w in range(self.workers):
            self.procs.append(await asyncio.create_subprocess_exec(
                sys.executable, __file__, "--worker", "--host", self.host, "--port", str(self.port),
                "--tables-at-once", share_of(TABLES_AT_ONCE),
                "--connects-at-once", share_of(CONNECTS_AT_ONCE),
                *(["--pyte-clients"] if self.pyte_clients else []), "--bot-level", self.bot_level,
                stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
                stderr=open(Path(self._tmp.name) / f"worker{w}.log", "wb"),
                limit=REPORT_LINE_LIMIT,
            ))

    async def _stop(self) -> None:
        for proc in getattr(self, "procs", []):
            if proc.returncode is None and proc.stdin is not None:
                proc.stdin.close()  # end of commands: the worker hangs up its clients
        for proc in getattr(self, "procs", []):
            try:
                await asyncio.wait_for(proc.wait(), 30)
            except asyncio.TimeoutError:
                proc.kill()
                await proc.wait()

    async def _ask(self, commands: list[dict[str, object]], deadline: float) -> list[dict[str, Any]]:
        for proc, command in zip(self.procs, commands):
            assert proc.stdin is not None
            proc.stdin.write((json.dumps(command) + "\n").encode())
            await proc.stdin.drain()
        answers = []
        for proc in self.procs:
            assert proc.stdout is not None
            line = await asyncio.wait_for(proc.stdout.readline(), max(1.0, deadline - time.monotonic()))
            if not line:
                raise RuntimeError(f"a load worker exited (code {await proc.wait()})")
            answers.append(dict(json.loads(line)))
        return answers

    def server_cpu_by_process(self) -> dict[str, float]:
        """CPU seconds so far of each of the server's processes (``--workers``: the
        supervisor, the nats-server and every worker), by "pid name"."""
        out: dict[str, float] = {}
        for pid in self.server_pids:
            out.update(tree_cpu_seconds(pid))
        return out

    def server_cpu(self) -> float:
        return sum(self.server_cpu_by_process().values())

    def server_rss_mib(self) -> float:
        """The resident memory of the server's processes now (their caches filled by the
        stage's play: the rows shared between sessions are bounded, not freed)."""
        kib = 0
        for pid in self.server_pids:
            for member in process_tree(pid):
                try:
                    kib += rss_kib(member)
                except (OSError, RuntimeError):  # (ended meanwhile)
                    continue
        return kib / 1024

    def stage(self, tables: int, setup_budget: float) -> dict[str, object]:
        """Bring the tables up to `tables` (within setup_budget seconds), then measure."""
        return self._runner.run(self._stage(tables, setup_budget))

    async def _stage(self, tables: int, setup_budget: float) -> dict[str, object]:
        screen_target = screen_tables_for(tables, self.screen_share)
        wanted = {"screen": max(0, screen_target - self.playing["screen"]),
                  "protocol": max(0, tables - screen_target - self.playing["protocol"])}
        new = {}
        for kind in KINDS:
            new[kind] = list(range(self.tables, self.tables + wanted[kind]))
            self.tables += wanted[kind]
        started, cpu0 = time.monotonic(), self.server_cpu()
        deadline = started + setup_budget
        # Protocol tables go to the workers from the last one, so one table of each kind
        # lands on two workers.
        readies = await self._ask([{"setup": {"screen": new["screen"][w::self.workers],
                                              "protocol": new["protocol"][self.workers - 1 - w::self.workers]},
                                    "deadline": deadline} for w in range(self.workers)], deadline + 60)
        setup_seconds, setup_cpu = time.monotonic() - started, self.server_cpu() - cpu0
        for kind in KINDS:
            self.playing[kind] += sum(int(r["ready"][kind]) for r in readies)
            for mine, ready in zip(self.playing_by_worker, readies):
                mine[kind] += int(ready["ready"][kind])
        windows = {"all": await self._window(self.seconds, list(KINDS))}
        if all(self.playing.values()) and self.split_seconds > 0:
            for kind in KINDS:
                windows[kind] = await self._window(self.split_seconds, [kind])
        if self.burst_seconds > 0:
            windows["burst"] = await self._window(self.burst_seconds, list(KINDS), spread=False)
        return self._figures(tables, sum(map(len, new.values())), readies, windows,
                             setup_seconds, setup_cpu)

    def play_some(self, tables: int) -> dict[str, object]:
        """One window of ``seconds`` with only ``tables`` of the tables set up acting (the
        screen share kept, spread over the workers), the others seated and idle: a lighter
        load without tearing tables down (workers_bench bisects with it)."""
        return self._runner.run(self._play_some(tables))

    async def _play_some(self, tables: int) -> dict[str, object]:
        screen = min(self.playing["screen"], screen_tables_for(tables, self.screen_share))
        wanted = {"screen": screen, "protocol": min(self.playing["protocol"], max(0, tables - screen))}
        limits = [{kind: 0 for kind in KINDS} for _ in range(self.workers)]
        for kind in KINDS:  # round robin over the workers that have tables of this kind left
            left = wanted[kind]
            while left:
                for mine, limit in zip(self.playing_by_worker, limits):
                    if left and limit[kind] < mine[kind]:
                        limit[kind] += 1
                        left -= 1
        window = await self._window(self.seconds, list(KINDS), limits)
        return self._figures(tables, 0, [], {"all": window}, 0.0, 0.0, playing=wanted)

    async def _window(self, seconds: float, kinds: list[str],
                      limits: list[dict[str, int]] | None = None, spread: bool | None = None) -> dict[str, Any]:
        """``seconds`` of play by the tables of ``kinds`` (``limits``: how many of each
        worker's; ``spread``: the run's unless given): the workers' reports, server CPU."""
        start = time.monotonic() + 0.5
        until = start + seconds
        spread = self.spread if spread is None else spread
        play = self._ask([{"play": [start, until], "kinds": kinds, "spread": spread, "rate": self.rate,
                           **({"limit": limits[w]} if limits is not None else {})}
                          for w in range(self.workers)], until + DRAW_TIMEOUT + 60)
        task = asyncio.ensure_future(play)
        await asyncio.sleep(start - time.monotonic())
        cpu0, machine0 = self.server_cpu_by_process(), machine_cpu()
        await asyncio.sleep(until - time.monotonic())
        cpu1, machine1 = self.server_cpu_by_process(), machine_cpu()
        by_process = {name: cpu1[name] - cpu0[name] for name in cpu1 if name in cpu0}
        reports = await task
        # The tables finish their last action after `until`; the next window starts clean.
        # Spread tables act up to a second later, in the same number: the rate is steady.
        busy, total = (b - a for a, b in zip(machine0, machine1))
        # The server's loop-lag lines for its windows inside this one (a server it started).
        def inside(at: float) -> bool:
            return start + LAG_WINDOW <= at <= until + 0.5

        lags = [(p99, worst) for at, p99, worst in (self.server.lags if self.server else []) if inside(at)]
        samples = [x for at, window in (self.server.lag_samples if self.server else []) if inside(at)
                   for x in window]
        return {"seconds": seconds, "server_cpu": sum(by_process.values()), "by_process": by_process,
                "machine_busy": busy / total if total > 0 else float("nan"),
                "reports": reports, "lags": lags, "lag_samples": samples}

    def _figures(self, tables: int, added: int, readies: list[dict[str, Any]],
                 windows: dict[str, dict[str, Any]], setup_seconds: float,
                 setup_cpu: float, playing: dict[str, int] | None = None) -> dict[str, object]:
        playing = self.playing if playing is None else playing  # the tables that acted

        def total(window: dict[str, Any], kind: str, key: str) -> float:
            return float(sum(r[kind][key] for r in window["reports"]))

        def latencies(window: dict[str, Any], kind: str) -> list[float]:
            return [x for r in window["reports"] for x in r[kind]["latencies"]]

        def client_cpu(window: dict[str, Any]) -> float:
            return float(sum(r["cpu_seconds"] for r in window["reports"]))

        measured = bool(self.server_pids)
        everything = windows["all"]
        seconds = everything["seconds"]
        actions = total(everything, "screen", "actions") + total(everything, "protocol", "actions")
        steps = [s for r in readies for s in r["steps"]]
        figures: dict[str, object] = {
            "tables_requested": float(tables),
            "tables_playing": float(sum(playing.values())),
            "screen_tables_playing": float(playing["screen"]),
            "protocol_tables_playing": float(playing["protocol"]),
            "tables_set_up_now": f"{sum(sum(r['ready'].values()) for r in readies)} of {added}",
            "client_workers": float(self.workers),
            "setup_seconds": setup_seconds,
            "actions": actions,
            "actions_per_second_requested": float(sum(playing.values())) * self.rate,
            "actions_per_second": actions / seconds,
            "clients_cpu_percent": client_cpu(everything) / seconds * 100,
            # every core of the machine: the server, the clients, and whatever else runs
            "machine_busy_percent": everything["machine_busy"] * 100,
            "machine_cores": float(os.cpu_count() or 1),
        }
        if everything.get("lag_samples"):  # every sample of the server's windows inside this one
            figures["event_loop_lag_p99_ms"] = pct(everything["lag_samples"], 0.99) * 1000
        if everything.get("lags"):
            # (a 2 s window's p99 is the largest of its 40 samples: the worst window's is the
            # run's worst wait, which this figure was until 2026-12-07)
            figures["event_loop_lag_window_p99_max_ms"] = max(p99 for p99, _ in everything["lags"]) * 1000
            figures["event_loop_lag_max_ms"] = max(worst for _, worst in everything["lags"]) * 1000
        if measured:
            figures["setup_server_busy_percent"] = setup_cpu / max(setup_seconds, 1e-9) * 100
            figures["server_cpu_per_action_ms"] = everything["server_cpu"] / max(1.0, actions) * 1000
            figures["server_cpu_busy_percent"] = everything["server_cpu"] / seconds * 100
            figures["server_rss_mib"] = self.server_rss_mib()
            # connect, lobby, New-table form or join by code, seated, dealt: per player set up
            ready = sum(sum(r["ready"].values()) for r in readies)
            figures["setup_server_cpu_per_player_ms"] = setup_cpu / max(1.0, 4 * ready) * 1000
            if len(everything["by_process"]) > 1:  # --workers: each process's share per seat-action
                figures["server_cpu_per_action_per_watching_seat_ms_by_process"] = {
                    name: cpu / max(1.0, actions) / 4 * 1000 for name, cpu in everything["by_process"].items()}
            # How busy each process was (percent of one core): are the workers really spread?
            figures["server_cpu_busy_percent_by_process"] = {
                name: cpu / seconds * 100 for name, cpu in everything["by_process"].items()}
        names = {"screen": ("press_to_draw", "screens_not_redrawn_in_5s", "watching_seat", "screen"),
                 "protocol": ("send_to_update", "updates_not_received_in_5s", "protocol_seat", "protocol")}
        for kind, (latency, missing, seat, short) in names.items():
            if not playing[kind]:
                continue
            kind_actions = total(everything, kind, "actions")
            figures[f"{latency}_median_ms"] = pct(latencies(everything, kind), 0.5) * 1000
            figures[f"{latency}_p99_ms"] = pct(latencies(everything, kind), 0.99) * 1000
            figures[missing] = total(everything, kind, "not_redrawn")
            figures[f"bytes_per_{short}_seat_per_action"] = (
                total(everything, kind, "bytes_received") / max(1.0, 4 * kind_actions))
            # Per seat of this kind: from its own window when both kinds play (the server's
            # and the clients' CPU are then this kind's alone), else from the whole one.
            alone = windows.get(kind, everything)
            alone_actions = total(alone, kind, "actions") or float("nan")
            if measured:
                figures[f"server_cpu_per_action_per_{seat}_ms"] = alone["server_cpu"] / alone_actions / 4 * 1000
            figures[f"clients_cpu_per_{short}_action_ms"] = client_cpu(alone) / alone_actions * 1000
        burst = windows.get("burst")
        if burst is not None:  # every table's action at one instant: latencies apart
            for kind, (latency, *_) in names.items():
                if playing[kind]:
                    figures[f"{latency}_burst_median_ms"] = pct(latencies(burst, kind), 0.5) * 1000
                    figures[f"{latency}_burst_p99_ms"] = pct(latencies(burst, kind), 0.99) * 1000
            if burst.get("lag_samples"):
                figures["event_loop_lag_burst_p99_ms"] = pct(burst["lag_samples"], 0.99) * 1000
        for step in ("connect", "create", "join"):
            figures[f"setup_{step}_median_s"] = pct([s[step] for s in steps], 0.5)
        errors = [e for r in readies for e in r["errors"]]
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
                await client.wait_for("Choose your seat", 20)  # a table with partners: Enter, the first free
                client.send("\r")
                await client.wait_for("Waiting for", 20)
            await watcher.wait_for("waiting", 20)
            watcher.send("j")  # the 4th seat (the only one left: no list)
            await players[0].wait_for("Enter Start", 20)
            await asyncio.sleep(0.5)
            rec.chunks.clear()
            players[0].send("\r")  # the creator starts: the hand is dealt at once
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


def run_load(host: str, port: int, tables: int, seconds: float = 20.0, *,
             server_pids: Sequence[int] = (), screen_share: float = SCREEN_SHARE,
             split_seconds: float | None = None, setup_budget: float = 150.0,
             workers: int = 3) -> dict[str, object]:
    """Load a running server at ``host``:``port``: ``tables`` 4-player tables (``screen_share``
    of them screen tables, the rest protocol tables), measured for ``seconds`` with all of
    them playing, then ``split_seconds`` (default seconds/2) per kind. Server CPU figures come
    from ``server_pids`` (summed; none given: left out). The server must let this many
    connections in from one address (``serve --max-connections-per-ip 1000 --max-sessions 1000
    --connections-per-minute-per-ip 100000``, as the bench's own server does)."""
    with LoadRun(seconds, workers, screen_share=screen_share, split_seconds=split_seconds,
                 host=host, port=port, server_pids=server_pids) as load:
        return load.stage(tables, setup_budget)


def run_fresh(tables: int, seconds: float = 20.0, setup_budget: float = 150.0, workers: int = 3,
              screen_share: float = SCREEN_SHARE, split_seconds: float | None = None) -> dict[str, object]:
    """One stage on a server of its own (a subprocess): as ``run_load``."""
    with LoadRun(seconds, workers, screen_share=screen_share, split_seconds=split_seconds) as load:
        return load.stage(tables, setup_budget)


def run_bytes() -> dict[str, float]:
    return asyncio.run(measure_bytes())


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tables", type=int, nargs="*", default=[2])
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--split-seconds", type=float,
                        help="seconds each kind of table plays alone after the whole load (default seconds/2)")
    parser.add_argument("--screen-share", type=float, default=SCREEN_SHARE,
                        help="share of the tables played by screen sessions (default %(default)s)")
    parser.add_argument("--setup-budget", type=float, default=150.0)
    parser.add_argument("--workers", type=int, default=3)
    parser.add_argument("--no-bytes", action="store_true")
    parser.add_argument("--pyte-clients", action="store_true",
                        help="clients emulate a terminal while playing too (the old, costly way)")
    parser.add_argument("--host", default="127.0.0.1", help="with --port: load a running server")
    parser.add_argument("--port", type=int, help="a running server's port (default: start one)")
    parser.add_argument("--server-pid", type=int, nargs="*", default=[],
                        help="with --port: the server's process ids, for its CPU time")
    parser.add_argument("--spread", action="store_true",
                        help="each table acts at a random moment of each second, as people do "
                             "(default: every table on the second, a burst)")
    parser.add_argument("--burst-seconds", type=float, default=0.0,
                        help="with --spread: one more window per stage with every table on the second")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--bot-level", default=BOT_LEVEL, help=argparse.SUPPRESS)
    parser.add_argument("--tables-at-once", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--connects-at-once", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        asyncio.run(Worker(args.host, args.port, args.tables_at_once, args.connects_at_once,
                           args.pyte_clients, args.bot_level).run())
        return
    if not args.no_bytes:
        for key, value in run_bytes().items():
            print(f"{key:44s} {value:10.2f}")
    with LoadRun(args.seconds, args.workers, args.pyte_clients, screen_share=args.screen_share,
                 split_seconds=args.split_seconds, host=args.host, port=args.port,
                 server_pids=args.server_pid, spread=args.spread,
                 burst_seconds=args.burst_seconds) as load:  # stages add tables to one server
        for n in args.tables:
            for key, value in load.stage(n, args.setup_budget).items():
                print(f"{key:44s} {value:10.2f}" if isinstance(value, float) else f"{key:44s} {value}")


if __name__ == "__main__":
    main()
