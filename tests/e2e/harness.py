"""Test helpers: a real server on 127.0.0.1 and SSH clients whose screens are read with pyte."""
from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import os
import time
from pathlib import Path
from typing import AsyncIterator, Callable

import asyncssh
import pyte
from pyte.screens import wcwidth  # (pyte's own, cached)

from server.cli.main import serve
from server.config import ServerConfig


@dataclasses.dataclass
class RunningServer:
    config: ServerConfig
    port: int


@contextlib.asynccontextmanager
async def running_server(tmp_path: Path, **overrides: object) -> AsyncIterator[RunningServer]:
    """The whole server (hub, store, SSH) on 127.0.0.1 and a free port."""
    # Here, not at the top: the bench scripts import this module as `harness`, without `tests`.
    from tests.ports import free_port

    port = free_port()
    config = dataclasses.replace(
        ServerConfig(), host="127.0.0.1", port=port, data_dir=tmp_path / "data",
        host_key=tmp_path / "hostkeys" / "key", **overrides,
    )
    ready, stop = asyncio.Event(), asyncio.Event()
    nats = None
    if os.environ.get("TRUCO_TEST_BUS") == "nats":  # the same tests against a cluster of one
        from server.cluster.bus import BusOptions
        from server.cluster.natsd import NatsServer
        from server.cluster.serve import serve_cluster

        nats = NatsServer(tmp_path / "jetstream", port=free_port())
        await nats.start()
        # The product's lease TTL, not a failover test's short one: a cluster of one has no
        # process to fail over to, and the tests, the server and the SSH clients share one
        # event loop, which stalls for a second or more when the machine is loaded.
        task = asyncio.create_task(serve_cluster(
            config, [nats.url], BusOptions(), lambda _: None,
            ready=ready, stop=stop))
    else:
        task = asyncio.create_task(serve(config, ready=ready, stop=stop))
    try:
        await asyncio.wait([task, asyncio.create_task(ready.wait())], return_when=asyncio.FIRST_COMPLETED)
        if task.done():
            task.result()  # re-raise the start-up failure
        yield RunningServer(config, port)
    finally:
        stop.set()
        try:
            await asyncio.wait_for(task, timeout=15)
        finally:
            if nats is not None:
                await nats.stop()


