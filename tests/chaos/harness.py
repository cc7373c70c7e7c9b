"""Faults injected into a playing cluster, and the history checked (issue 33; after Jepsen).

The system: three nats-servers routed on loopback (JetStream, ``--replicas 3``) and three
``truco-ssh serve --nats`` processes, each first on its own node; TABLES tables of two players,
the players programs on the ``truco`` subsystem spread over the processes, playing match after
match (resending a move after 3 s of silence, as a person presses again).

The faults, one at a time at random moments: a NATS node killed with SIGKILL (and started
again on its store 1-3 s later), or stopped with SIGSTOP for 2-6 s; the node leading the lease
bucket's stream half of the time. After each, the harness waits until every table has played
again (the seconds from the fault's start are the recovery time) and until the restarted node
has caught up, then injects the next.

The checks, on the whole history: every table update any player saw is in the table's log
afterwards (no acknowledged event lost: the highest sequence seen is logged, and the log
replays); no player saw a table go backwards (an older update after a newer one); no player's
session ended; no serve process exited or stopped itself; every table played again after
every fault (and how fast).

Not covered yet (issue 33): faults of the serve processes here (the cluster tests kill them:
tests/cluster), partitions between machines (network namespaces), power cuts (a filesystem
that loses unsynced writes), SQLite mode.

Run: ``python -m tests.chaos.harness --faults 100 --budget 600`` (``make chaos``).
"""
from __future__ import annotations

import argparse
import asyncio
import os
import random
import shutil
import signal
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import nats

import protocol as p
from protocol.client import Client, Closed
from server.cluster.bus import EVENTS_STREAM, LEASE_BUCKET, retrying
from server.cluster.natsd import NatsServer
from tests.cluster.procs import Proc, logged_state, start, start_nats_cluster
from tests.e2e import programs

TABLES = 3
RECOVERY_LIMIT = 60.0  # seconds a table may take to play again before the run counts it as stuck
RESEND_AFTER = 3.0
CAUGHT_UP_LIMIT = 60.0
OPTIONS = {"target": 30, "match_games": 2}


@dataclass
class History:
    """What the players saw, as it happened."""

    seen: dict[str, int] = field(default_factory=dict)  # table -> highest sequence any player saw
    progress: dict[str, float] = field(default_factory=dict)  # table -> when its sequence last rose
    backwards: list[str] = field(default_factory=list)  # a player saw an older update after a newer one
    last: dict[tuple[str, str], int] = field(default_factory=dict)  # (player, table) -> its last sequence
    ended: list[str] = field(default_factory=list)  # players whose session ended

    def saw(self, player: str, update: p.TableUpdate) -> None:
        table = update.table_id
        before = self.last.get((player, table), -1)
        if update.seq < before and not update.history:
            self.backwards.append(f"{player} at {table}: {update.seq} after {before}")
        self.last[(player, table)] = max(before, update.seq)
        if update.seq > self.seen.get(table, -1):
            self.seen[table] = update.seq
            self.progress[table] = time.monotonic()


@dataclass
class Report:
    faults: list[tuple[str, float]] = field(default_factory=list)  # (what, seconds until every table played)
    stuck: list[str] = field(default_factory=list)
    lost: list[str] = field(default_factory=list)
    backwards: list[str] = field(default_factory=list)
    ended: list[str] = field(default_factory=list)
    exited: list[str] = field(default_factory=list)
    stopped_itself: list[str] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        return not (self.stuck or self.lost or self.backwards or self.ended or self.exited or self.stopped_itself)

    def lines(self) -> list[str]:
        recoveries = [s for _, s in self.faults]
        kinds = {k: sum(1 for what, _ in self.faults if f" {k} " in what) for k in ("kill", "pause")}
        out = [f"chaos: {len(self.faults)} faults in {self.seconds:.0f} s (NATS node killed {kinds['kill']}, "
               f"paused {kinds['pause']}); 3 NATS nodes, 3 serve processes, {TABLES} tables",
               f"acknowledged events lost: {len(self.lost)}",
               f"tables seen going backwards: {len(self.backwards)}",
               f"sessions ended on live processes: {len(self.ended)}",
               f"serve processes that exited or stopped themselves: {len(self.exited) + len(self.stopped_itself)}",
               f"tables not playing again within {RECOVERY_LIMIT:.0f} s: {len(self.stuck)}"]
        if recoveries:
            out.append(f"seconds until every table played again: median {statistics.median(recoveries):.1f}, "
                       f"max {max(recoveries):.1f}")
        slowest = sorted(self.faults, key=lambda f: -f[1])[:3]
        out += [f"  slowest: {what}: {seconds:.1f} s" for what, seconds in slowest if seconds > 10]
        for name in ("lost", "backwards", "ended", "exited", "stopped_itself", "stuck"):
            out += [f"  {name}: {item}" for item in getattr(self, name)[:10]]
        return out


