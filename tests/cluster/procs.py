"""``truco-ssh serve --nats`` processes for the cluster tests (real subprocesses, so that
one can be killed with SIGKILL)."""
from __future__ import annotations

import asyncio
import contextlib
import inspect
import os
import re
import signal
import sys
import time
from dataclasses import dataclass, field
from typing import Awaitable, Callable
from pathlib import Path

import nats
from nats.aio.msg import Msg

import engine
import protocol as p
from protocol.client import Client
from protocol.bus import InputAck, decode_bus
from server.cluster.bus import CONN_HEADER, FRONT_SUBJECT, Bus, front_subject, hub_subject, settle
from server.cluster.held_input import IN_HEADER
from server.cluster.jsstore import JetStreamStore
from server.cluster.names import NameMirror
from server.cluster.natsd import NatsServer
from tests.ports import free_port
from server.table import state_digest

LISTENING = re.compile(r"listening on [\d.]+:(\d+) \(cluster process (\S+), (.*)\)")
SINGLE_LISTENING = re.compile(r"listening on [\d.]+:(\d+)")
HOST = re.compile(r"cluster: this process \((\S+)\) is the lobby host")
RESTORED = re.compile(r"restored table (\S+) match (\d+) seq (\d+) digest (\w+)")
# A route that went silent (a partition drops packets, no error) is noticed after about 3 s,
# not nats-server's default of 2 minutes a ping times 2.
ROUTE_PINGS = "cluster {\n  ping_interval: \"1s\"\n  ping_max: 3\n}\n"
LEASE_TTL = 1.5  # seconds: a dead host is replaced within about this


def keep_logs(procs: "list[Proc]", where: Path, tail: int = 40) -> None:
    """Each process's whole output in ``where``/process-N.log, its tail printed (pytest shows
    it when the test fails): a rare failure is read from the file afterwards."""
    for n, proc in enumerate(procs):
        whole = where / f"process-{n}.log"
        whole.write_text("".join(proc.lines))
        print(f"--- process {n} (all of it: {whole}) ---", "".join(proc.lines[-tail:]), sep="\n")


@dataclass
class Proc:
    process: asyncio.subprocess.Process
    port: int
    lines: list[str] = field(default_factory=list)
    owner: str = ""
    reader: "asyncio.Task[None] | None" = None

    def saw(self, pattern: re.Pattern[str]) -> list[re.Match[str]]:
        return [m for line in self.lines if (m := pattern.search(line)) is not None]

    async def wait_line(self, pattern: re.Pattern[str], timeout: float = 20.0) -> re.Match[str]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            found = self.saw(pattern)
            if found:
                return found[-1]
            if self.process.returncode is not None:
                break
            await asyncio.sleep(0.05)
        raise AssertionError(f"no {pattern.pattern!r} from the process:\n" + "".join(self.lines[-40:]))

    @property
    def is_host(self) -> bool:
        return any(HOST.search(line) for line in self.lines)

    async def _read(self) -> None:
        assert self.process.stdout is not None
        async for raw in self.process.stdout:
            self.lines.append(raw.decode(errors="replace"))

    async def stop(self, sig: int = signal.SIGINT) -> None:
        if self.process.returncode is None:
            self.process.send_signal(sig)
            try:
                await asyncio.wait_for(self.process.wait(), 15)
            except asyncio.TimeoutError:
                self.process.kill()
                await self.process.wait()
        if self.reader is not None:
            await asyncio.gather(self.reader, return_exceptions=True)


async def start(tmp: Path, nats_url: str | None, *options: str, port: int | None = None,
                host: str = "127.0.0.1", prefix: tuple[str, ...] = (), within: float = 20.0) -> Proc:
    """One process of the cluster, once it listens (``within`` seconds at most); all of them
    share ``tmp`` (data dir, key). Without ``nats_url``, a process on its own, its store
    SQLite in the data dir. ``prefix``: a command it runs under (the chaos harness's machines:
    ``ip netns exec``), listening on ``host`` there."""
    exe = Path(sys.executable).parent / "truco-ssh"
    port = port or free_port()
    cluster = ("--nats", nats_url, "--lease-ttl", str(LEASE_TTL)) if nats_url is not None else ()
    process = await asyncio.create_subprocess_exec(
        *prefix, str(exe), "serve", "--host", host, "--port", str(port), "--data-dir", str(tmp / "data"),
        "--host-key", str(tmp / "key"), *cluster,
        "--log-level", "INFO", "--log-digests", "--bot-delay", "0.05", "--hand-pause", "0.1",
        "--away-grace", "120", "--new-player-minutes", "0", *options,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT,
    )
    proc = Proc(process, port)
    proc.reader = asyncio.get_running_loop().create_task(proc._read())
    try:
        listening = await proc.wait_line(LISTENING if nats_url is not None else SINGLE_LISTENING, within)
    except BaseException:
        await proc.stop(signal.SIGKILL)
        raise
    proc.owner = listening.group(2) if nats_url is not None else "single"
    return proc


