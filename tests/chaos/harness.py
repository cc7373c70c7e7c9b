"""Faults injected into a playing cluster, and the history checked (issue 33; after Jepsen).

The system: three nats-servers routed on loopback (JetStream, ``--replicas 3``) and three
``truco-ssh serve --nats`` processes, each first on its own node; TABLES tables of two players,
the players programs on the ``truco`` subsystem spread over the processes, playing match after
match (resending a move after 3 s of silence, as a person presses again).

The faults, one at a time at random moments: a NATS node killed with SIGKILL (and started
again on its store 1-3 s later), or stopped with SIGSTOP for 2-6 s, the node leading the lease
bucket's stream half of the time; or a serve process killed with SIGKILL and started again on
its port 1-3 s later, as its supervisor would (its players, who sign with their own keys,
connect again to any process, as a person does, and are given their seats back), or stopped
with SIGSTOP for 2-5 s. After each,
the harness waits until every table has played again (the seconds from the fault's start are
the recovery time) and until the NATS cluster has caught up, then injects the next.

The checks, on the whole history: every table update any player saw is in the table's log
afterwards (no acknowledged event lost: the highest sequence seen is logged, and the log
replays); no player saw a table go backwards (an older update after a newer one); no session
ended on a process that was not killed; no serve process exited or stopped itself unless the
harness killed it; every table played again after every fault (and how fast).

Not covered yet (issue 33): partitions between machines (network namespaces), power cuts (a
filesystem that loses unsynced writes), SQLite mode.

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
from typing import Awaitable, Callable

import asyncssh
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
    ended: list[str] = field(default_factory=list)  # players whose session ended on a live process
    killed: dict[int, float] = field(default_factory=dict)  # port -> when its process was last killed
    reconnects: int = 0  # sessions made again after their process was killed
    trace: list[str] = field(default_factory=list)  # what each player heard and did, for a failed run

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
    reconnects: int = 0

    @property
    def ok(self) -> bool:
        return not (self.stuck or self.lost or self.backwards or self.ended or self.exited or self.stopped_itself)

    def lines(self) -> list[str]:
        recoveries = [s for _, s in self.faults]
        kinds = {k: sum(1 for what, _ in self.faults if f" {k} " in what) for k in ("kill node", "pause node",
                                                                                   "kill process", "pause process")}
        out = [f"chaos: {len(self.faults)} faults in {self.seconds:.0f} s (NATS node killed {kinds['kill node']}, "
               f"paused {kinds['pause node']}; serve process killed {kinds['kill process']}, "
               f"paused {kinds['pause process']}); "
               f"3 NATS nodes, 3 serve processes, {TABLES} tables",
               f"sessions made again after their process was killed: {self.reconnects}",
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


@dataclass
class Player:
    name: str
    key: asyncssh.SSHKey
    table: str
    seed: int
    client: Client
    port: int
    since: float = field(default_factory=time.monotonic)  # when this session was made


async def _player(player: Player, ports: list[int], history: History, done: asyncio.Event) -> None:
    """Match after match until ``done``. A session that ends because the harness killed its
    process connects again (to the next process that answers, with the same key); any other
    that ends is noted."""
    def heard(update: p.TableUpdate) -> bool:
        history.saw(player.name, update)
        history.trace.append(f"{time.strftime('%H:%M:%S')} {player.name} port {player.port} seat {update.seat} seq {update.seq} "
                             f"over {update.view.match_over} waiting {update.waiting} votes {update.rematch_votes} "
                             f"history {bool(update.history)}")
        return done.is_set()

    while not done.is_set():
        try:
            update = await programs.play(player.client, player.table, heard, seed=player.seed, timeout=3600,
                                         resend_after=RESEND_AFTER)
            if update.view.match_over and not done.is_set():
                await _rematch(player, update, heard, history)
        except (Closed, ConnectionError, asyncssh.Error) as exc:
            if history.killed.get(player.port, 0) < player.since:
                history.ended.append(f"{player.name} on port {player.port}: {exc}")
                return
            await _again(player, ports, done)
            history.reconnects += 1


async def _rematch(player: Player, over: p.TableUpdate, heard: Callable[[p.TableUpdate], bool],
                   history: History) -> None:
    """Ask for the rematch until the next match starts, again while the table does not show
    this seat's vote (as a person presses the key again): a vote can be refused, e.g. by the
    command allowance after a burst of resent moves."""
    seat = over.seat
    while True:
        await player.client.send(p.Rematch(table_id=player.table))
        history.trace.append(f"{time.strftime('%H:%M:%S')} {player.name} sends Rematch")
        try:
            # (the new match's first update is left for ``play``: it may be this seat's turn)
            update = await programs.update(player.client, lambda u: heard(u) or not u.view.match_over
                                           or seat in u.rematch_votes, timeout=RESEND_AFTER, peek=True)
        except TimeoutError:
            continue
        if update.view.match_over:  # voted: until the match starts
            await player.client.receive()  # (the update peeked at)
            await programs.update(player.client, lambda u: heard(u) or not u.view.match_over, timeout=3600,
                                  peek=True)
        return


async def _again(player: Player, ports: list[int], done: asyncio.Event) -> None:
    """Connect again, as a person whose server went away does: to the processes in turn."""
    deadline = time.monotonic() + RECOVERY_LIMIT
    turn = ports.index(player.port)
    while not done.is_set():
        turn = (turn + 1) % len(ports)
        try:
            player.client = await Client.connect("127.0.0.1", ports[turn], player.name, client_keys=[player.key],
                                                 timeout=5)
        except (OSError, asyncssh.Error, TimeoutError, Closed):
            if time.monotonic() > deadline:
                raise
            await asyncio.sleep(0.2)
            continue
        player.port, player.since = ports[turn], time.monotonic()
        return


async def _kill_process(rng: random.Random, procs: list[Proc], restart: "Callable[[int], Awaitable[Proc]]",
                        killed: list[Proc], history: History) -> tuple[str, "asyncio.Future[None]"]:
    """A serve process killed with SIGKILL, and started again on its port 1-3 s later."""
    n = rng.randrange(len(procs))
    proc = procs[n]
    history.killed[proc.port] = time.monotonic()
    await proc.stop(signal.SIGKILL)
    killed.append(proc)

    async def again() -> None:
        await asyncio.sleep(rng.uniform(1.0, 3.0))  # down this long: the fault itself
        procs[n] = await restart(n)
    return f"kill process {n}", asyncio.ensure_future(again())


async def _pause_process(rng: random.Random, procs: list[Proc]) -> tuple[str, "asyncio.Future[None]"]:
    """A serve process stopped with SIGSTOP for 2-5 s (a stall: its sessions must survive it)."""
    n = rng.randrange(len(procs))
    pid, pause = procs[n].process.pid, rng.uniform(2.0, 5.0)
    os.kill(pid, signal.SIGSTOP)

    async def resume() -> None:
        await asyncio.sleep(pause)
        os.kill(pid, signal.SIGCONT)
    return f"pause process {n} {pause:.1f} s", asyncio.ensure_future(resume())


async def _fault(rng: random.Random, servers: list[NatsServer], kill: bool) -> tuple[str, "asyncio.Future[None]"]:
    """Kill (``kill``) or pause a NATS node; what it was, and a task that ends it (restart, SIGCONT)."""
    target = await _leader(servers, f"KV_{LEASE_BUCKET}") if rng.random() < 0.5 else None
    target = target or rng.choice(servers)
    assert target.process is not None
    name = f"node {servers.index(target)}"  # (the report counts "kill node", "pause node")
    if kill:
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


# The kinds of fault, and how often each comes (weights).
WEIGHTS = {"kill-node": 0.3, "pause-node": 0.3, "kill-process": 0.25, "pause-process": 0.15}
KINDS = list(WEIGHTS)


async def run(faults: int, budget: float, seed: int, root: Path, kinds: tuple[str, ...] = tuple(KINDS)) -> Report:
    """``kinds``: the faults to inject (of ``KINDS``), each as often as ``WEIGHTS`` says."""
    rng = random.Random(seed)
    report = Report()
    began = time.monotonic()
    servers = await start_nats_cluster(root)
    procs: list[Proc] = []
    killed: list[Proc] = []  # processes the harness killed (their logs are kept)
    seated: list[Player] = []
    history = History()
    done = asyncio.Event()
    players: list[asyncio.Task[None]] = []
    try:
        urls = [s.url for s in servers]

        async def start_process(n: int, port: int | None = None) -> Proc:
            return await start(root, ",".join(urls[n:] + urls[:n]), "--replicas", "3", "--lease-ttl", "6",
                               port=port)

        for n in range(3):
            procs.append(await start_process(n))
        ports = [proc.port for proc in procs]
        tables: list[str] = []
        for t in range(TABLES):  # each table's two players on two different processes
            pair = []
            for name, n in ((f"p{t}a", t % 3), (f"p{t}b", (t + 1) % 3)):
                key = asyncssh.generate_private_key("ssh-ed25519")
                client, = await programs.connect(ports[n], name, client_keys=[key])
                pair.append(Player(name, key, "", 2 * t + len(pair), client, ports[n]))
            table = await programs.table_of(pair[0].client, 2, options=OPTIONS)
            await pair[1].client.send(p.JoinTable(table_id=table))
            tables.append(table)
            for player in pair:
                player.table = table
                seated.append(player)
                players.append(asyncio.create_task(_player(player, ports, history, done)))
        await _until_all_played(history, tables, time.monotonic() - 1, report, "start")
        for _ in range(faults):
            if time.monotonic() - began > budget - RECOVERY_LIMIT:
                break
            await asyncio.sleep(rng.uniform(0.5, 2.0))  # a random moment in play
            started = time.monotonic()
            kind = rng.choices(KINDS, weights=[WEIGHTS[k] if k in kinds else 0 for k in KINDS])[0]
            if kind == "kill-process":
                what, ending = await _kill_process(rng, procs, lambda n: start_process(n, ports[n]), killed, history)
            elif kind == "pause-process":
                what, ending = await _pause_process(rng, procs)
            else:
                what, ending = await _fault(rng, servers, kill=kind == "kill-node")
            what = f"{time.strftime('%H:%M:%S')} {what}"
            recovered = await _until_all_played(history, tables, started, report, what)
            await ending
            await _caught_up(servers)
            report.faults.append((what, recovered))
        done.set()  # each player stops at its next update; one that gets none is at a stuck table
        _, waiting = await asyncio.wait(players, timeout=RECOVERY_LIMIT)
        if waiting:
            report.stuck.append(f"{len(waiting)} players heard nothing for {RECOVERY_LIMIT:.0f} s at the end")
        try:
            logged = await retrying(lambda: logged_state(servers[0].url), "reading the logs", CAUGHT_UP_LIMIT)
        except Exception as exc:  # the check cannot be made: a failure of the run, said as such
            report.lost.append(f"the tables' logs could not be read within {CAUGHT_UP_LIMIT:.0f} s: {exc!r}")
            logged = {}
        for table in tables:
            last = logged.get(table, (0, -1, ""))[1]
            if history.seen.get(table, -1) > last:
                report.lost.append(f"{table}: players saw event {history.seen[table]}, the log ends at {last}")
        report.backwards, report.ended, report.reconnects = history.backwards, history.ended, history.reconnects
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
        (root / "players.log").write_text("\n".join(history.trace) + "\n")
        for n, proc in enumerate(killed):
            (root / f"killed-{n}-port-{proc.port}.log").write_text("".join(proc.lines))
        await programs.close_all([player.client for player in seated])
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
    parser.add_argument("--kinds", default=",".join(KINDS), help=f"faults to inject, of {','.join(KINDS)}")
    parser.add_argument("--keep", action="store_true", help="keep the logs and data even when every check holds")
    args = parser.parse_args()
    kinds = tuple(args.kinds.split(","))
    if not set(kinds) <= set(KINDS):
        parser.error(f"--kinds: each of {', '.join(KINDS)}")
    seed = args.seed if args.seed is not None else random.randrange(2**32)
    print(f"chaos: seed {seed}", flush=True)
    root = Path(tempfile.mkdtemp(prefix="truco-chaos-"))
    report = asyncio.run(run(args.faults, args.budget, seed, root, kinds))
    print("\n".join(report.lines()))
    if report.ok and not args.keep:
        shutil.rmtree(root, ignore_errors=True)
        return 0
    print(f"the processes' logs and the NATS nodes' files are in {root}")
    return 1


if __name__ == "__main__":
    sys.exit(main())