class ScreenClient:
    """An SSH client with a PTY; everything it receives is fed to a pyte screen."""

    # Bytes fed to pyte at a time, the loop given back in between (0: a chunk as read). The
    # benches' many clients share one loop: a whole screen fed at once (tens of ms of pyte)
    # held the reads of the others, whose arrival times then counted the bench's own work.
    feed_slice = 0

    def __init__(self, cols: int = 80, rows: int = 24) -> None:
        self.screen = pyte.Screen(cols, rows)
        self.stream = pyte.ByteStream(self.screen)
        self.raw = bytearray()
        self.conn: asyncssh.SSHClientConnection | None = None
        self.process: asyncssh.SSHClientProcess[bytes] | None = None
        self._reader: asyncio.Task[None] | None = None
        self.closed = asyncio.Event()
        self.changed_at = 0.0  # perf_counter() when a received chunk last changed the screen
        # ... and when that chunk was read off the connection, before this client's own
        # terminal emulation (pyte) took it in: the benches' press-to-screen without the
        # instrument's drawing, which a real terminal does in microseconds.
        self.arrived_at = 0.0
        self._changed = asyncio.Event()  # set (and replaced) whenever the screen may have changed
        self.muted = False  # read and drop what arrives: an idle client in a crowd costs nothing
        self._lines: list[str] = []  # the rows as text (``lines``)
        # (predicate, future) of stamped_wait: checked after every chunk that changes the screen
        self._watchers: list[tuple[Callable[[str], bool], asyncio.Future[tuple[float, float]]]] = []

    async def connect(self, port: int, username: str, *, client_keys: list[asyncssh.SSHKey] | None = None,
                      env: dict[str, str] | None = None, term_type: str = "xterm-256color",
                      password: str | None = "x",
                      compression_algs: object = (), local_addr: str | None = None,
                      host: str = "127.0.0.1", encryption_algs: object = (),
                      window: int | None = None, receive_buffer: int | None = None,
                      rekey_bytes: int | None = None) -> "ScreenClient":
        # Like OpenSSH: offer the keys first, then fall back to keyboard-interactive (no
        # prompts for a guest) or a password, so a refused key still gets in as a guest.
        sock = None
        if receive_buffer is not None:  # a small TCP receive buffer: the kernel holds little for it
            import socket

            sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, receive_buffer)
            if local_addr:
                sock.bind((local_addr, 0))
                local_addr = None
            sock.setblocking(False)
            await asyncio.get_running_loop().sock_connect(sock, (host, port))
        self.conn = await asyncssh.connect(
            host, port, sock=sock, username=username, known_hosts=None,
            client_keys=client_keys or [], agent_path=None, password=password,
            preferred_auth="publickey,keyboard-interactive,password",
            compression_algs=compression_algs,  # () = asyncssh's default: none, then zlib
            local_addr=(local_addr, 0) if local_addr else None,  # e.g. 127.0.0.2: another address
            encryption_algs=encryption_algs,  # () = asyncssh's default (chacha20-poly1305 first)
            **({} if rekey_bytes is None else {"rekey_bytes": rekey_bytes}),  # re-key that often
        )
        self.process = await self.conn.create_process(
            term_type=term_type, term_size=(self.screen.columns, self.screen.lines),
            encoding=None, env=env or {},
            **({} if window is None else {"window": window}),  # the SSH window it offers the server
        )
        self._reader = asyncio.create_task(self._read())
        return self

    async def _read(self) -> None:
        assert self.process is not None
        try:
            while True:
                data = await self.process.stdout.read(65536)
                if not data:
                    break
                if self.muted:
                    continue
                arrived = time.perf_counter()
                self.raw += data
                step = self.feed_slice or len(data)
                for at in range(0, len(data), step):
                    if at:
                        await asyncio.sleep(0)
                    self.stream.feed(data[at:at + step])
                self._fed(arrived)
        finally:
            self.closed.set()
            self._changed.set()

    def _fed(self, arrived: float) -> None:
        """After a chunk went to the screen: whoever waits for a change is told of one."""
        if self._take_dirty():
            self.changed_at = time.perf_counter()
            self.arrived_at = arrived
            self._changed.set()
            self._changed = asyncio.Event()
            if self._watchers:
                self._stamp_watchers()

    def _stamp_watchers(self) -> None:
        text = self.text()
        for predicate, future in list(self._watchers):
            if not future.done() and predicate(text):
                future.set_result((self.changed_at, self.arrived_at))
        self._watchers = [(p, f) for p, f in self._watchers if not f.done()]

    def _take_dirty(self) -> bool:
        """The rows drawn since the last call made again as text (``lines``); whether any was.
        (pyte's ``display`` makes every row again at each call: most of the client's CPU.)"""
        screen = self.screen
        if len(self._lines) != screen.lines:
            self._lines = [""] * screen.lines
            screen.dirty.update(range(screen.lines))
        if not screen.dirty:
            return False
        for y in screen.dirty:
            if y < screen.lines:
                self._lines[y] = _row_text(screen, y)
        screen.dirty.clear()
        return True

    def lines(self) -> list[str]:
        """The screen's rows as text (pyte's ``display``, made again only where it changed)."""
        self._take_dirty()
        return self._lines

    def text(self) -> str:
        return "\n".join(self.lines())

    def send(self, data: str | bytes) -> None:
        assert self.process is not None
        self.process.stdin.write(data.encode() if isinstance(data, str) else data)

    async def press(self, key: str | bytes, timeout: float = 15.0) -> None:
        """Send a key and wait until the screen changes after it: the key's own redraw (for a
        key that always shows something: focus moving, a list opening, a row highlighted)."""
        changed = self._changed
        self.send(key)
        await asyncio.wait_for(changed.wait(), timeout)
        if self.closed.is_set():
            raise AssertionError(f"the session ended after {key!r}")

    async def wait_for(self, predicate: Callable[[str], bool] | str, timeout: float = 10.0) -> str:
        """The screen's text once it satisfies predicate; checked each time the screen changes."""
        check = (lambda s: predicate in s) if isinstance(predicate, str) else predicate
        deadline = time.monotonic() + timeout
        while True:
            changed = self._changed
            text = self.text()
            if check(text):
                return text
            left = deadline - time.monotonic()
            if left <= 0 or self.closed.is_set():
                break
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(changed.wait(), left)
        raise AssertionError(f"timed out waiting for {predicate!r}; screen:\n{self.text()}")

    async def stamped_wait(self, predicate: Callable[[str], bool], timeout: float) -> tuple[float, float]:
        """(changed_at, arrived_at) of the chunk that first made the screen satisfy predicate
        (the benches' clock: not moved on by whatever this client read after it before the
        waiter ran); AssertionError past the timeout."""
        if predicate(self.text()):
            return self.changed_at, self.arrived_at
        future: asyncio.Future[tuple[float, float]] = asyncio.get_running_loop().create_future()
        self._watchers.append((predicate, future))
        try:
            return await asyncio.wait_for(future, timeout)
        except asyncio.TimeoutError:
            raise AssertionError(f"timed out waiting for {predicate!r}; screen:\n{self.text()}") from None
        finally:
            self._watchers = [(p, f) for p, f in self._watchers if f is not future]

    async def close(self) -> None:
        if self.conn is not None:
            self.conn.close()
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self.conn.wait_closed(), 5)
        if self._reader is not None:
            self._reader.cancel()


QUIET_LOOK = 0.02  # seconds between two looks at what the clients received
QUIET_LOOKS = 4  # looks in a row without a new byte: the output has stopped


async def quiet(*clients: ScreenClient, since: int | None = None, timeout: float = 15.0) -> None:
    """Everything the server was sending these clients has arrived: no byte came for
    ``QUIET_LOOKS`` looks in a row. For byte counts, where a paint seen on the screen may
    still be arriving (a frame goes out in more than one packet, with no end-of-frame mark).
    ``since``: their bytes received (together) before an action: some must come after it
    first (a repaint that may leave the screen as it was, e.g. a resize to the same size).

    Counted in looks, not seconds: the server, its SSH and these clients share one event
    loop, which a repaint (at 300x100 above all) holds for 0.1-0.2 s at a time; a look is
    taken only once the loop is free again, so a stall does not pass for quiet. Returns
    early once a client's session has ended (nothing more can come)."""
    def received() -> int:
        return sum(len(c.raw) for c in clients)

    deadline = time.monotonic() + timeout
    last, still = received(), 0
    while still < QUIET_LOOKS or (since is not None and last <= since):
        if any(c.closed.is_set() for c in clients):
            return
        if time.monotonic() > deadline:
            raise AssertionError(f"the output did not stop within {timeout} s (or none came)")
        await asyncio.sleep(QUIET_LOOK)
        now = received()
        still = still + 1 if now == last else 0
        last = now


def _row_text(screen: pyte.Screen, y: int) -> str:
    """Row ``y`` as pyte's ``Screen.display`` makes it: a wide character's stub cell skipped."""
    line = screen.buffer[y]
    out = []
    wide = False
    for x in range(screen.columns):
        if wide:
            wide = False
            continue
        char = line[x].data
        wide = wcwidth(char[0]) == 2
        out.append(char)
    return "".join(out)
