"""Faults injected into playing servers, and the history checked (issue 33; after Jepsen).

The systems (tests/chaos/systems.py): a cluster of three NATS nodes (JetStream, ``--replicas
3``, every write synced before it is acknowledged) and three ``truco-ssh serve --nats``
processes; or one ``truco-ssh serve`` on SQLite. Every store (each NATS node's, the SQLite
data directory) is on a filesystem that loses what was not synced when its power is cut
(tests/chaos/lazyfs.py). TABLES tables of two players, the players programs on the ``truco``
subsystem spread over the processes, playing match after match (resending a move after 3 s of
silence, as a person presses again); and TERMINALS terminal sessions (a PTY and the TUI, the
screen read with pyte), one per process, each watching a table.

The faults, one at a time at random moments: a NATS node killed with SIGKILL (and started
again on its store 1-3 s later), stopped with SIGSTOP for 2-6 s, or its power cut (its
unsynced writes lost), the node leading the lease bucket's stream half of the time; the power
of every NATS node cut at once; a machine partitioned from the others; a serve process killed
with SIGKILL and started again on its port 1-3 s later, as its supervisor would (its players,
who sign with their own keys, connect again to any process, as a person does, and are given
their seats back), or stopped with SIGSTOP for 2-5 s; in SQLite mode, the machine's power cut
(the process and the disk's unsynced writes). After each, the harness waits until every table
has played again (the seconds from the fault's start are the recovery time; in the cluster,
also the part of it after JetStream's streams had leaders again, which is this project's:
before it, nats-server's Raft waits 4-9 s for a lost leader) and the fault has ended (a
restart, a resume, a heal), then 0.2-1 s, then injects the next; before a fault of the store
(a NATS node, a machine) it also waits until every replica is current, so that no fault
lands on another's catching up.

In the cluster each NATS node and serve process pair is a machine of its own, a Linux network
namespace (tests/chaos/machines.py): a partition cuts one machine off from the other two,
silently (packets dropped, no error), for 3-8 s, while its players still reach it.

The checks, on the whole history: every table update any player saw is in the table's log
afterwards (no acknowledged event lost: the highest sequence seen is logged, and the log
replays), and after the SQLite machine's power cut, on the disk as the cut left it; what
every player was shown is what the log replays to at that point (tests/chaos/replay_check.py:
this also catches a lost event whose number the next move used again, and a table written by
two owners at once, whose players would be shown two different tables); no player saw a
table go backwards (an older update after a newer one); no session ended on a process that
was not killed, unless every NATS node lost its power or its machine was partitioned (those
are counted apart), terminals included; every watching terminal drew the table again after
every fault; no serve process exited or stopped itself unless the harness killed it; every
table played again after every fault (and how fast).

Run: ``python -m tests.chaos.harness --faults 100 --budget 600`` (``make chaos``: both
systems, the faults and the time shared between them).
"""
from __future__ import annotations

import argparse
import asyncio
import random
import shutil
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Awaitable, Callable, TypeVar

import asyncssh

import protocol as p
from protocol.client import Client, Closed
from tests.chaos.replay_check import Seen, differences
from tests.chaos.systems import SYSTEMS, Faults
from tests.e2e import programs
from tests.e2e.harness import ScreenClient
from tests.e2e.helpers import in_lobby_as

