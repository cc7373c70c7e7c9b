"""One SSH shell session: a Textual app wired to the channel and to the hub.

Output from the app is batched per event-loop iteration and written to the
channel in one piece; while the client is not reading (flow control paused)
frames are dropped and one full repaint is made when it resumes.
"""
from __future__ import annotations

import asyncio
import functools
import contextvars
import io
import logging
import re
from typing import Any, Callable, Literal

import asyncssh
from rich.console import Console

from server import asyncssh_private
from server.ops import action_trace, metrics
from server.session import program
from server.session.ascii_out import PLAIN_TERMS, to_ascii, wants_ascii
from server.session.context import ServerContext
from server.session.input_gate import InputGate, current_gate
from server.session.write_flow import WriteFlow, link_paused, unsent
from tui.app import TrucoApp
from tui.driver import ChannelDriver
from tui.i18n import Translator, language_from_env
from tui import textual_private
from tui.textual_patches.paced_repaint import REPAINT_PACE


log = logging.getLogger(__name__)

FAREWELL = {code: f"notice.{code}" for code in ("shutdown", "replaced", "idle", "kicked", "banned")}
DRAIN_WAIT = 1.0  # seconds the farewell line may take to leave before the channel closes
# A session's first bytes (the terminal's modes, a pointer shape) wait for its first screen,
# up to OPENING_HOLD seconds, to leave with it: each write of its own is an SSH packet, about
# 40 bytes of header, padding and MAC (a tenth of a second at 9600 bit/s). The first write
# that places the cursor (Textual draws each line from a cursor position) is that screen.
OPENING_HOLD = 0.25
DRAWS = re.compile(r"\x1b\[\d+;\d+H")

ColorSystem = Literal["standard", "256", "truecolor"]


def no_colour(term: str, env: dict[str, str]) -> bool:
    """NO_COLOR (https://no-color.org) or a terminal type without colour."""
    return "NO_COLOR" in env or term in PLAIN_TERMS or term.endswith(("-m", "-mono"))


def color_system(term: str, env: dict[str, str], lite: bool = False) -> ColorSystem | None:
    """The richest colour mode the client's terminal claims (16 colours in lite mode),
    or None for no colour."""
    if no_colour(term, env):
        return None
    if lite:
        return "standard"
    if env.get("COLORTERM", "") in ("truecolor", "24bit"):
        return "truecolor"
    if "256" in term:
        return "256"
    return "standard"


class _Discard(io.StringIO):
    """Where the console's own writes go: nowhere (Textual draws through its driver). A
    terminal, as Textual's own console file says it is."""

    def write(self, text: str) -> int:
        return len(text)

    def isatty(self) -> bool:
        return True


def make_console(colors: ColorSystem | None, term: str) -> Console:
    return Console(
        color_system=colors, file=_Discard(), markup=False, highlight=False, emoji=False,
        legacy_windows=False, force_terminal=True, safe_box=False, soft_wrap=False,
        _environ={"TERM": term or "xterm"},
    )