def children(pid: int) -> list[int]:
    """The processes whose parent is ``pid`` (from /proc)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        if ppid == pid:
            found.append(int(entry.name))
    return found


def established(pid: int, port: int) -> int:
    """How many TCP connections to local ``port`` process ``pid`` holds (from /proc)."""
    inodes = set()
    for table in ("tcp", "tcp6"):
        for line in Path(f"/proc/net/{table}").read_text().splitlines()[1:]:
            fields = line.split()
            local, state, inode = fields[1], fields[3], fields[9]
            if state == "01" and int(local.rsplit(":", 1)[1], 16) == port:
                inodes.add(f"socket:[{inode}]")
    held = 0
    for fd in Path(f"/proc/{pid}/fd").iterdir():
        try:
            held += os.readlink(fd) in inodes
        except OSError:
            pass
    return held


async def logged_state(url: str) -> dict[str, tuple[int, int, str]]:
    """Our own replay of every open table's stream: (match, last seq, digest of the state)."""
    bus = await Bus.connect(url, owner="test-reader")
    try:
        names = await NameMirror.open(bus)
        store = JetStreamStore(bus, names)
        await store.open()
        records = await store.table_index()
        await store.load_matches(records)
        await names.close()
    finally:
        await bus.close()
    out = {}
    for r in records:
        rules = engine.get_ruleset(r.variant, **r.options)
        n = len(r.seats)
        state = engine.replay(rules, n, [engine.event_from_wire(e.data, rules.card_notation) for e in r.events])
        out[r.table_id] = (r.events[-1].match_no, r.events[-1].seq, state_digest(state, n))
    return out


async def start_nats_cluster(root: Path, nodes: int = 3, sync_always: bool = False,
                             machines: "list[tuple[str, tuple[str, ...]]] | None" = None) -> list[NatsServer]:
    """``nodes`` nats-servers routed to each other on loopback, JetStream on each, once
    JetStream works on every one (the cluster has elected its meta leader); ``sync_always``:
    each syncs every write before acknowledging it, as ``--workers`` starts them.
    ``machines``: each node's address and the command it runs under (the chaos harness's
    network namespaces), instead of loopback."""
    ports: list[int] = []
    while len(ports) < 2 * nodes:  # for the clients, then for the routes, all different
        port = free_port()
        if port not in ports:
            ports.append(port)
    places = machines or [("127.0.0.1", ())] * nodes
    every = ",".join(f"nats://{places[i][0]}:{ports[nodes + i]}" for i in range(nodes))
    servers = [NatsServer(root / f"js{i}", host=places[i][0], port=ports[i], prefix=places[i][1],
                          args=("--cluster", f"nats://{places[i][0]}:{ports[nodes + i]}", "--cluster_name",
                                "truco-test", "--routes", every), sync_always=sync_always,
                          extra_config=ROUTE_PINGS if machines else "")
               for i in range(nodes)]
    try:
        await asyncio.gather(*(server.start() for server in servers))
        for n, server in enumerate(servers):
            await jetstream_ready(server.url, f"ready{n}")
    except BaseException:
        await asyncio.gather(*(server.stop() for server in servers))
        raise
    return servers


async def jetstream_ready(url: str, bucket: str, timeout: float = 30.0) -> None:
    """Until the server at ``url`` can create a bucket (its cluster elected JetStream's leader)."""
    nc = await nats.connect(url)
    try:
        deadline = time.monotonic() + timeout
        while True:
            try:
                await nc.jetstream().create_key_value(bucket=bucket)
                return
            except Exception:
                if time.monotonic() > deadline:
                    raise
                await asyncio.sleep(0.05)
    finally:
        await nc.close()