T = TypeVar("T")
TABLES = 3
RECOVERY_LIMIT = 60.0  # seconds a table may take to play again before the run counts it as stuck
# Seconds after a power cut of every NATS node within which a new session may still be ended
# by it: a process whose own lease ran out while no node answered, and was then claimed by
# another or deleted as it was taken back, ends its sessions once the bus is back
# (docs/CLUSTER.md), those made meanwhile too.
OUTAGE_AFTERMATH = 20.0
FINAL_WAIT_MIN = 10.0  # seconds the players have at least, at the end, to hear from their tables
RESEND_AFTER = 3.0
TERMINALS = 3  # terminal sessions watching tables, spread over the processes
TERMINAL_SIZE = (100, 30)
REDRAW_LIMIT = 10.0  # seconds a watching terminal may take to draw the table again after a fault
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
    outages: list[float] = field(default_factory=list)  # when every NATS node lost its power
    partitioned: list[tuple[int, float]] = field(default_factory=list)  # (port, when) a machine was cut off
    outage_drops: int = 0  # sessions on live processes ended by such an outage or partition (made again)
    trace: list[str] = field(default_factory=list)  # what each player heard and did, for a failed run
    views: dict[str, Seen] = field(default_factory=dict)  # table -> (seq, seat) -> the view a player was sent
    conflicts: list[str] = field(default_factory=list)  # one (table, seq, seat) shown two different ways

    def outage_since(self, port: int, since: float) -> bool:
        """Every NATS node lost its power, or the machine of ``port`` was cut off, after ``since``
        (a power cut of every node also ends the sessions made while its processes could not
        renew their own leases: those made within ``OUTAGE_AFTERMATH`` after it)."""
        return any(at > since - OUTAGE_AFTERMATH for at in self.outages) or any(
            cut == port and at > since for cut, at in self.partitioned)

    def saw(self, player: str, update: p.TableUpdate) -> None:
        table = update.table_id
        if update.seat is not None:
            views = self.views.setdefault(table, {})
            shown = views.setdefault((update.seq, update.seat), update.view)
            if shown != update.view:
                self.conflicts.append(f"{table} seq {update.seq}: seat {update.seat} ({player}) was shown "
                                      "two different tables")
        before = self.last.get((player, table), -1)
        if update.seq < before and not update.history:
            self.backwards.append(f"{player} at {table}: {update.seq} after {before}")
        self.last[(player, table)] = max(before, update.seq)
        if update.seq > self.seen.get(table, -1):
            self.seen[table] = update.seq
            self.progress[table] = time.monotonic()


@dataclass(frozen=True)
class Fault:
    """One fault: what it was, the seconds until every table played again, and of those the
    seconds after the store answered again (``store``: None if no fault stops it): the part of
    the recovery this project's code takes, the rest being JetStream's leader elections."""

    what: str
    seconds: float
    after_store: float

    @property
    def kind(self) -> str:
        return " ".join(self.what.split()[1:3])  # "10:01:02 kill node 1" -> "kill node"


@dataclass
class Report:
    mode: str = "cluster"
    power: bool = True  # the stores on power-cut filesystems
    faults: list[Fault] = field(default_factory=list)
    stuck: list[str] = field(default_factory=list)
    lost: list[str] = field(default_factory=list)
    backwards: list[str] = field(default_factory=list)
    ended: list[str] = field(default_factory=list)
    unreplayed: list[str] = field(default_factory=list)  # a player shown what the log does not replay to
    exited: list[str] = field(default_factory=list)
    stopped_itself: list[str] = field(default_factory=list)
    seconds: float = 0.0
    reconnects: int = 0
    outage_drops: int = 0
    views: int = 0  # (table, seq, seat) views checked against the replay
    terminals: int = 0  # terminal sessions watching tables
    stale: list[str] = field(default_factory=list)  # a terminal not redrawn after the tables played again

    @property
    def ok(self) -> bool:
        return not (self.stuck or self.lost or self.backwards or self.ended or self.exited or self.stopped_itself
                    or self.unreplayed or self.stale)

    def lines(self) -> list[str]:
        recoveries = [f.seconds for f in self.faults]
        kinds: dict[str, int] = {}
        for fault in self.faults:
            kinds[fault.kind] = kinds.get(fault.kind, 0) + 1
        disk = "a power-cut filesystem" if self.power else "the disk"
        system = (f"3 machines (network namespaces), each a NATS node (its store on {disk}) "
                  "and a serve process" if self.mode == "cluster"
                  else f"1 serve process on SQLite (data on {disk})")
        out = [f"chaos ({self.mode}): {len(self.faults)} faults in {self.seconds:.0f} s "
               f"({', '.join(f'{k} {n}' for k, n in sorted(kinds.items()))}); {system}, {TABLES} tables",
               f"sessions made again after their process was killed: {self.reconnects - self.outage_drops}",
               *([f"sessions on live processes ended by a power cut of every NATS node or by their machine's "
                  f"partition (made again): {self.outage_drops}"] if self.mode == "cluster" else []),
               f"acknowledged events lost: {len(self.lost)}",
               f"tables seen going backwards: {len(self.backwards)}",
               f"views shown that the log does not replay to: {len(self.unreplayed)} "
               f"(of {self.views} checked)",
               f"sessions ended on live processes: {len(self.ended)} (programs and {self.terminals} terminals)",
               f"terminals that drew nothing after the tables played again: {len(self.stale)}",
               f"serve processes that exited or stopped themselves: {len(self.exited) + len(self.stopped_itself)}",
               f"tables not playing again within {RECOVERY_LIMIT:.0f} s: {len(self.stuck)}"]
        if recoveries:
            ours = [f.after_store for f in self.faults]
            out.append(f"seconds until every table played again: median {statistics.median(recoveries):.1f}, "
                       f"max {max(recoveries):.1f}")
            if self.mode == "cluster":
                out.append(f"  of which after the store answered again (its streams led, a write taken): "
                           f"median {statistics.median(ours):.1f}, max {max(ours):.1f}")
            by_kind: dict[str, list[float]] = {}
            for fault in self.faults:
                by_kind.setdefault(fault.kind, []).append(fault.seconds)
            out.append("  by fault: " + "; ".join(f"{kind} {statistics.median(v):.1f}/{max(v):.1f}"
                                                 for kind, v in sorted(by_kind.items())) + " (median/max)")
        slowest = sorted(self.faults, key=lambda f: -f.seconds)[:3]
        out += [f"  slowest: {f.what}: {f.seconds:.1f} s ({f.after_store:.1f} s after the store answered)"
                for f in slowest if f.seconds > 10]
        for name in ("lost", "backwards", "unreplayed", "ended", "exited", "stopped_itself", "stuck", "stale"):
            out += [f"  {name}: {item}" for item in getattr(self, name)[:10]]
        return out


