"""The table's log (what happened, in words) and the chat pane beside it."""
from __future__ import annotations

from typing import Iterable

from rich.text import Text

import protocol as p
from tui.event_text import log_lines
from tui.table_model import TableModel
from tui.widgets.log_panel import LogPanel
from tui.widgets.table.part import TablePart, french


def chat_text(line: p.ChatLine) -> Text:
    """A chat line: the sender in colour; both parts as Text (never markup)."""
    text = Text(line.sender, style="bold magenta")
    text.append(": ")
    text.append(line.text)
    return text


class TableLog(LogPanel, TablePart):
    """``#t-log`` (and ``#t-chat-log``, which only shows the chat lines)."""

    def write_events(self, model: TableModel, entries: Iterable[p.LogEvent]) -> None:
        self.write_lines(log_lines(self.tr, model, entries, french(model), self.lite))

    def write_chat(self, line: p.ChatLine) -> None:
        self.write(chat_text(line), chat=True)
