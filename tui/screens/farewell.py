"""Why the session is about to end (the server shuts down, or you logged in elsewhere).

Drawn over whatever screen is up, for a moment, before the app exits: a player at a
table sees the reason on the screen they were looking at, not only the line printed
after the terminal leaves the app's screen (a terminal that closes with ssh, like a
tmux pane, would show nothing at all).
"""
from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Static

from tui.screens.base import TrucoModalScreen

SHOWN_FOR = 1.5  # seconds on screen before the app exits (the server waits for it, bounded)


class FarewellScreen(TrucoModalScreen[None]):
    def __init__(self, reason: str, closing: str) -> None:
        super().__init__()
        self._reason_text = reason
        self._closes_text = closing

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog small", id="farewell"):
            yield Static(Text(self._reason_text, style="bold"))
            yield Static(Text(self._closes_text, style="dim"))