@dataclass
class Player:
    name: str
    key: asyncssh.SSHKey
    table: str
    seed: int
    client: Client
    port: int
    since: float = field(default_factory=time.monotonic)  # when this session was made
    hosts: dict[int, str] = field(default_factory=dict)  # port -> the machine's address (else loopback)


@dataclass
class Watcher:
    """A terminal session (a PTY, the TUI, its screen read with pyte) watching a table."""

    name: str
    key: asyncssh.SSHKey
    client: ScreenClient
    port: int
    since: float = field(default_factory=time.monotonic)
    hosts: dict[int, str] = field(default_factory=dict)


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
                await _rematch(player, update, heard, history, done)
        except (Closed, ConnectionError, asyncssh.Error) as exc:
            outage = history.outage_since(player.port, player.since)
            if history.killed.get(player.port, 0) < player.since and not outage:
                history.ended.append(f"{player.name} on port {player.port}: {exc}")
                return
            await _again(player, ports, done)
            history.reconnects += 1
            history.outage_drops += outage


async def _open_terminal(name: str, key: asyncssh.SSHKey, host: str, port: int,
                         patience: float = 15.0) -> ScreenClient:
    """A terminal session in the lobby, watching the table played first in its list; once
    connected, a person waits ``patience`` seconds for the lobby and the table (a lobby host
    being replaced shows "Reconnecting to the lobby" meanwhile)."""
    client = ScreenClient(TERMINAL_SIZE[0], TERMINAL_SIZE[1])
    step = "connect"
    try:
        await asyncio.wait_for(client.connect(port, name, client_keys=[key], host=host), 10)
        step = "lobby"
        await client.wait_for(in_lobby_as(name), patience)
        step = "a table playing"
        await client.wait_for("playing", patience)
        client.send("w")
        step = "watching"
        await client.wait_for("watching", patience)
    except BaseException as exc:
        # What the person saw, for the run's report (a terminal that gives up says why)
        shown = " | ".join(line.strip() for line in client.text().splitlines() if line.strip())
        exc.add_note(f"{time.strftime('%H:%M:%S')} port {port}: waited for {step}; the screen: {shown[:600]}")
        await client.close()
        raise
    return client


