"""The systems the chaos harness plays on, and the faults each can suffer (issue 33).

``Cluster``: three machines (network namespaces on a bridge, tests/chaos/machines.py), each
running a nats-server (JetStream, ``--replicas 3``, every write synced before it is
acknowledged, its store on its own power-cut filesystem; routes pinged every second, so that a
silent partition is noticed) and a ``truco-ssh serve --nats`` process that uses its own node
first.

``Single``: one ``truco-ssh serve`` process, its SQLite store in a data directory on a
power-cut filesystem.

A fault returns what it was and a task that ends it (a restart, a SIGCONT). The power cut of
the SQLite machine also checks, at the moment the power is back and before the server starts
again, that every event a player saw before the cut is on the disk (``cut_losses``); in the
cluster, where the serve processes write again as soon as the nodes are back, an event lost
and its number used again is caught by the replay check at the end (tests/chaos/replay_check.py).
"""
from __future__ import annotations

import asyncio
import contextlib
import os
import random
import signal
import sqlite3
import time
from abc import ABC, abstractmethod
from pathlib import Path
from typing import Awaitable, Callable

import nats
from nats.aio.client import Client as NatsClient

from nats.js.api import StorageType

from server.cluster.bus import EVENTS_STREAM, LEASE_BUCKET, retrying
from server.cluster.natsd import NatsServer
from tests.chaos.lazyfs import LazyMount
from tests.chaos.machines import Machines
from tests.chaos.replay_check import Log, jetstream_logs, sqlite_logs
from tests.cluster.procs import Proc, start, start_nats_cluster

CAUGHT_UP_LIMIT = 60.0
# A serve process started again waits for JetStream before it listens: after a partition or a
# node's fault the NATS cluster may still be electing (once, in a loaded make test, the 20 s
# the other tests allow ran out while it said "opening the cluster's buckets waits for
# JetStream"); the harness gives it as long as a table is given to play again.
RESTART_WITHIN = 60.0
# The harness's own stream, written to see when JetStream takes writes again (``_watch_store``)
PROBE_STREAM, PROBE_SUBJECT = "CHAOS_PROBE", "chaos.probe"
# Every player and terminal of the harness connects from one address (and again after each
# kill): the server's allowances for one address, meant for a stranger's flood, are raised
ONE_ADDRESS = ("--max-connections-per-ip", "64", "--connections-per-minute-per-ip", "6000")
Ending = "asyncio.Future[None]"
Logged = dict[str, int]  # table -> the last sequence number in its log


def _later(seconds: float, then: Callable[[], Awaitable[None]]) -> "asyncio.Future[None]":
    async def run() -> None:
        await asyncio.sleep(seconds)  # the fault lasts this long: the fault itself, not a wait
        await then()
    return asyncio.ensure_future(run())


async def _continue(pid: int) -> None:
    os.kill(pid, signal.SIGCONT)


async def _connect(url: str, timeout: float) -> NatsClient:
    """A connection to one NATS node that does not reconnect: a look that fails closes it,
    and the next look connects again (to whichever node answers then)."""
    return await nats.connect(url, connect_timeout=timeout, max_reconnect_attempts=0, allow_reconnect=False)


async def _closed(nc: NatsClient) -> None:
    with contextlib.suppress(Exception):
        await nc.close()