class TrucoSession(asyncssh.SSHServerSession[bytes]):
    @property
    def username(self) -> str:
        return self._username

    def __init__(self, ctx: ServerContext, username: str, fingerprint: str | None, ip: str):
        self._ctx = ctx
        self._username = username
        self._fingerprint = fingerprint
        self._ip = ip
        self._chan: asyncssh.SSHServerChannel[bytes] | None = None
        self._term: str | None = None
        self._size = (80, 24)
        self._driver: ChannelDriver | None = None
        self._app: TrucoApp | None = None
        self._buf: list[str] = []
        self._conn_id: int | None = None  # the hub's number for it, once connected (server/ops/action_trace.py)
        self._ascii = False  # a plain terminal without UTF-8: ASCII output (server/session/ascii_out.py)
        self._flush_scheduled = False
        self._opening: asyncio.TimerHandle | None = None  # holding the first bytes (OPENING_HOLD)
        self._opened = False
        self._flow = WriteFlow()  # held while the channel or the connection is full
        self._need_repaint = False
        self._closed = False
        self.bytes_out = 0
        cfg = ctx.config
        # Keys, pastes and resizes reach the App through the gate, within a CPU budget.
        self.gate = InputGate(cfg, self, self._schedule, address=ctx.address_budget(ip))
        self._gate_context: contextvars.Context | None = None  # the App's: its work is metered
        self.transport: asyncio.BaseTransport | None = None  # the TCP connection (set by ssh/server.py)
        self._last_input = 0.0  # loop time of the last key; set when the app starts
        self._watchdog: asyncio.TimerHandle | None = None
        self._env: dict[str, str] = {}

    # -- asyncssh callbacks ---------------------------------------------------------
    def connection_made(self, chan: asyncssh.SSHServerChannel[bytes]) -> None:
        self._chan = chan
        high = self._ctx.config.output_high_water
        chan.set_write_buffer_limits(high=high, low=high // 4)
        if link_paused(chan.get_extra_info("connection")):
            self.link_writing(True)

    def pty_requested(self, term_type: str, term_size: tuple[int, int, int, int], term_modes: Any) -> bool:
        self._term = (term_type or "xterm")[:64]
        self._size = self._ctx.config.clamp_size(term_size[0], term_size[1])
        return True

    def shell_requested(self) -> bool:
        return True

    def exec_requested(self, command: str) -> bool:
        return False

    def subsystem_requested(self, subsystem: str) -> bool:
        if subsystem != program.SUBSYSTEM or self._chan is None:
            return False
        # A program speaking the protocol, not a terminal: the channel's session becomes a
        # ProtocolSession (server/session/program.py), which gets every later callback (its start,
        # data, flow control, the end): asyncssh has no public way (server/asyncssh_private.py).
        asyncssh_private.set_channel_session(self._chan, program.ProtocolSession(
            self._ctx, self._chan, self._username, self._fingerprint, self._ip))
        return True

    def session_started(self) -> None:
        assert self._chan is not None
        if self._term is None:
            env = {str(k): str(v) for k, v in self._chan.get_environment().items()}
            tr = Translator(language_from_env(env))  # ssh -T still sends LANG
            self._chan.write(f"truco-ssh: {tr('notice.no_terminal')}\r\n".encode())
            self._chan.exit(1)
            return
        self._task = asyncio.get_running_loop().create_task(self._run_app())

    async def _run_app(self) -> None:
        assert self._chan is not None
        env = {str(k): str(v) for k, v in self._chan.get_environment().items()}
        lang = language_from_env(env)
        link = self._ctx.hub.connect(self._ip, self._username, self._fingerprint)
        self._conn_id = link.conn_id
        log.info("conn %s: %r from %s connected (%s)", link.conn_id, self._username, self._ip,
                 "key " + self._fingerprint if self._fingerprint else "guest", extra={"session": link.conn_id})
        app = TrucoApp(link, self._username, lang, driver_class=ChannelDriver)
        app.terminal_link = self  # type: ignore[attr-defined]
        # Over its input budget, its screen repaints only as the debt is paid
        # (tui/textual_patches/paced_repaint.py)
        setattr(app, REPAINT_PACE, functools.partial(self.gate.cpu.wait, pace=False))
        self._env = env
        term = self._term or ""
        app.lite = self._ctx.config.lite or term in PLAIN_TERMS
        self._ascii = wants_ascii(term, env)
        app.console = make_console(color_system(term, env, app.lite), term or "xterm")
        self._app = app
        # Everything the App runs (its tasks inherit this context) is metered for the gate.
        current_gate.set(self.gate)
        self._gate_context = contextvars.copy_context()
        self._ctx.sessions.add(self)
        self._last_input = asyncio.get_running_loop().time()
        self._schedule_watchdog()
        try:
            await app.run_async(size=self._size, mouse=not app.lite)
        except Exception:
            log.exception("app crashed for %s", self._username)
        finally:
            if self._watchdog is not None:
                self._watchdog.cancel()
            link.close()
            log.info("conn %s: %r hung up (%s)", link.conn_id, self._username, app.return_value or "connection lost",
                     extra={"session": link.conn_id})
            self._open()  # (what the hold kept goes now)
            self._flush()
            if not self._closed:
                reason = FAREWELL.get(str(app.return_value or ""), "")
                if reason:
                    detail = f" ({app.farewell_detail})" if app.farewell_detail else ""
                    line = f"truco-ssh: {Translator(app.tr.lang)(reason)}{detail}\r\n"
                    self._chan.write((to_ascii(line) if self._ascii else line).encode())
                    await self._drain()
                self._chan.exit(0)
            # Counted until here: a shutting-down server waits (bounded) for the farewell.
            self._ctx.sessions.discard(self)

    async def _drain(self) -> None:
        """Wait (bounded) until what was written left for the client, so the reason for a
        hang-up is on the player's terminal before the connection closes."""
        chan = self._chan
        loop = asyncio.get_running_loop()
        deadline = loop.time() + DRAIN_WAIT
        while (chan is not None and not self._closed and chan.get_write_buffer_size() > 0
               and loop.time() < deadline):
            await asyncio.sleep(0.02)

    def data_received(self, data: bytes, datatype: Any) -> None:
        action_trace.mark("input", self._conn_id, n=len(data))
        self._last_input = asyncio.get_running_loop().time()
        self.gate.received(data)

    def terminal_size_changed(self, width: int, height: int, pixwidth: int, pixheight: int) -> None:
        self._size = self._ctx.config.clamp_size(width, height)
        self.gate.resized(*self._size)

    # -- what the input gate drives (server/session/input_gate.py) --------------------------------
    def feed(self, data: bytes) -> None:
        if self._driver is not None:
            self._driver.feed(data)

    def resize(self, width: int, height: int) -> None:
        if self._driver is not None:
            self._driver.resize(width, height)

    def pause_reading(self) -> None:
        """Stop reading the client: the channel (SSH flow control) and the socket (so a
        client held back costs no decrypting either; TCP holds it back)."""
        if self._chan is not None and not self._closed:
            self._chan.pause_reading()
            if isinstance(self.transport, asyncio.ReadTransport) and self.transport.is_reading():
                self.transport.pause_reading()

    def resume_reading(self) -> None:
        if self._chan is not None and not self._closed:
            if isinstance(self.transport, asyncio.ReadTransport) and not self.transport.is_closing():
                self.transport.resume_reading()
            self._chan.resume_reading()

    def dropped(self) -> None:
        log.warning("session %s: input over its budget, dropped", self._username)
        metrics.INPUT_DROPS.labels("over_budget").inc()
        app = self._app
        if app is not None and app.is_running:
            app.call_later(app.notify_text, app.tr("notice.input_dropped"), severity="warning", timeout=6)

    def busy(self) -> bool:
        """Whether the App still has messages to handle where keys go: itself, the screen and
        the focused widget (Textual's private queues, read through tui/textual_private.py)."""
        app = self._app
        if app is None or not app.is_running:
            return False
        try:
            screen = app.screen
        except Exception:  # noqa: BLE001 - no screen yet (starting) or any more (stopping)
            return False
        pumps = (app, screen, screen.focused)
        return any(pump is not None and textual_private.has_queued_messages(pump) for pump in pumps)

    def _schedule(self, delay: float, callback: Callable[[], None]) -> None:
        """Run ``callback`` in the App's context: at once after what the App has queued, or
        after ``delay`` seconds."""
        app = self._app
        if self._closed:
            return
        if delay <= 0 and app is not None and app.is_running:
            app.call_later(callback)
        else:
            asyncio.get_running_loop().call_later(delay, callback, context=self._gate_context)

    def eof_received(self) -> bool:
        if self._app is not None:
            self._app.exit()
        return False

    def connection_lost(self, exc: Exception | None) -> None:
        self._closed = True
        if self._app is not None:
            self._app.exit()

    def pause_writing(self) -> None:
        log.debug("session %s: output paused (client not reading)", self._username)
        self._flow.update(now=asyncio.get_running_loop().time(), channel=True)

    def resume_writing(self) -> None:
        if self._flow.update(now=asyncio.get_running_loop().time(), channel=False):
            self._resumed()

    def link_writing(self, paused: bool) -> None:
        """The TCP connection under the channel filled up or emptied (server/session/write_flow.py)."""
        if self._flow.update(now=asyncio.get_running_loop().time(), link=paused):
            self._resumed()

    def _resumed(self) -> None:
        log.debug("session %s: output resumed", self._username)
        if self._need_repaint and self._app is not None:
            self._need_repaint = False
            self._app.call_later(self._repaint_everything)

    def _repaint_everything(self) -> None:
        """Frames were dropped while the client was not reading: its screen is stale.

        A plain refresh re-renders only what Textual thinks changed, so the whole
        screen region is marked dirty and sent again.
        """
        if self._app is None:
            return
        screen = self._app.screen
        screen.refresh(screen.region)

    def set_lite(self, on: bool) -> None:
        """Lite mode on or off: 16 colours (or none), no mouse tracking; the app redraws."""
        app = self._app
        if app is None:
            return
        term = self._term or ""
        app.console = make_console(color_system(term, self._env, on), term or "xterm")
        if self._driver is not None:
            self._driver.set_mouse(not on)

    # -- the link the driver writes through --------------------------------------------
    def attach(self, driver: ChannelDriver) -> None:
        self._driver = driver

    def write(self, data: str) -> None:
        self._buf.append(data)
        if not self._opened:
            if DRAWS.search(data) is None:
                if self._opening is None:
                    self._opening = asyncio.get_running_loop().call_later(OPENING_HOLD, self._open)
                return
            self._open()
            return
        self._schedule_flush()

    def _open(self) -> None:
        """The first screen came (or OPENING_HOLD passed): output flows as it is written."""
        self._opened = True
        if self._opening is not None:
            self._opening.cancel()
            self._opening = None
        self._schedule_flush()

    def _schedule_flush(self) -> None:
        if not self._flush_scheduled:
            self._flush_scheduled = True
            asyncio.get_running_loop().call_soon(self._flush)

    def _flush(self) -> None:
        self._flush_scheduled = False
        if not self._buf:
            return
        text = "".join(self._buf)
        self._buf.clear()
        data = (to_ascii(text) if self._ascii else text).encode("utf-8")
        if self._closed or self._chan is None:
            return
        if self._flow.paused:  # the client is not reading: skip this frame, repaint on resume
            self._need_repaint = True
            return
        self.bytes_out += len(data)
        action_trace.mark("written", self._conn_id, n=len(data))
        try:
            self._chan.write(data)
        except (BrokenPipeError, asyncssh.Error, OSError):
            self._closed = True

    def close(self, reason: str | None = None) -> None:
        """End the session; with a reason the player is told it on screen first (briefly)."""
        if self._app is None:
            return
        if reason in FAREWELL and self._app.is_running and not self._closed:
            self._app.call_later(self._app.farewell, reason)
        else:
            self._app.exit(result=reason)

    # -- the watchdog: clients that stopped reading, players idle in the lobby -----------
    WATCHDOG_PERIOD = 5.0

    def _schedule_watchdog(self) -> None:
        loop = asyncio.get_running_loop()
        self._watchdog = loop.call_later(self.WATCHDOG_PERIOD, self._check)

    def _check(self) -> None:
        cfg = self._ctx.config
        now = asyncio.get_running_loop().time()
        chan = self._chan
        if self._closed or chan is None:
            return
        since = self._flow.since
        if unsent(chan, self.transport) > cfg.output_limit or (
            since is not None and now - since > cfg.stalled_reader_timeout
        ):
            log.warning("session %s: not reading its output; disconnected", self._username)
            self._closed = True
            chan.close()
            if self._app is not None:
                self._app.exit()
            return
        app = self._app
        in_lobby = app is not None and app.model.table_id is None
        if in_lobby and now - self._last_input > cfg.lobby_idle_timeout:
            self.close("idle")
            return
        self._schedule_watchdog()