async def _watcher(watcher: Watcher, ports: list[int], history: History, done: asyncio.Event) -> None:
    """A person watching a table from a terminal: a session that ends because its process
    was killed (or its machine cut off) connects again to the next process and watches again;
    any other that ends is noted."""
    while not done.is_set():
        await watcher.client.closed.wait()
        if done.is_set():
            return
        if history.killed.get(watcher.port, 0) < watcher.since and not history.outage_since(watcher.port,
                                                                                              watcher.since):
            history.ended.append(f"terminal {watcher.name} on port {watcher.port}")
            return
        outage = history.outage_since(watcher.port, watcher.since)
        await watcher.client.close()

        async def watch(host: str, port: int) -> ScreenClient:
            return await _open_terminal(watcher.name, watcher.key, host, port, patience=RECOVERY_LIMIT / 2)
        try:
            made = await _in_turn(watcher.port, watcher.hosts, ports, done, watch)
        except (OSError, asyncssh.Error, TimeoutError, Closed, AssertionError) as exc:
            notes = getattr(exc, "__notes__", ())
            last = f" (its last try {notes[-1].partition(';')[0]})" if notes else ""
            history.ended.append(f"terminal {watcher.name} could not watch again within {RECOVERY_LIMIT:.0f} s{last}")
            history.trace.extend(f"terminal {watcher.name} gave up: {note}" for note in notes)
            return
        if made is None:
            return
        watcher.client, watcher.port, watcher.since = made
        history.reconnects += 1
        history.outage_drops += outage


async def _terminals_drawn(watchers: list[Watcher], report: Report, history: History, what: str) -> None:
    """Every terminal still connected draws the table again after the tables played again
    (a session that stays up but is no longer sent anything is a fault too)."""
    mark = time.perf_counter()
    for watcher in watchers:
        client = watcher.client
        deadline = time.monotonic() + REDRAW_LIMIT
        while client.changed_at <= mark and not client.closed.is_set() and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
        if client.changed_at <= mark and not client.closed.is_set():
            report.stale.append(f"terminal {watcher.name} on port {watcher.port} drew nothing for "
                                f"{REDRAW_LIMIT:.0f} s after the tables played again after {what}")
            shown = " | ".join(line.strip() for line in client.text().splitlines() if line.strip())
            history.trace.append(f"{time.strftime('%H:%M:%S')} stale terminal {watcher.name} shows: {shown[:600]}")


async def _rematch(player: Player, over: p.TableUpdate, heard: Callable[[p.TableUpdate], bool],
                   history: History, done: asyncio.Event) -> None:
    """Ask for the rematch until the next match starts, again while the table does not show
    this seat's vote (as a person presses the key again): a vote can be refused, e.g. by the
    command allowance after a burst of resent moves, or lost with the table when it moves to
    another process (its new owner shows the votes without this one's)."""
    seat = over.seat
    while not done.is_set():
        await player.client.send(p.Rematch(table_id=player.table))
        history.trace.append(f"{time.strftime('%H:%M:%S')} {player.name} sends Rematch")
        try:
            # (the new match's first update is left for ``play``: it may be this seat's turn)
            update = await programs.update(player.client, lambda u: heard(u) or not u.view.match_over
                                           or seat in u.rematch_votes, timeout=RESEND_AFTER, peek=True)
        except TimeoutError:
            continue
        if not update.view.match_over:
            return
        await player.client.receive()  # (the update peeked at) voted: until the match starts,
        update = await programs.update(  # or the table no longer shows the vote
            player.client, lambda u: heard(u) or not u.view.match_over or seat not in u.rematch_votes,
            timeout=3600, peek=True)
        if not update.view.match_over:
            return
        await player.client.receive()


async def _again(player: Player, ports: list[int], done: asyncio.Event) -> None:
    """Connect again, as a person whose server went away does: to the processes in turn."""
    async def connect(host: str, port: int) -> Client:
        return await Client.connect(host, port, player.name, client_keys=[player.key], timeout=5)
    made = await _in_turn(player.port, player.hosts, ports, done, connect)
    if made is not None:
        player.client, player.port, player.since = made


async def _in_turn(port: int, hosts: dict[int, str], ports: list[int], done: asyncio.Event,
                   connect: Callable[[str, int], Awaitable[T]]) -> tuple[T, int, float] | None:
    """``connect`` to the processes after ``port`` in turn until one works (what it made, its
    port, and when that attempt began: the session may be ended by a fault from then on, before
    ``connect`` returns); None: the run ended meanwhile. Past ``RECOVERY_LIMIT`` the last
    failure is raised."""
    deadline = time.monotonic() + RECOVERY_LIMIT
    turn = ports.index(port)
    while not done.is_set():
        turn = (turn + 1) % len(ports)
        began = time.monotonic()
        try:
            return await connect(hosts.get(ports[turn], "127.0.0.1"), ports[turn]), ports[turn], began
        except (OSError, asyncssh.Error, TimeoutError, Closed, AssertionError):
            if time.monotonic() > deadline:
                raise
            await asyncio.sleep(0.05)
    return None


