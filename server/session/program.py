"""The ``truco`` SSH subsystem: a program's session, speaking the protocol instead of a screen.

``ssh -s -p 2222 NAME@host truco``: the channel carries length-prefixed protocol frames both
ways (docs/PROTOCOL.md). The connection is authenticated, named and limited exactly like a
terminal session (server/ssh/server.py does both); this relay only moves frames between the channel
and the session's ``HubLink``. It never decodes what a client sends: the hub does, for every
session alike, with the same validation, errors and command rate limits. What it adds is what
a byte stream needs: a bound on a frame's size (an announced length over the limit ends the
session, since the stream cannot be resynchronised), a bound on input bytes (a terminal's
budget: past it the session ends, since dropping bytes would cut frames), and no dropping of
output either: a client that stops reading is disconnected, as a terminal session is.
"""
from __future__ import annotations

import asyncio
import logging
from typing import Any
import asyncssh

import protocol as p
from server.session.context import ServerContext
from server.link import HubLink
from server.ratelimit import TokenBucket
from server.session.write_flow import WriteFlow, link_paused, transport_of, unsent

log = logging.getLogger(__name__)

SUBSYSTEM = "truco"
DRAIN_WAIT = 1.0  # seconds the last frames (a notice, an error) may take to leave
WATCHDOG_PERIOD = 5.0
# Only these few bytes long frames are read on their way out, to learn whether the client
# sits at a table (the lobby's idle timeout): a ``seated`` event is always this small.
SEATED_PEEK = 120


