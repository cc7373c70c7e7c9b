"""The operators' screen (``O`` in the lobby, for operators only): who is online, the bans and
mutes in force, the reports and the operators' log, one list at a time, with a key for each
action on the selected line, and the slash commands' line (tui/operator_line.py) for the rest.

It draws only what the server answers (``OnlineReport``, ``RestrictionsReport``,
``ReportsReport``, ``LogReport``) and asks again after each action the server carried out
(``Done``); the server checks every command against its operators.
"""
from __future__ import annotations

from typing import Any, Callable

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.widgets import DataTable, Input, Static

import protocol as p
from protocol import moderation as m
from tui.operator_line import MUTE_MINUTES, Usage, operator_command
from tui.operator_report import report_lines, short_key, when_text, where_text
from tui.screens.base import TrucoScreen, unless_popped
from tui.widgets.keybar import KeyBar

VIEWS = ("online", "bans", "reports", "log")
COLUMNS = {  # per list: (column, width); what tells rows apart first, for 60 columns
    "online": (("name", 14), ("where", 16), ("address", 15), ("key", 17), ("notes", 10)),
    "bans": (("number", 4), ("what", 5), ("target", 17), ("reason", 20), ("until", 20), ("on", 8)),
    "reports": (("number", 4), ("name", 14), ("reporters", 4), ("reason", 9), ("last_by", 14), ("text", 24)),
    "log": (("when", 20), ("action", 10), ("target", 17), ("reason", 20), ("by", 17)),
}
ACTS_ON_PLAYERS = ("kick", "mute", "ban")
WHOLE_KEYS_FROM = 150  # columns from which a key's whole fingerprint is shown (SHA256: and 43)
LIST_LIMIT = 200