async def _leader(servers: list[NatsServer], stream: str) -> NatsServer | None:
    live = [s for s in servers if s.process is not None and s.process.returncode is None]
    for server in live:
        try:
            nc = await nats.connect(server.url, connect_timeout=2, max_reconnect_attempts=0)
        except Exception:
            continue
        try:
            info = await nc.jetstream().stream_info(stream)
            if info.cluster is not None and info.cluster.leader:
                return next((s for s in servers if s.name == info.cluster.leader), None)
        except Exception:
            pass
        finally:
            await nc.close()
    return None


async def _caught_up(servers: list[NatsServer]) -> None:
    """Until the lease and event streams have a leader and every replica is current."""
    deadline = time.monotonic() + CAUGHT_UP_LIMIT
    last = ""
    while time.monotonic() < deadline:
        try:
            nc = await nats.connect(servers[0].url, connect_timeout=2, max_reconnect_attempts=0)
            try:
                current = True
                for stream in (f"KV_{LEASE_BUCKET}", EVENTS_STREAM):
                    info = await nc.jetstream().stream_info(stream)
                    cluster = info.cluster
                    if cluster is None or not cluster.leader or any(
                            not r.current or r.offline for r in cluster.replicas or []):
                        current = False
                if current:
                    return
            finally:
                await nc.close()
        except Exception as exc:
            last = repr(exc)
        else:
            last = repr(cluster)
        await asyncio.sleep(0.25)
    raise AssertionError(f"the NATS cluster did not catch up: {last}")


async def _player(client: Client, name: str, table: str, seed: int, history: History, done: asyncio.Event) -> None:
    """Match after match until ``done``; a session that ends is noted."""
    def heard(update: p.TableUpdate) -> bool:
        history.saw(name, update)
        return done.is_set()

    try:
        while not done.is_set():
            update = await programs.play(client, table, heard, seed=seed, timeout=3600, resend_after=RESEND_AFTER)
            if update.view.match_over and not done.is_set():
                await client.send(p.Rematch(table_id=table))
                await programs.update(client, lambda u: heard(u) or not u.view.match_over, timeout=3600)
    except Closed as exc:
        history.ended.append(f"{name}: {exc}")


async def _fault(rng: random.Random, servers: list[NatsServer]) -> tuple[str, "asyncio.Future[None]"]:
    """Inject one fault; what it was, and a task that ends it (restart, SIGCONT)."""
    target = await _leader(servers, f"KV_{LEASE_BUCKET}") if rng.random() < 0.5 else None
    target = target or rng.choice(servers)
    assert target.process is not None
    name = f"node {servers.index(target)}"
    if rng.random() < 0.5:
        target.process.kill()
        await target.process.wait()
        target.process = None

        async def restart() -> None:
            await asyncio.sleep(rng.uniform(1.0, 3.0))  # the node is down this long: the fault itself
            await target.start()
        return f"kill {name}", asyncio.ensure_future(restart())
    pid, pause = target.process.pid, rng.uniform(2.0, 6.0)
    os.kill(pid, signal.SIGSTOP)

    async def resume() -> None:
        await asyncio.sleep(pause)  # the node hangs this long: the fault itself
        os.kill(pid, signal.SIGCONT)
    return f"pause {name} {pause:.1f} s", asyncio.ensure_future(resume())