class ProtocolSession(asyncssh.SSHServerSession[bytes]):
    """One ``truco`` subsystem channel, between the client and its ``HubLink``. It becomes the
    channel's session when the subsystem is requested (server/session/shell.py)."""

    def __init__(self, ctx: ServerContext, chan: asyncssh.SSHServerChannel[bytes], username: str,
                 fingerprint: str | None, ip: str) -> None:
        self._ctx = ctx
        self._chan = chan
        self._username = username
        self._fingerprint = fingerprint
        self._ip = ip
        cfg = ctx.config
        self._reader = p.FrameReader()
        self._input = TokenBucket(cfg.input_bytes_per_second, cfg.input_burst)
        self._link: HubLink | None = None
        self._task: asyncio.Task[None] | None = None
        self._exit_task: asyncio.Task[None] | None = None
        self._watchdog: asyncio.TimerHandle | None = None
        self._writable = asyncio.Event()  # clear while the channel or the connection is full
        self._flow = WriteFlow()
        if link_paused(chan.get_extra_info("connection")):
            self._flow.update(now=asyncio.get_running_loop().time(), link=True)
        else:
            self._writable.set()
        self._last_input = 0.0
        self._in_lobby = True
        self._closed = False
        self.bytes_out = 0

    # -- asyncssh callbacks ---------------------------------------------------------------
    def session_started(self) -> None:
        loop = asyncio.get_running_loop()
        self._link = self._ctx.hub.connect(self._ip, self._username, self._fingerprint)
        self._ctx.sessions.add(self)
        self._last_input = loop.time()
        self._task = loop.create_task(self._pump(), name=f"subsystem-{self._username}")
        self._watchdog = loop.call_later(WATCHDOG_PERIOD, self._check)

    def data_received(self, data: bytes, datatype: Any) -> None:
        link = self._link
        if self._closed or link is None:
            return
        loop = asyncio.get_running_loop()
        self._last_input = loop.time()
        if not self._input.take(len(data)):
            # Over the input budget. Pausing the channel would leave asyncssh buffering up to
            # a whole SSH window (2 MiB) per connection; commands are small and rate limited
            # anyway (a fast player sends ~1 KiB a second), so a flood ends the session.
            self._fail("rate_limited", "too much input; closing")
            return
        try:
            frames = self._reader.feed_raw(data)
        except p.ProtocolError as exc:
            self._fail("bad_frame", str(exc))
            return
        for data_frame in frames:
            link.send(data_frame)

    def pause_writing(self) -> None:
        self._flow.update(now=asyncio.get_running_loop().time(), channel=True)
        self._writable.clear()

    def resume_writing(self) -> None:
        if self._flow.update(now=asyncio.get_running_loop().time(), channel=False):
            self._writable.set()

    def link_writing(self, paused: bool) -> None:
        """The TCP connection under the channel filled up or emptied (server/session/write_flow.py)."""
        if self._flow.update(now=asyncio.get_running_loop().time(), link=paused):
            self._writable.set()
        elif paused:
            self._writable.clear()

    def eof_received(self) -> bool:
        self.close()  # a program's end of input ends its session, as a shell's does
        return False

    def connection_lost(self, exc: Exception | None) -> None:
        self._closed = True
        self._writable.set()
        self._stop()

    def close(self, reason: str | None = None) -> None:
        """End the session (server shutdown, the idle timeout): a notice first, if any."""
        if self._closed:
            return
        if reason:
            self._write(p.frame(p.Notice(code=reason)))
        self._closed = True
        self._writable.set()
        self._stop()
        self._finish(0)

    # -- output ------------------------------------------------------------------------
    async def _pump(self) -> None:
        """Frames from the hub to the client, in order, none dropped. While the client does
        not read, the frames wait in the link's queue; when that is full, the hub drops the
        connection (server/link.py OUTBOX_LIMIT), as the watchdog does after a while."""
        link = self._link
        assert link is not None
        try:
            while True:
                data = await link.receive()
                if data is None or self._closed:
                    break
                if len(data) <= SEATED_PEEK and b"seated" in data:
                    self._note_seat(data)
                await self._writable.wait()
                if self._closed:
                    break
                self._write(p.with_length(data))
        finally:
            link.close()
            if not self._closed:
                self._closed = True
                await self._exit(0)
            self._ctx.sessions.discard(self)

    def _note_seat(self, data: bytes) -> None:
        try:
            message = p.decode(data)
        except p.ProtocolError:
            return
        if isinstance(message, p.Seated):
            self._in_lobby = message.table_id is None

    def _write(self, data: bytes) -> None:
        try:
            self._chan.write(data)
            self.bytes_out += len(data)
        except (BrokenPipeError, asyncssh.Error, OSError):
            self._closed = True

    async def _exit(self, status: int) -> None:
        """Let what was written leave (bounded), then close the channel."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + DRAIN_WAIT
        try:
            while self._chan.get_write_buffer_size() > 0 and loop.time() < deadline:
                await asyncio.sleep(0.02)
            self._chan.exit(status)
        except (BrokenPipeError, asyncssh.Error, OSError):
            pass

    def _fail(self, code: str, reason: str) -> None:
        """Input the session cannot go on with: say why, then hang up."""
        log.info("subsystem %s: %s; closing", self._username, reason)
        self._write(p.frame(p.Error(code=code, message=reason[:400])))
        self._closed = True
        self._stop()
        self._finish(1)

    def _finish(self, status: int) -> None:
        # Held, so the task is not collected before it closed the channel.
        self._exit_task = asyncio.get_running_loop().create_task(self._exit(status))

    def _stop(self) -> None:
        if self._watchdog is not None:
            self._watchdog.cancel()
            self._watchdog = None
        if self._link is not None:
            self._link.close()
        if self._task is not None and not self._task.done():
            self._task.cancel()
        self._ctx.sessions.discard(self)

    # -- the watchdog: clients that stopped reading, idle in the lobby -------------------
    def _check(self) -> None:
        self._watchdog = None
        if self._closed:
            return
        cfg = self._ctx.config
        now = asyncio.get_running_loop().time()
        since = self._flow.since
        if unsent(self._chan, transport_of(self._chan.get_extra_info("connection"))) > cfg.output_limit or (
            since is not None and now - since > cfg.stalled_reader_timeout
        ):
            log.warning("subsystem %s: not reading its output; disconnected", self._username)
            self._closed = True
            self._stop()
            self._chan.close()
            return
        if self._in_lobby and now - self._last_input > cfg.lobby_idle_timeout:
            self.close("idle")
            return
        self._watchdog = asyncio.get_running_loop().call_later(WATCHDOG_PERIOD, self._check)

    def __repr__(self) -> str:  # for logs
        return f"<ProtocolSession {self._username!r}>"

