"""A Textual driver bound to one SSH channel, running in the server's event loop.

Textual's stock drivers own a process (threads, signal handlers, the real
stdin/stdout); here hundreds of apps share one loop, so input bytes are pushed
in by the SSH session (``feed``) and output goes to the session's ``write``.
Uses private Textual APIs (Textual's input parser, and whether it holds bytes for a
pause) through tui/textual_private.py: Textual is pinned exactly in pyproject.toml for that
reason.
"""
from __future__ import annotations

import asyncio
from codecs import getincrementaldecoder
from typing import TYPE_CHECKING, Any, Protocol

from textual import constants, events
from textual.driver import Driver
from textual.geometry import Size

from tui.textual_private import XTermParser, parser_waiting


if TYPE_CHECKING:
    from textual.app import App


class TerminalLink(Protocol):
    """What the SSH session offers the driver."""

    def write(self, data: str) -> None: ...

    def attach(self, driver: "ChannelDriver") -> None: ...


# Click-only mouse reporting (1000) in SGR form (1006): no motion events, which
# would cost bandwidth on every mouse move.
_MOUSE_ON = "\x1b[?1000h\x1b[?1006h"
_MOUSE_OFF = "\x1b[?1000l\x1b[?1006l"


class ChannelDriver(Driver):
    """Driver whose input and output are an SSH channel.

    The app must carry a ``terminal_link`` attribute (a ``TerminalLink``) set
    before ``run_async``.
    """

    def __init__(
        self, app: "App[Any]", *, debug: bool = False, mouse: bool = True,
        size: tuple[int, int] | None = None,
    ) -> None:
        super().__init__(app, debug=False, mouse=mouse, size=size)
        self._link: TerminalLink = app.terminal_link  # type: ignore[attr-defined]
        self._parser = XTermParser(False)
        self._decode = getincrementaldecoder("utf-8")(errors="replace").decode
        self._tick_handle: asyncio.TimerHandle | None = None
        self._input_enabled = False

    def write(self, data: str) -> None:
        self._link.write(data)

    def flush(self) -> None:
        """Writes are batched per loop iteration by the session."""

    def start_application_mode(self) -> None:
        w = self.write
        w("\x1b[?1049h")  # alternate screen
        if self._mouse:
            w(_MOUSE_ON)
        w("\x1b[?25l")  # hide cursor
        w("\x1b[?2004h")  # bracketed paste
        w("\x1b[?7l")  # no autowrap
        # No Resize here: the App dispatches its own first Resize from our size (App.size
        # reads the driver's) right after this. A second one of the same size would be kept
        # by App._on_resize as pending and re-sent to every screen on the next idle: a second
        # full layout of whichever screen is up then (the lobby, at connect).
        self._input_enabled = True
        self._link.attach(self)

    def disable_input(self) -> None:
        self._input_enabled = False
        if self._tick_handle is not None:
            self._tick_handle.cancel()
            self._tick_handle = None

    def stop_application_mode(self) -> None:
        self.disable_input()
        if self._mouse:
            self.write(_MOUSE_OFF)
        self.write("\x1b[?2004l\x1b[?7h\x1b[?1049l\x1b[?25h")

    def set_mouse(self, on: bool) -> None:
        """Turn click reporting on or off while running (lite mode has none)."""
        if on != self._mouse:
            self._mouse = on
            self.write(_MOUSE_ON if on else _MOUSE_OFF)

    def send_message(self, message: Any) -> None:
        self._app.post_message(message)  # same thread, same loop

    def feed(self, data: bytes) -> None:
        """Bytes typed by the player, as the SSH session received them."""
        if not self._input_enabled:
            return
        for event in self._parser.feed(self._decode(data)):
            self.process_message(event)
        self._arm_tick()

    def _arm_tick(self) -> None:
        """A lone ESC (or a sequence cut short) only becomes keys after a pause: look again
        once the parser's pause is over. Bytes fed meanwhile move that moment later, so a
        tick that comes too early arms the next one (else the held keys would wait forever)."""
        if parser_waiting(self._parser) and self._tick_handle is None:
            self._tick_handle = asyncio.get_running_loop().call_later(
                constants.ESCAPE_DELAY + 0.01, self._tick
            )

    def _tick(self) -> None:
        self._tick_handle = None
        if not self._input_enabled:
            return
        for event in self._parser.tick():
            self.process_message(event)
        self._arm_tick()

    def resize(self, width: int, height: int) -> None:
        if (width, height) == self._size:
            # The terminal changed, to the size the app has already (a window-change at the
            # same size, or one clamped to the same bounds): Textual ignores a Resize of the
            # same size, but the terminal may have reflowed or cut what it showed. Repaint
            # the screen whole, as for any resize (no layout: nothing moved).
            self._app.refresh()
            return
        self._size = (width, height)
        size = Size(width, height)
        self._app.post_message(events.Resize(size, size))