class Faults(ABC):
    """What every system has: serve processes, the players' ports, the cuts' findings. Built
    with ``power`` False (no power cut among the faults to come), the stores are on the disk
    itself: the power-cut filesystem costs CPU a short run in ``make test`` can spare."""

    name = ""
    weights: dict[str, float] = {}

    def __init__(self, root: Path) -> None:
        self.root = root
        self.procs: list[Proc] = []
        self.killed: list[Proc] = []  # processes killed by a fault (their logs are kept)
        self.killed_at: dict[int, float] = {}  # port -> when its process was last killed
        self.cut_losses: list[str] = []  # events players saw before a power cut and not on the store after it
        self.outages: list[float] = []  # when every NATS node lost its power (sessions may end)
        self.partitioned: list[tuple[int, float]] = []  # (port, when) its machine was cut off
        self.ports: list[int] = []
        self.hosts: dict[int, str] = {}  # port -> the address of its process's machine (else loopback)

    @abstractmethod
    async def start_process(self, n: int, port: int | None = None) -> Proc:
        """Serve process ``n``, once it listens (on ``port``, when it is started again)."""

    async def inject(self, kind: str, rng: random.Random, seen: Callable[[], dict[str, int]]) -> tuple[str, Ending]:
        """The fault ``kind`` (of ``weights``); ``seen``: the highest sequence players saw, per table."""
        if kind == "kill-process":
            return await self.kill_process(rng)
        if kind == "pause-process":
            return await self.pause_process(rng)
        return await self._inject(kind, rng, seen)

    @abstractmethod
    async def _inject(self, kind: str, rng: random.Random, seen: Callable[[], dict[str, int]]
                      ) -> tuple[str, Ending]:
        """A fault only this system has."""

    async def kill_process(self, rng: random.Random) -> tuple[str, Ending]:
        """A serve process killed with SIGKILL, and started again on its port 1-3 s later, as
        its supervisor would."""
        n = rng.randrange(len(self.procs))
        proc = self.procs[n]
        self.killed_at[proc.port] = time.monotonic()
        await proc.stop(signal.SIGKILL)
        self.killed.append(proc)

        async def again() -> None:
            self.procs[n] = await self.start_process(n, proc.port)
        return f"kill process {n}", _later(rng.uniform(1.0, 3.0), again)

    async def pause_process(self, rng: random.Random) -> tuple[str, Ending]:
        """A serve process stopped with SIGSTOP for 2-5 s (a stall: its sessions must survive it)."""
        n = rng.randrange(len(self.procs))
        pid, pause = self.procs[n].process.pid, rng.uniform(2.0, 5.0)
        os.kill(pid, signal.SIGSTOP)
        return f"pause process {n} {pause:.1f} s", _later(pause, lambda: _continue(pid))

    def check_cut(self, what: str, seen: dict[str, int], logged: Logged) -> None:
        self.cut_losses += [f"{what}: {table}: players saw event {seq}, the store ends at {logged.get(table, -1)}"
                            for table, seq in seen.items() if seq > logged.get(table, -1)]

    async def caught_up(self) -> None:
        """Until the store is whole again after a fault (the cluster: every replica current)."""

    def store_fault(self, kind: str) -> bool:
        """A fault of the store (a NATS node, a machine): the store must be whole before it,
        or it would be a second fault on top of the first one's catching up."""
        return kind not in ("kill-process", "pause-process")

    def store_back_since(self, moment: float) -> float:
        """When the store last came back (the cluster: the lease and event streams had leaders
        again) after ``moment``, or ``moment`` if it did not go away (SQLite: it is in the
        process, which a fault stops as a whole)."""
        return moment

    @abstractmethod
    async def logs(self) -> dict[str, Log]:
        """Every table's log as the store holds it now."""

    async def logged(self) -> Logged:
        return {table: log.last for table, log in (await self.logs()).items()}

    async def stop(self) -> None:
        await asyncio.gather(*(proc.stop() for proc in self.procs))

    def keep_logs(self) -> None:
        for n, proc in enumerate(self.procs):  # for the operator to read after a failed run
            (self.root / f"process-{n}.log").write_text("".join(proc.lines))
        for n, proc in enumerate(self.killed):
            (self.root / f"killed-{n}-port-{proc.port}.log").write_text("".join(proc.lines))


class Single(Faults):
    """One serve process on SQLite, its data directory on a power-cut filesystem."""

    name = "sqlite"
    weights = {"kill-process": 0.35, "pause-process": 0.25, "power-cut": 0.4}

    def __init__(self, root: Path, power: bool = True) -> None:
        super().__init__(root)
        self.disk = LazyMount(root / "disk", root / "data") if power else None
        self.power = power

    async def start(self) -> None:
        if self.disk is not None:
            await self.disk.start()
        self.procs.append(await self.start_process(0))
        self.ports = [self.procs[0].port]

    async def start_process(self, n: int, port: int | None = None) -> Proc:
        return await start(self.root, None, *ONE_ADDRESS, port=port, within=RESTART_WITHIN)

    async def _inject(self, kind: str, rng: random.Random, seen: Callable[[], dict[str, int]]
                      ) -> tuple[str, Ending]:
        assert kind == "power-cut" and self.disk is not None
        proc = self.procs[0]
        self.killed_at[proc.port] = time.monotonic()
        proc.process.kill()  # the machine loses its power: the program and the disk's cache at once
        await self.disk.cut()
        await proc.stop()
        self.killed.append(proc)
        saw = seen()  # nothing more can be seen: the server is gone
        await self.disk.start()
        try:
            self.check_cut("power cut", saw, await self.logged())
        except sqlite3.DatabaseError as exc:  # (what a store that did not sync can come back as)
            self.cut_losses.append(f"power cut: the store cannot be read after it: {exc}")

        async def again() -> None:
            self.procs[0] = await self.start_process(0, proc.port)
        return "power cut", _later(rng.uniform(1.0, 3.0), again)

    async def logs(self) -> dict[str, Log]:
        return await asyncio.to_thread(sqlite_logs, self.root / "data" / "truco.sqlite3")

    async def stop(self) -> None:
        await super().stop()
        if self.disk is not None:
            await self.disk.cut()