async def run(faults: int, budget: float, seed: int, root: Path) -> Report:
    rng = random.Random(seed)
    report = Report()
    began = time.monotonic()
    servers = await start_nats_cluster(root)
    procs: list[Proc] = []
    clients: list[Client] = []
    history = History()
    done = asyncio.Event()
    players: list[asyncio.Task[None]] = []
    try:
        urls = [s.url for s in servers]
        for n in range(3):
            procs.append(await start(root, ",".join(urls[n:] + urls[:n]), "--replicas", "3", "--lease-ttl", "6"))
        tables: list[str] = []
        for t in range(TABLES):  # each table's two players on two different processes
            first, = await programs.connect(procs[t % 3].port, f"p{t}a")
            second, = await programs.connect(procs[(t + 1) % 3].port, f"p{t}b")
            clients += [first, second]
            table = await programs.table_of(first, 2, options=OPTIONS)
            await second.send(p.JoinTable(table_id=table))
            tables.append(table)
            players += [asyncio.create_task(_player(first, f"p{t}a", table, 2 * t, history, done)),
                        asyncio.create_task(_player(second, f"p{t}b", table, 2 * t + 1, history, done))]
        await _until_all_played(history, tables, time.monotonic() - 1, report, "start")
        for _ in range(faults):
            if time.monotonic() - began > budget - RECOVERY_LIMIT:
                break
            await asyncio.sleep(rng.uniform(0.5, 2.0))  # a random moment in play
            started = time.monotonic()
            what, ending = await _fault(rng, servers)
            what = f"{time.strftime('%H:%M:%S')} {what}"
            recovered = await _until_all_played(history, tables, started, report, what)
            await ending
            await _caught_up(servers)
            report.faults.append((what, recovered))
        done.set()  # each player stops at its next update; one that gets none is at a stuck table
        _, waiting = await asyncio.wait(players, timeout=RECOVERY_LIMIT)
        if waiting:
            report.stuck.append(f"{len(waiting)} players heard nothing for {RECOVERY_LIMIT:.0f} s at the end")
        logged = await retrying(lambda: logged_state(servers[0].url), "reading the logs", CAUGHT_UP_LIMIT)
        for table in tables:
            last = logged.get(table, (0, -1, ""))[1]
            if history.seen.get(table, -1) > last:
                report.lost.append(f"{table}: players saw event {history.seen[table]}, the log ends at {last}")
        report.backwards, report.ended = history.backwards, history.ended
        for n, proc in enumerate(procs):
            if proc.process.returncode is not None:
                report.exited.append(f"process {n} exited with {proc.process.returncode}")
            report.stopped_itself += [f"process {n}: {line.strip()}" for line in proc.lines
                                      if "it stops" in line or "sessions end" in line]
    finally:
        done.set()
        for task in players:
            task.cancel()
        for n, proc in enumerate(procs):  # for the operator to read after a failed run
            (root / f"process-{n}.log").write_text("".join(proc.lines))
        await programs.close_all(clients)
        await asyncio.gather(*(proc.stop() for proc in procs))
        for server in servers:  # a paused node would not stop
            if server.process is not None and server.process.returncode is None:
                os.kill(server.process.pid, signal.SIGCONT)
        await asyncio.gather(*(server.stop() for server in servers))
        report.seconds = time.monotonic() - began
    return report


async def _until_all_played(history: History, tables: list[str], since: float, report: Report, what: str) -> float:
    """Seconds from ``since`` until every table's sequence rose after it (a stuck table is
    reported, and counted as ``RECOVERY_LIMIT``)."""
    deadline = since + RECOVERY_LIMIT
    while any(history.progress.get(t, 0) <= since for t in tables):
        if time.monotonic() > deadline:
            report.stuck += [f"{t} after {what}" for t in tables if history.progress.get(t, 0) <= since]
            return RECOVERY_LIMIT
        await asyncio.sleep(0.05)
    return max(history.progress[t] for t in tables) - since


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--faults", type=int, default=100)
    parser.add_argument("--budget", type=float, default=600.0, help="seconds for the whole run")
    parser.add_argument("--seed", type=int, default=None)
    args = parser.parse_args()
    seed = args.seed if args.seed is not None else random.randrange(2**32)
    print(f"chaos: seed {seed}", flush=True)
    root = Path(tempfile.mkdtemp(prefix="truco-chaos-"))
    report = asyncio.run(run(args.faults, args.budget, seed, root))
    print("\n".join(report.lines()))
    if report.ok:
        shutil.rmtree(root, ignore_errors=True)
        return 0
    print(f"the processes' logs and the NATS nodes' files are in {root}")
    return 1


if __name__ == "__main__":
    sys.exit(main())
