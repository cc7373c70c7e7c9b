"""A yes/no question before something that cannot be taken back (quitting, ending the
host's table for everyone)."""
from __future__ import annotations

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Static

from tui.screens.base import TrucoModalScreen
from tui.widgets.keybar import KeyBar


class ConfirmScreen(TrucoModalScreen[bool]):
    """``question`` with y (s: sí/sim) for yes, n or Esc for no. ``again`` is the key that
    asked (q in the lobby): pressed a second time it says yes, so "q q" quits."""

    BINDINGS = [("y", "yes", ""), ("s", "yes", ""), ("n", "no", ""), ("escape", "no", "")]

    def __init__(self, question: str, again: str = "") -> None:
        super().__init__()
        self._question = question
        self._again = again

    def compose(self) -> ComposeResult:
        tr = self.app.tr
        with Vertical(classes="dialog small", id="confirm"):
            yield Static(Text(self._question))  # Text: never markup
            bar = KeyBar()
            key = tr("confirm.yes_key")  # the letter of the language's "yes" (y and s both work)
            yes = key + (f" {self._again}" if self._again and self._again != key else "")
            bar.show([(yes, tr("form.yes")), ("n Esc", tr("form.no"))])
            yield bar

    def on_key(self, event: events.Key) -> None:
        if self._again and event.key == self._again:
            event.stop()
            self.dismiss(True)

    def action_yes(self) -> None:
        self.dismiss(True)

    def action_no(self) -> None:
        self.dismiss(False)