class OperatorScreen(TrucoScreen[None]):
    DEFAULT_CSS = """
    OperatorScreen #op-list { height: 1fr; }
    OperatorScreen #op-status { height: auto; }
    """
    BINDINGS = [
        Binding("escape", "close", "", show=False),
        Binding("1", "show('online')", "", show=False), Binding("2", "show('bans')", "", show=False),
        Binding("3", "show('reports')", "", show=False), Binding("4", "show('log')", "", show=False),
        Binding("k", "kick", "", show=False), Binding("m", "mute", "", show=False),
        Binding("b", "ban", "", show=False), Binding("u", "lift", "", show=False),
        Binding("s", "settle", "", show=False),
        Binding("enter", "open", "", show=False), Binding("colon", "command", "", show=False),
        Binding("R", "refresh", "", show=False),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.view = "online"
        self.answer: p.Event | None = None  # the list shown


    def compose(self) -> ComposeResult:
        yield Static(id="op-title")
        yield DataTable(id="op-list", cursor_type="row", zebra_stripes=False)
        yield Static(id="op-status")
        yield Input(id="op-line", placeholder=self.tr("operator.line_placeholder"), max_length=400)
        yield KeyBar(id="op-keys")

    @unless_popped
    def on_mount(self) -> None:
        self.action_show("online")

    # -- the lists -------------------------------------------------------------------------
    def action_show(self, view: str) -> None:
        self.view = view if view in VIEWS else "online"
        self.answer = None
        title = Text(no_wrap=True, overflow="ellipsis")
        title.append(" " + self.tr("operator.title") + " ", style="reverse bold")
        for n, name in enumerate(VIEWS, 1):  # the list shown in reverse video
            title.append(" ")
            title.append(f"{n} {self.tr(f'operator.view.{name}')}", style="reverse" if name == self.view else "")
        self.query_one("#op-title", Static).update(title)
        table = self.query_one("#op-list", DataTable)
        table.clear(columns=True)
        for key, width in COLUMNS[self.view]:
            if self._whole_keys() and key in ("key", "target", "by"):
                width = 51
            table.add_column(self.tr(f"operator.col.{key}"), key=key, width=width)
        self._status(self.tr("stats.loading"))
        self._keys()
        table.focus()
        self.action_refresh()

    def action_refresh(self) -> None:
        asks: dict[str, p.Command] = {"online": m.Online(), "bans": m.ListRestrictions(),
                                      "reports": m.Reports(limit=LIST_LIMIT), "log": m.ModerationLog(limit=LIST_LIMIT)}
        self.app.send(asks[self.view])

    def server_changed(self, msg: p.Message) -> None:
        if not self.is_mounted:
            return
        if isinstance(msg, m.Done):
            self.action_refresh()  # what it did shows in the list
            return
        reports: dict[str, type[p.Event]] = {"online": m.OnlineReport, "bans": m.RestrictionsReport, "reports": m.ReportsReport,
                  "log": m.LogReport}
        wanted = reports[self.view]
        if isinstance(msg, wanted):
            self.answer = msg
            self._fill()

    def _whole_keys(self) -> bool:
        return self.app.size.width >= WHOLE_KEYS_FROM

    def _fill(self) -> None:
        table = self.query_one("#op-list", DataTable)
        table.clear()
        tr, answer = self.tr, self.answer
        whole = self._whole_keys()

        def shown(key: str) -> str:  # a fingerprint as the width allows
            return key if whole else short_key(key)
        rows: list[tuple[str, ...]] = []
        if isinstance(answer, m.OnlineReport):
            rows = [(line.name or f"({line.conn_id})", where_text(line.table_id, line.seat, tr), line.address,
                     shown(line.fingerprint) or tr("operator.guest"),
                     " ".join(tr(f"operator.{flag}") for flag, on in (("operator", line.operator),
                                                                       ("muted", line.muted)) if on))
                    for line in answer.lines]
        elif isinstance(answer, m.RestrictionsReport):
            rows = [(str(line.number), line.what, shown(line.target), line.reason,
                     when_text(line.until) if line.until else tr("operator.for_good"), line.on)
                    for line in answer.lines]
        elif isinstance(answer, m.ReportsReport):
            rows = [(str(line.number), line.reported, str(line.reporters), self._reason(line.reason), line.by,
                     line.text) for line in answer.lines]
        elif isinstance(answer, m.LogReport):
            rows = [(when_text(line.at), line.action, shown(line.target), line.reason, shown(line.by))
                    for line in answer.lines]
        for n, row in enumerate(rows):  # as written by players: never markup
            table.add_row(*(Text(cell, no_wrap=True, overflow="ellipsis") for cell in row), key=str(n))
        self._status("" if rows else tr(f"operator.empty.{self.view}"))
        self._keys()

    def _reason(self, code: str) -> str:
        """A report's reason in the operator's language (a code this client does not know: as sent)."""
        return self.tr(f"operator.reason_{code}") if code in m.REPORT_REASONS else code

    def _status(self, text: str) -> None:
        self.query_one("#op-status", Static).update(Text(text, style="dim"))

    def _keys(self) -> None:
        tr = self.tr
        keys = [("1-4", tr("operator.key.lists"))]
        if self.view in ("online", "reports"):
            keys += [("k", tr("operator.key.kick")), ("m", tr("operator.key.mute")), ("b", tr("operator.key.ban"))]
        if self.view == "bans":
            keys.append(("u", tr("operator.key.lift")))
        if self.view == "reports":
            keys += [("Enter", tr("operator.key.evidence")), ("s", tr("operator.key.settle"))]
        keys += [(":", tr("operator.key.command")), ("R", tr("operator.key.refresh")), ("Esc", tr("key.back_to_lobby"))]
        self.query_one("#op-keys", KeyBar).show(keys)

    # -- actions on the selected line -----------------------------------------------------
    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if isinstance(self.focused, Input) and action != "close":
            return False  # typing a command: every key is text
        if action in ACTS_ON_PLAYERS:
            return self.view in ("online", "reports")
        if action == "lift":
            return self.view == "bans"
        if action in ("open", "settle"):
            return self.view == "reports"
        return True

    def _selected(self) -> Any:
        lines = getattr(self.answer, "lines", ())
        row = self.query_one("#op-list", DataTable).cursor_row
        return lines[row] if lines and row is not None and 0 <= row < len(lines) else None

    def _player(self) -> tuple[str, str, str] | None:
        """(name, key fingerprint or "", address or "") of the selected line's player."""
        line = self._selected()
        if isinstance(line, m.OnlineLine) and line.name:
            return line.name, line.fingerprint, line.address
        if isinstance(line, m.ReportLine):
            return line.reported, line.reported_key, line.reported_address
        return None

    def _ask(self, title: str, placeholder: str, then: Callable[[str], object]) -> None:
        from tui.screens.prompt import PromptScreen

        def answered(answer: str | None) -> None:
            if answer is not None:  # (Esc: nothing is done)
                then(answer)

        self.app.push_screen(PromptScreen(title, placeholder, m.REASON_MAX + 8,
                                          [("Enter", self.tr("operator.key.do")), ("Esc", self.tr("key.cancel"))],
                                          empty_ok=True), answered)

    def action_kick(self) -> None:
        if (player := self._player()) is None:
            return
        name = player[0]
        self._ask(self.tr("operator.ask.kick", name=name), self.tr("operator.ask.reason"),
                  lambda reason: self.app.send(m.Kick(name=name, reason=reason[:m.REASON_MAX])))

    def action_mute(self) -> None:
        self._restrict(m.MUTE)

    def action_ban(self) -> None:
        self._restrict(m.BAN)

    def _restrict(self, what: str) -> None:
        """A ban or a mute of the selected player: by their key, else (a guest) their address."""
        if (player := self._player()) is None:
            return
        name, fingerprint, address = player
        on, target = (m.ON_KEY, fingerprint) if fingerprint else (m.ON_ADDRESS, address) if address \
            else (m.ON_NAME, name)

        def send(answer: str) -> None:
            minutes, reason = minutes_and_reason(answer, 0 if what == m.BAN else MUTE_MINUTES)
            self.app.send(m.Restrict(what=what, on=on, target=target, minutes=minutes, reason=reason))

        self._ask(self.tr(f"operator.ask.{what}", name=name), self.tr(f"operator.ask.{what}_minutes"), send)

    def action_lift(self) -> None:
        line = self._selected()
        if isinstance(line, m.RestrictionLine):
            self.app.send(m.Lift(number=line.number))

    def action_settle(self) -> None:
        line = self._selected()
        if isinstance(line, m.ReportLine):
            number = line.number
            self._ask(self.tr("operator.ask.settle", name=line.reported, number=number),
                      self.tr("operator.ask.settle_reason"),
                      lambda reason: self.app.send(m.SettleReports(number=number, reason=reason[:m.REASON_MAX])))

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        if self.view == "reports":  # (Enter on the list is the table's own key)
            self.action_open()

    def action_open(self) -> None:
        line = self._selected()
        if isinstance(line, m.ReportLine):
            from tui.screens.help import HelpScreen

            body = "\n".join(report_lines(m.ReportsReport(lines=(line,)), self.tr, whole_keys=False))
            self.app.push_screen(HelpScreen(body, self.tr("operator.view.reports")))

    # -- the command line ------------------------------------------------------------------
    def action_command(self) -> None:
        line = self.query_one("#op-line", Input)
        line.value = "/"
        line.focus()
        line.cursor_position = 1

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        text = event.value.strip()
        event.input.value = ""
        self.query_one("#op-list", DataTable).focus()
        if not text:
            return
        try:
            command = operator_command(text if text.startswith("/") else "/" + text)
        except Usage as usage:
            self.app.notify_text(self.tr("operator.usage", usage=str(usage)), severity="error", timeout=10)
            return
        if command is not None:
            self.app.send(command)

    def action_close(self) -> None:
        if isinstance(self.focused, Input):
            self.query_one("#op-list", DataTable).focus()
            return
        self.dismiss(None)


def minutes_and_reason(answer: str, default: int) -> tuple[int, str]:
    """"30 spam in the chat" -> (30, "spam in the chat"); no number first: ``default`` minutes."""
    first, _, rest = answer.strip().partition(" ")
    if first.isdigit():
        return max(0, min(m.MINUTES_MAX, int(first))), rest.strip()[:m.REASON_MAX]
    return default, answer.strip()[:m.REASON_MAX]
