"""Shown when the SSH username cannot be used as a display name, or was refused."""
from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Input, Static

import protocol as p
from protocol.text import NAME_MAX, name_stem, usable_name
from tui.screens.base import TrucoScreen
from tui.widgets.keybar import KeyBar


class ChooseNameScreen(TrucoScreen[None]):
    BINDINGS = [("escape", "app.quit", "")]

    def __init__(self, name: str, reason: str, suggestion: str) -> None:
        super().__init__()
        self._asked = name  # (not ``_name``: a Textual node's own name)
        self._reason = reason
        # The name of the login (the SSH username) refused, as opposed to one typed here: a
        # key was not used for a username that names another's key (server/ssh/server.py,
        # validate_public_key), so the player is a guest whatever they pick now.
        self._at_login = True
        stem = name_stem(name) if reason != "join_code" else ""  # a table's code is no name
        self._suggestion = suggestion or (stem if usable_name(stem) else "")

    def compose(self) -> ComposeResult:
        tr = self.app.tr
        with Vertical(classes="dialog"):
            yield Static(Text(tr("name.title"), style="bold"), id="name-title")
            yield Static(self._explanation(), id="name-why")
            # Joining with a table's code as the user name: the tip to connect as NAME@host
            # would lose the table, so the rules alone.
            rules = "name.rules_code" if self._reason == "join_code" else "name.rules"
            yield Static(Text(tr(rules)), id="name-rules")
            yield Input(value=self._suggestion, max_length=NAME_MAX, id="name-input")
            yield Static("", id="name-error")
        bar = KeyBar()
        bar.show([("Enter", tr("key.accept")), ("Esc", tr("key.quit"))])
        yield bar

    def _explanation(self) -> Text:
        tr = self.app.tr
        key = f"name.reason.{self._reason}" if self._reason else "name.reason.unusable"
        if self._reason == "reserved_key" and self._at_login:
            key = "name.reason.reserved_key_login"
        asked = self._asked  # quoted whole up to twice the longest name, else cut where it says so
        shown = asked if len(asked) <= NAME_MAX * 2 else asked[:NAME_MAX * 2 - 1] + "…"
        return Text(tr(key, name=shown, max=NAME_MAX))

    def refused(self, msg: p.NameRefused) -> None:
        self._asked, self._reason, self._at_login = msg.name, msg.reason, False
        self.query_one("#name-why", Static).update(self._explanation())
        if msg.suggestion:
            self.query_one("#name-input", Input).value = msg.suggestion
        self.query_one("#name-error", Static).update("")

    def on_input_submitted(self, event: Input.Submitted) -> None:
        name = event.value.strip()
        if not usable_name(name):
            tr = self.app.tr
            self.query_one("#name-error", Static).update(Text(tr("name.invalid"), style="bold red"))
            return
        self.app.send(p.ClaimName(name=name, lang=self.app.tr.lang))
