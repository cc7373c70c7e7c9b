"""A small dialog asking for one line of text."""
from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Input, Static

from tui.screens.base import TrucoModalScreen
from tui.widgets.keybar import KeyBar


class PromptScreen(TrucoModalScreen[str | None]):
    BINDINGS = [("escape", "cancel", "")]

    def __init__(self, title: str, placeholder: str, max_length: int, keys: list[tuple[str, str]],
                 empty_ok: bool = False):
        """``empty_ok``: Enter on an empty line answers "" (else None, as Esc does)."""
        super().__init__()
        self._empty_ok = empty_ok
        self._title = title
        self._placeholder = placeholder
        self._max_length = max_length
        self._keys = keys

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog small"):
            yield Static(Text(self._title, style="bold"))
            yield Input(placeholder=self._placeholder, max_length=self._max_length)
            bar = KeyBar()
            bar.show(self._keys)
            yield bar

    def on_input_submitted(self, event: Input.Submitted) -> None:
        value = event.value.strip()
        self.dismiss(value if value or self._empty_ok else None)

    def action_cancel(self) -> None:
        self.dismiss(None)