async def run(faults: int, budget: float, seed: int, root: Path, kinds: tuple[str, ...] | None = None,
              mode: str = "cluster", reserve: float = RECOVERY_LIMIT) -> Report:
    """``mode``: the system (``SYSTEMS``); ``kinds``: the faults to inject (of its ``weights``,
    all of them by default), each as often as its weight says. No fault starts later than
    ``reserve`` seconds before the ``budget`` ends: by default the time a stuck table has to
    play again, so that the run ends within its budget (a system run before another needs
    none: the next one's budget is what is left)."""
    rng = random.Random(seed)
    kinds = kinds or tuple(SYSTEMS[mode].weights)
    system = SYSTEMS[mode](root, power=any(kind.startswith("power") for kind in kinds))
    report = Report(mode=mode, power=system.power)
    began = time.monotonic()
    seated: list[Player] = []
    history = History(killed=system.killed_at, outages=system.outages, partitioned=system.partitioned)
    done = asyncio.Event()
    players: list[asyncio.Task[None]] = []
    watchers: list[Watcher] = []
    watching: list[asyncio.Task[None]] = []  # (they end when their session does: cancelled at the end)
    try:
        await system.start()
        ports = system.ports
        tables: list[str] = []
        for t in range(TABLES):  # each table's two players on two different processes (if there are)
            pair = []
            for name, n in ((f"p{t}a", t % len(ports)), (f"p{t}b", (t + 1) % len(ports))):
                key = asyncssh.generate_private_key("ssh-ed25519")
                client = await Client.connect(system.hosts.get(ports[n], "127.0.0.1"), ports[n], name,
                                              client_keys=[key])
                pair.append(Player(name, key, "", 2 * t + len(pair), client, ports[n], hosts=system.hosts))
            table = await programs.table_of(pair[0].client, 2, options=OPTIONS)
            await pair[1].client.send(p.JoinTable(table_id=table))
            tables.append(table)
            for player in pair:
                player.table = table
                seated.append(player)
                players.append(asyncio.create_task(_player(player, ports, history, done)))
        await _until_all_played(history, tables, time.monotonic() - 1, report, "start")
        for n in range(TERMINALS):
            key, port = asyncssh.generate_private_key("ssh-ed25519"), ports[n % len(ports)]
            host = system.hosts.get(port, "127.0.0.1")
            watchers.append(Watcher(f"w{n}", key, await _open_terminal(f"w{n}", key, host, port), port,
                                    hosts=system.hosts))
            watching.append(asyncio.create_task(_watcher(watchers[-1], ports, history, done)))
        report.terminals = len(watchers)
        weights = [system.weights[k] if k in kinds else 0 for k in system.weights]
        for _ in range(faults):
            if time.monotonic() - began > budget - reserve:
                break
            kind = rng.choices(list(system.weights), weights=weights)[0]
            if system.store_fault(kind) and not await _caught_up(system, report):
                break
            await asyncio.sleep(rng.uniform(0.2, 1.0))  # a random moment in play
            started = time.monotonic()
            what, ending = await system.inject(kind, rng, lambda: dict(history.seen))
            what = f"{time.strftime('%H:%M:%S')} {what}"
            history.trace.append(f"{what} (fault)")
            recovered = await _until_all_played(history, tables, started, report, what)
            after_store = recovered - (system.store_back_since(started) - started)
            try:
                await ending
            except Exception as exc:  # e.g. a server that cannot start on what a power cut left
                report.exited.append(f"{what}: could not be ended (a restart, a resume): {exc!r}")
                break
            report.faults.append(Fault(what, recovered, max(0.0, after_store)))
            history.trace.append(f"{time.strftime('%H:%M:%S')} every table played again {recovered:.1f} s after it")
            await _terminals_drawn(watchers, report, history, what)
        await _caught_up(system, report)
        done.set()  # each player stops at its next update; one that gets none is at a stuck table
        # (within what is left of the budget, a few seconds at least: the run stays bounded)
        patience = min(RECOVERY_LIMIT, max(FINAL_WAIT_MIN, budget - (time.monotonic() - began)))
        _, waiting = await asyncio.wait(players, timeout=patience)
        if waiting:
            report.stuck.append(f"{len(waiting)} players heard nothing for {patience:.0f} s at the end")
        try:
            logs = await system.logs()
        except Exception as exc:  # the check cannot be made: a failure of the run, said as such
            report.lost.append(f"the tables' logs could not be read: {exc!r}")
            logs = {}
        for table in tables:
            last = logs[table].last if table in logs else -1
            if history.seen.get(table, -1) > last:
                report.lost.append(f"{table}: players saw event {history.seen[table]}, the log ends at {last}")
            if table in logs:
                report.unreplayed += await asyncio.to_thread(differences, table, logs[table],
                                                             history.views.get(table, {}))
        report.unreplayed += history.conflicts
        report.views = sum(len(v) for v in history.views.values())
        report.lost += system.cut_losses
        report.backwards, report.ended, report.reconnects = history.backwards, history.ended, history.reconnects
        report.outage_drops = history.outage_drops
        for n, proc in enumerate(system.procs):
            if proc.process.returncode is not None:
                report.exited.append(f"process {n} exited with {proc.process.returncode}")
            # (a session that ended is the players' check: a front end that hangs up its
            # sessions after a power cut of every node is counted there)
            report.stopped_itself += [f"process {n}: {line.strip()}" for line in proc.lines if "it stops" in line]
    finally:
        done.set()
        for task in players + watching:
            task.cancel()
        system.keep_logs()
        (root / "players.log").write_text("\n".join(history.trace) + "\n")
        await programs.close_all([player.client for player in seated])
        await asyncio.gather(*(watcher.client.close() for watcher in watchers))
        await system.stop()
        report.seconds = time.monotonic() - began
    return report


