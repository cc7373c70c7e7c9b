"""The table's log (what happened, in words) and the chat pane beside it."""
from __future__ import annotations

from typing import Iterable

from rich.text import Text

import protocol as p
from protocol.deal_proof import SEEN_MIN
from tui.event_text import HandContext, log_lines_after
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

    _hand = HandContext()  # what the hand of the last event written has told

    def write_events(self, model: TableModel, entries: Iterable[p.LogEvent]) -> None:
        """Each update's events after the last's: their hand's earlier events (a bet refused
        since, the points so far) are kept, so its closing line adds them all up."""
        lines, self._hand = log_lines_after(self.tr, model, entries, french(model), self.lite, self._hand)
        self.write_lines(lines)

    def clear(self, seal: p.DealSeal | None = None) -> None:
        """Empty, then the match's deal seal if there is one (``write_seal``)."""
        super().clear()
        self._hand = HandContext()
        if seal is not None:
            self.write_seal(seal)

    def write_seal(self, seal: p.DealSeal) -> None:
        """The match's commitment as it begins, and where to check the deals once it is over."""
        said = (self.tr("table.deals_revealed") if seal.secret
                else self.tr("table.deals_sealed", value=seal.commitment[:SEEN_MIN]))
        self.write(Text(said, style="dim"))

    def write_chat(self, line: p.ChatLine) -> None:
        self.write(chat_text(line), chat=True)
