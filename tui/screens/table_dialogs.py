"""The dialogs opened at the table: leaving it, and the match's end (with the rematch)."""
from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Static

import protocol as p
from tui.event_text import hand_summary, holder_name, score_text, team_name
from tui.screens.base import TrucoModalScreen, unless_popped
from tui.table_model import TableModel
from tui.widgets.keybar import KeyBar
from tui.widgets.table.levels import BOT_ABOUT_KEYS, BOT_LEVEL_KEYS
from tui.widgets.table.status import rematch_text

__all__ = ["OVER_TABLE", "BotLevelScreen", "ConfirmLeaveScreen", "MatchOverScreen", "over_table",
           "rematch_text"]

OVER_TABLE = "-over-table"  # truco.tcss: at the bottom, the table in view above it


def over_table(screen: ModalScreen[Any]) -> ModalScreen[Any]:
    """A dialog opened at the table: drawn over it, leaving the tricks and cards in view."""
    screen.add_class(OVER_TABLE)
    return screen


class ConfirmLeaveScreen(TrucoModalScreen[bool]):
    # Priority: the app runs them as the key comes, before it takes the next key typed with
    # it (a screen's own bindings run later, from the screen's queue), so that the keys
    # after a yes are held for the lobby (action_yes).
    BINDINGS = [Binding(key, action, "", priority=True)
                for key, action in (("y", "yes"), ("s", "yes"), ("n", "no"), ("escape", "no"))]

    def __init__(self, waiting_room: bool = False, rated: bool = True) -> None:
        super().__init__(classes=OVER_TABLE)
        self._waiting_room = waiting_room  # before the game the seat is freed, no bot takes it
        self._rated = rated  # a bot or a guest at the table: leaving costs nothing more

    def compose(self) -> ComposeResult:
        tr = self.app.tr
        with Vertical(classes="dialog small"):
            if self._waiting_room:
                yield Static(Text(tr("table.confirm_leave_waiting")))
            elif not self._rated:
                yield Static(Text(tr("table.confirm_leave_unrated")))
            else:  # told before they leave: what leaving rated matches costs (server/lobby/leavers.py)
                first, second, third = p.LEAVER_WAITS
                yield Static(Text(tr("table.confirm_leave", first=first, second=second, third=third)))
            bar = KeyBar()
            # the letter of the language's "yes" (y and s both work), as every question says it
            bar.show([(tr("confirm.yes_key"), tr("form.yes")), ("n Esc", tr("form.no"))])
            yield bar

    def action_yes(self) -> None:
        # Keys already queued behind this one (typed together) are the lobby's: held from
        # here, as the answer's callback runs only after they were handled (tui/held_keys.py).
        self.app.held_keys.hold()
        self.dismiss(True)

    def action_no(self) -> None:
        self.dismiss(False)


class BotLevelScreen(TrucoModalScreen[str | None]):
    """The level of the bot the owner adds: 1 easy, 2 normal (also Enter), 3 hard."""

    BINDINGS = [("1", "level('easy')", ""), ("2", "level('normal')", ""),
                ("3", "level('hard')", ""), ("enter", "level('normal')", ""),
                ("escape", "cancel", "")]

    def __init__(self) -> None:
        super().__init__(classes=OVER_TABLE)

    def compose(self) -> ComposeResult:
        tr = self.app.tr
        text = Text(tr("table.bot_level_title"))
        for n, level in enumerate(BOT_LEVEL_KEYS, 1):
            text.append(f"\n {n} ", style="bold")
            text.append(tr(BOT_LEVEL_KEYS[level]), style="bold")
            text.append(" - " + tr(BOT_ABOUT_KEYS[level]), style="dim")
        with Vertical(classes="dialog small"):
            yield Static(text)
            bar = KeyBar()
            bar.show([("1 2 3", tr("key.add_bot")), ("Esc", tr("form.cancel"))])
            yield bar

    def action_level(self, level: str) -> None:
        self.dismiss(level)

    def action_cancel(self) -> None:
        self.dismiss(None)