async def _caught_up(system: Faults, report: Report) -> bool:
    """Until the store is whole (every replica current), before a fault of the store and at
    the end; False: it never came back, and the run ends here, said as such."""
    try:
        await system.caught_up()
    except AssertionError as exc:
        report.stuck.append(f"the store did not catch up: {exc}")
        return False
    return True


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


# Of the faults and the time, when both systems run: SQLite's first, with half the faults in
# at most 34% of the time (a fault there costs about 4 s, in the cluster about 7 s: its streams
# elect leaders); the cluster gets what is left of both.
SHARES = {"sqlite": (0.5, 0.34), "cluster": (0.5, 0.66)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--faults", type=int, default=100, help="in all (shared between the systems)")
    parser.add_argument("--budget", type=float, default=600.0, help="seconds for the whole run")
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--mode", choices=["both", *SYSTEMS], default="both")
    parser.add_argument("--kinds", default="", help="faults to inject (default: all the system has), of "
                        + "; ".join(f"{name}: {','.join(system.weights)}" for name, system in SYSTEMS.items()))
    parser.add_argument("--keep", action="store_true", help="keep the logs and data even when every check holds")
    args = parser.parse_args()
    modes = list(SYSTEMS) if args.mode == "both" else [args.mode]
    kinds = tuple(args.kinds.split(",")) if args.kinds else None
    if kinds and not all(set(kinds) & set(SYSTEMS[mode].weights) for mode in modes):
        parser.error("--kinds: at least one fault of each system run")
    seed = args.seed if args.seed is not None else random.randrange(2**32)
    print(f"chaos: seed {seed}", flush=True)
    failed = False
    began, faults_done = time.monotonic(), 0
    for mode in modes:
        last = mode == modes[-1]  # it gets the faults and the time the others left
        fault_share, time_share = SHARES[mode] if not last else (1.0, 1.0)
        faults = args.faults - faults_done if last else round(args.faults * fault_share)
        budget = args.budget - (time.monotonic() - began) if last else args.budget * time_share
        root = Path(tempfile.mkdtemp(prefix=f"truco-chaos-{mode}-"))
        mine = tuple(k for k in kinds if k in SYSTEMS[mode].weights) if kinds else None
        report = asyncio.run(run(faults, budget, seed, root, mine, mode, RECOVERY_LIMIT if last else 0.0))
        faults_done += len(report.faults)
        print("\n".join(report.lines()), flush=True)
        if report.ok and not args.keep:
            shutil.rmtree(root, ignore_errors=True)
            continue
        failed = failed or not report.ok
        print(f"the processes' logs and the stores' files are in {root}", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