async def wait_for_host(*procs: Proc, timeout: float = 15.0) -> Proc:
    """The process that took over as the lobby host (an AssertionError if none did in time)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for proc in procs:
            if proc.is_host:
                return proc
        await asyncio.sleep(0.05)
    raise AssertionError("no process took over as the lobby host")


async def until(check: Callable[[], bool | Awaitable[bool]], timeout: float = 15.0) -> None:
    """Wait for ``check()`` to hold (an AssertionError if it does not in time); ``check`` may
    be a coroutine function (it is awaited each time)."""
    deadline = time.monotonic() + timeout
    while True:
        held = check()
        if inspect.isawaitable(held):
            held = await held
        if held:
            return
        if time.monotonic() > deadline:
            raise AssertionError("not reached in time")
        await asyncio.sleep(0.02)


class HostInput:
    """A spy on what the front ends send the lobby host ``host`` and what it confirms to them
    (``InputAck``, server/cluster/held_input.py), on a NATS connection of its own."""

    def __init__(self, nc: nats.NATS, host: str) -> None:
        self._nc = nc
        self._host = host
        self.pings: dict[int, int] = {}  # a session's Ping(n=...) -> its number from its front end
        self.confirmed: dict[str, int] = {}  # front end subject -> the last number the host confirmed

    @classmethod
    async def open(cls, url: str, host: str) -> "HostInput":
        spy = cls(await nats.connect(url), host)
        await spy._nc.subscribe(hub_subject(host), cb=spy._to_host)
        await spy._nc.subscribe(f"{FRONT_SUBJECT}.*", cb=spy._to_front)
        await settle(spy._nc)
        return spy

    async def close(self) -> None:
        await self._nc.close()

    async def _to_host(self, msg: Msg) -> None:
        number = (msg.headers or {}).get(IN_HEADER)
        if number is not None and (msg.headers or {}).get(CONN_HEADER) is not None:
            with contextlib.suppress(p.ProtocolError):
                message = p.decode(msg.data)
                if isinstance(message, p.Ping):
                    self.pings[message.n] = int(number)

    async def _to_front(self, msg: Msg) -> None:
        if msg.headers and CONN_HEADER in msg.headers:
            return  # a session's frame
        with contextlib.suppress(p.ProtocolError):
            message = decode_bus(msg.data)
            if isinstance(message, InputAck) and message.host == self._host:
                self.confirmed[msg.subject] = max(self.confirmed.get(msg.subject, 0), message.n)

    async def taken(self, client: Client, front: str, n: int, timeout: float = 15.0) -> None:
        """A Ping from ``client``, a session of process ``front``, to the host and back
        (``host_round_trip``), and then the host's confirmation of it to that front end: every
        frame the front end sent before it has been taken and is not sent again to a next
        host (a lobby command is not deduplicated: a CreateTable sent again makes a second
        table), and whatever the host sent that front end before the Pong has reached it."""
        await host_round_trip(client, n, timeout)
        subject = front_subject(front)
        await until(lambda: n in self.pings and self.confirmed.get(subject, 0) >= self.pings[n], timeout)


async def host_round_trip(client: Client, n: int, timeout: float = 15.0) -> None:
    """A Ping from ``client`` to the lobby host and its Pong back. The host sends a session's
    front end everything in order, and the front end takes it in order: once the Pong is
    back, whatever the host sent that front end before it (a guest's seat code, a reply to
    an earlier command) has been taken there. The events read on the way are put back."""
    await client.send(p.Ping(n=n))
    skipped: list[p.Event] = []
    async with asyncio.timeout(timeout):
        while not isinstance(event := await client.receive(), p.Pong) or event.n != n:
            skipped.append(event)
    for event in reversed(skipped):
        client.unread(event)


async def taken_by_host(url: str, host: str, *sessions: tuple[Client, str]) -> None:
    """``HostInput.taken`` for each (client, its front end) in turn, on one spy."""
    spy = await HostInput.open(url, host)
    try:
        for n, (client, front) in enumerate(sessions, 1):
            await spy.taken(client, front, n)
    finally:
        await spy.close()