class MatchOverScreen(TrucoModalScreen[None]):
    """Who won, the final score and the last hand's points, over the table (whose last
    trick stays in view); follows the rematch votes and closes when the rematch starts."""

    # The key bar follows these (check_action: a spectator has no rematch to ask for).
    BINDINGS = [Binding("r", "rematch", "key.rematch"), Binding("l", "leave", "key.back_to_lobby"),
                Binding("escape", "close", "key.close", key_display="Esc")]

    def __init__(self, table_id: str) -> None:
        super().__init__(classes=OVER_TABLE)
        self.table_id = table_id

    @property
    def model(self) -> TableModel:
        return self.app.table_model(self.table_id)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "rematch":
            return self._can_ask()  # spectators have no say; an asker waits for the others
        return super().check_action(action, parameters)

    @unless_popped
    def on_mount(self) -> None:
        tr = self.app.tr
        self.query_one("#match-over-keys", KeyBar).follow_bindings(lambda binding: str(tr(binding.description)))

    def compose(self) -> ComposeResult:
        tr = self.app.tr
        model = self.model
        view = model.view
        winner = view.winner
        scores = view.scores or (0, 0)
        games = view.games_won or (0, 0)
        box = Vertical(classes="dialog", id="match-over")
        box.border_title = Text(tr("table.match_over_title"), style="bold")  # Text: never markup
        holders = view.score_holders or tuple((i,) for i in range(len(scores)))
        malas = view.malas
        with box:
            if len(scores) == 2:
                won = tr("log.match_over", team=team_name(tr, model, winner))
            else:  # one score per player (the three-player game): name the players
                won = tr("log.match_over_names", names=", ".join(model.name(s) for s in view.winners))
            yield Static(Text(won, style="bold green"))
            final = " · ".join(
                f"{holder_name(tr, model, entry, holders)} {scores[entry]}"
                + (f" ({score_text(tr, scores[entry], malas)})" if malas else "")
                for entry in range(len(scores))
            )
            yield Static(Text(tr("table.final_score", scores=final)))
            if len(games) == 2 and view.match_games > 1:
                yield Static(Text(tr("table.games", a=games[0], b=games[1]), style="dim"))
            lite = bool(getattr(self.app, "lite", False))
            points = hand_summary(tr, model, view.french, lite)
            if points:  # the last trick is in view above; what it scored is here
                yield Static(Text(tr("table.final_hand", points=points.plain), style="bold yellow"),
                             id="final-hand")
            yield Static(rematch_text(tr, model) or Text(""), id="rematch")
            yield KeyBar(id="match-over-keys")

    def _can_ask(self) -> bool:
        """A seated player who has not asked yet (spectators have no say in a rematch)."""
        update = self.model.update
        seat = self.model.seat
        return update is not None and seat is not None and seat not in update.rematch_votes

    def server_changed(self, msg: p.Message) -> None:
        """Called by the app for every server message (as for every screen in the stack)."""
        if not isinstance(msg, p.TableUpdate) or msg.table_id != self.table_id or not self.is_mounted:
            return
        if not msg.view.match_over:
            if self.app.screen is self:  # (under a help dialog: at the next update on top)
                self.dismiss(None)  # the rematch started
            return
        self.query_one("#rematch", Static).update(rematch_text(self.app.tr, self.model) or Text(""))
        self.refresh_bindings()

    def action_rematch(self) -> None:
        """Ask (or accept); the dialog stays, saying whom the rematch waits for."""
        if self.model.seat is not None:
            self.app.send(p.Rematch(table_id=self.table_id))

    def action_leave(self) -> None:
        self.app.send(p.LeaveTable(table_id=self.table_id))
        self.dismiss(None)

    def action_close(self) -> None:
        self.dismiss(None)
