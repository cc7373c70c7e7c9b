"""Keys and a short guide, in the session's language."""
from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from tui.screens.keybar import KeyBar


class HelpScreen(ModalScreen[None]):
    BINDINGS = [("escape", "close", ""), ("question_mark", "close", ""), ("q", "close", "")]

    def __init__(self, body: str | None = None) -> None:
        super().__init__()
        self._body = body

    def compose(self) -> ComposeResult:
        tr = self.app.tr  # type: ignore[attr-defined]
        box = Vertical(classes="dialog", id="help")
        box.border_title = Text(tr("help.title"), style="bold")  # in the border: one more line of help
        with box:
            yield VerticalScroll(Static(Text(self._body or tr("help.body"))))
            bar = KeyBar()
            bar.show([("Esc", tr("key.close"))])
            yield bar

    def action_close(self) -> None:
        self.dismiss(None)