class Cluster(Faults):
    """Three NATS nodes (each store on a power-cut filesystem) and three serve processes."""

    name = "cluster"
    weights = {"kill-node": 0.15, "pause-node": 0.15, "power-node": 0.1, "power-all": 0.05, "partition": 0.15,
               "kill-process": 0.25, "pause-process": 0.15}

    def __init__(self, root: Path, power: bool = True) -> None:
        super().__init__(root)
        self.machines = Machines(3)  # machine i: NATS node i and serve process i
        # (the JetStream store on the power-cut filesystem; the node's log beside it, kept)
        self.disks = [LazyMount(root / f"disk{i}", root / f"js{i}" / "jetstream") for i in range(3)] if power else []
        self.power = power
        self.servers: list[NatsServer] = []
        self.silent: set[int] = set()  # nodes that cannot answer now: killed, paused, cut off
        self._led_again = 0.0  # when the streams last had leaders again after a time without
        self._watching: asyncio.Task[None] | None = None

    async def start(self) -> None:
        await self.machines.create()
        await asyncio.gather(*(disk.start() for disk in self.disks))
        self.servers = await start_nats_cluster(self.root, sync_always=True, machines=[
            (self.machines.address(i), self.machines.prefix(i)) for i in range(3)])
        for n in range(3):
            self.procs.append(await self.start_process(n))
        self.ports = [proc.port for proc in self.procs]
        self._watching = asyncio.ensure_future(self._watch_store())

    async def start_process(self, n: int, port: int | None = None) -> Proc:
        urls = [s.url for s in self.servers]
        proc = await start(self.root, ",".join(urls[n:] + urls[:n]), "--replicas", "3", "--lease-ttl", "6", *ONE_ADDRESS,
                           port=port, host=self.machines.address(n), prefix=self.machines.prefix(n),
                           within=RESTART_WITHIN)
        self.hosts[proc.port] = self.machines.address(n)
        return proc

    async def _inject(self, kind: str, rng: random.Random, seen: Callable[[], dict[str, int]]
                      ) -> tuple[str, Ending]:
        if kind == "power-all":
            return await self._power_all(rng)
        if kind == "partition":
            return await self._partition(rng)
        target = await self._leader(f"KV_{LEASE_BUCKET}") if rng.random() < 0.5 else None
        target = target or rng.choice(self.servers)
        assert target.process is not None
        n = self.servers.index(target)
        name = f"node {n}"  # (the report counts "kill node", "pause node", "power node")
        self.silent.add(n)
        if kind == "pause-node":
            pid, pause = target.process.pid, rng.uniform(2.0, 6.0)
            os.kill(pid, signal.SIGSTOP)

            async def resume() -> None:
                await _continue(pid)
                self.silent.discard(n)
            return f"pause {name} {pause:.1f} s", _later(pause, resume)
        target.process.kill()
        if kind == "power-node":
            await self.disks[n].cut()
        await target.process.wait()
        target.process = None

        async def again() -> None:
            if kind == "power-node":
                await self.disks[n].start()
            await target.start()
            self.silent.discard(n)
        return f"{'kill' if kind == 'kill-node' else 'power'} {name}", _later(rng.uniform(1.0, 3.0), again)

    async def _power_all(self, rng: random.Random) -> tuple[str, Ending]:
        """The three nodes lose their power at once (Jepsen's coordinated power failure) and
        come back 1-3 s later. (An event lost and its number used again by the next move is
        caught by the replay check at the end.)"""
        for server in self.servers:
            assert server.process is not None
            server.process.kill()
        self.silent.update(range(3))
        self.outages.append(time.monotonic())
        await asyncio.gather(*(disk.cut() for disk in self.disks))
        for server in self.servers:
            assert server.process is not None
            await server.process.wait()
            server.process = None

        async def again() -> None:
            await asyncio.gather(*(disk.start() for disk in self.disks))
            await asyncio.gather(*(server.start() for server in self.servers))
            self.silent.clear()
        return "power every node", _later(rng.uniform(1.0, 3.0), again)

    async def _partition(self, rng: random.Random) -> tuple[str, Ending]:
        """A machine (its NATS node and serve process) cut off from the other two for 3-8 s,
        silently, while its players still reach it; the machine of the node leading the
        lease bucket's stream half of the time."""
        leader = await self._leader(f"KV_{LEASE_BUCKET}") if rng.random() < 0.5 else None
        n = self.servers.index(leader) if leader is not None else rng.randrange(3)
        seconds = rng.uniform(3.0, 8.0)
        self.partitioned.append((self.procs[n].port, time.monotonic()))
        await self.machines.cut(n)
        self.silent.add(n)

        async def heal() -> None:
            await self.machines.heal()
            self.silent.discard(n)
        return f"partition machine {n} {seconds:.1f} s", _later(seconds, heal)

    async def _leader(self, stream: str) -> NatsServer | None:
        for server in [s for s in self.servers if s.process is not None and s.process.returncode is None]:
            try:
                nc = await nats.connect(server.url, connect_timeout=2, max_reconnect_attempts=0)
            except Exception:
                continue
            try:
                info = await nc.jetstream().stream_info(stream)
                if info.cluster is not None and info.cluster.leader:
                    return next((s for s in self.servers if s.name == info.cluster.leader), None)
            except Exception:
                pass
            finally:
                await nc.close()
        return None

    def store_back_since(self, moment: float) -> float:
        return max(moment, self._led_again)

    async def _watch_store(self) -> None:
        """Whether the lease and event streams have a leader, twenty times a second, as a node
        that can answer reports them (a stream's leader answers for it; a partition's heal can
        start an election again, long after the fault began), and whether JetStream takes a
        write (a probe stream of its own, replicated as the others): when both last held again.
        Leaders alone said "answered" while every process's writes still met "JetStream system
        temporarily unavailable" for 7 s after a partition's heal, which the report then
        counted as this project's part. (One connection to that node is kept while it answers,
        not one made for each look.)"""
        streams = (f"KV_{LEASE_BUCKET}", EVENTS_STREAM)
        leaderless = False
        probe_made = False
        nc: NatsClient | None = None
        node = -1  # the node ``nc`` is connected to
        try:
            while True:
                led = False
                answering = [n for n, s in enumerate(self.servers) if n not in self.silent and s.process is not None]
                if nc is not None and (nc.is_closed or node not in answering):
                    nc = await _closed(nc)
                if nc is None and answering:
                    node = answering[0]
                    try:
                        nc = await _connect(self.servers[node].url, 1)
                    except Exception:
                        nc = None
                if nc is not None:
                    try:
                        js = nc.jetstream(timeout=0.5)
                        infos = [await js.stream_info(stream) for stream in streams]
                        led = all(info.cluster is not None and bool(info.cluster.leader) for info in infos)
                        if led and not probe_made:
                            await js.add_stream(name=PROBE_STREAM, subjects=[PROBE_SUBJECT], max_msgs=16,
                                                num_replicas=len(self.servers), storage=StorageType.MEMORY)
                            probe_made = True
                        if led:
                            await js.publish(PROBE_SUBJECT, b"", stream=PROBE_STREAM)
                    except Exception:
                        led = False
                        nc = await _closed(nc)  # (the next look connects again)
                if led and leaderless:
                    self._led_again = time.monotonic()
                leaderless = not led
                await asyncio.sleep(0.05)
        finally:
            if nc is not None:
                await _closed(nc)

    async def caught_up(self) -> None:
        """Until the lease and event streams have a leader and every replica is current."""
        deadline = time.monotonic() + CAUGHT_UP_LIMIT
        last = ""
        nc: NatsClient | None = None
        try:
            while time.monotonic() < deadline:
                try:
                    if nc is None or nc.is_closed:
                        nc = await _connect(self.servers[0].url, 2)
                    behind = []
                    for stream in (f"KV_{LEASE_BUCKET}", EVENTS_STREAM):
                        info = await nc.jetstream().stream_info(stream)
                        cluster = info.cluster
                        if cluster is None or not cluster.leader or any(
                                not r.current or r.offline for r in cluster.replicas or []):
                            behind.append(f"{stream}: {cluster!r}")
                    if not behind:
                        return
                except Exception as exc:
                    last = repr(exc)
                    if nc is not None:
                        nc = await _closed(nc)  # (the next look connects again)
                else:
                    last = "; ".join(behind)
                await asyncio.sleep(0.05)
        finally:
            if nc is not None:
                await _closed(nc)
        raise AssertionError(f"the NATS cluster did not catch up: {last}")

    async def logs(self) -> dict[str, Log]:
        return await retrying(lambda: jetstream_logs(self.servers[0].url), "reading the logs", CAUGHT_UP_LIMIT)

    async def stop(self) -> None:
        if self._watching is not None:
            self._watching.cancel()
        await super().stop()
        for server in self.servers:  # a paused node would not stop
            if server.process is not None and server.process.returncode is None:
                os.kill(server.process.pid, signal.SIGCONT)
        await asyncio.gather(*(server.stop() for server in self.servers))
        await asyncio.gather(*(disk.cut() for disk in self.disks))
        await self.machines.destroy()


SYSTEMS: dict[str, type[Single] | type[Cluster]] = {"sqlite": Single, "cluster": Cluster}
