"""The bets line: what the hand is worth, the bets waiting for an answer, the face-up card,
and at the end of a hand what it scored."""
from __future__ import annotations

from rich.text import Text

from tui.bets import pending_bets
from tui.cards import card_text
from tui.event_text import hand_summary
from tui.table_model import TableModel
from tui.widgets.panels import WrapPanel
from tui.widgets.table.part import TablePart, french


class BetsLine(WrapPanel, TablePart):
    """``#t-bets`` (in the waiting room: how many seats are free and the join code)."""

    def update_from(self, model: TableModel) -> None:
        view = model.view
        if view.phase in ("deal", "match_over") or view.game_winner is not None:
            # Between hands the line says who scored what in the hand just played, in the
            # place of what it was worth (the summary says that too). One row where it fits:
            # a second row would lay the whole screen out at every hand's end and again at
            # the next deal, for every seat (a seventh of a terminal seat's CPU in play).
            summary = hand_summary(self.tr, model, french(model), self.lite)
            if summary:
                summary.no_wrap = False
                self.show(summary)
                return
        variant = view.variant
        line = Text(no_wrap=False)
        line.append(self.tr("table.hand_worth", n=view.truco_value), style="bold")
        for part in pending_bets(self.tr, model):  # each names the seat that made the bet
            line.append("  " + part.text, style=part.style)
        ley_seats = view.ley_seats
        if ley_seats and view.phase != "deal":
            names = ", ".join(model.name(s) for s in ley_seats)
            line.append("  " + self.tr("table.a_ley", names=names), style="magenta")
        if view.face_up:
            line.append("  " + self.tr(f"table.face_up.{variant}") if self.tr.has_default(f"table.face_up.{variant}")
                        else "  " + self.tr("table.face_up"))
            line.append(" ")
            line.append_text(card_text(view.face_up, french=french(model), ascii_only=self.lite))
        self.show(line)

    def show_waiting(self, free: int, code: str, line: str = "", commands: tuple[str, ...] = ()) -> None:
        """``line``: what the table waits for (else: for the free seats to be taken);
        ``commands``: the whole ssh lines that join it (the host's table), each on a line of
        its own so that none breaks at a narrow terminal."""
        # The bets line spans the screen: the code is never split from its label there.
        waiting = Text(line or self.tr("table.waiting_for", n=free), style="bold")
        if code:  # for as long as the table waits: friends need it to sit down
            waiting.append("\n" + self.tr("table.code_title", code=code), style="bold yellow")
            # No toast besides: it covered the bot-level dialog at 60x20 (the screen says it all).
            if commands:
                waiting.append("\n" + self.tr("table.code_how_commands", code=code), style="")
                for command in commands:
                    waiting.append("\n  " + command, style="bold")
            else:
                waiting.append("\n" + self.tr("table.code_how", code=code), style="")
        self.show(waiting)
