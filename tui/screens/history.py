"""My games: the finished games of this player, and a replay of each, hand by hand.

Both screens draw only what the server sends (``GamesList``, ``ReplayStep``): the
replay is the game's logged events, one hand per request, all cards shown.
"""
from __future__ import annotations

import time
from typing import TYPE_CHECKING

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import DataTable, RichLog, Static

import protocol as p
from tui.cards import card_text
from tui.event_text import log_lines
from tui.screens.base import TrucoScreen, unless_popped
from tui.widgets.keybar import KeyBar
from tui.table_model import TableModel

if TYPE_CHECKING:
    from tui.app import TrucoApp


def ask_proof(app: TrucoApp, game: p.GameSummary) -> None:
    """The proof of ``game``'s deals: the app checks it and shows the result when it comes."""
    app.send(p.ProveDeals(table_id=game.table_id, match_no=game.match_no))


class HistoryScreen(TrucoScreen[None]):
    BINDINGS = [("escape", "close", ""), ("q", "close", ""), ("enter", "replay", ""),
                ("v", "verify", ""), ("s", "stats", ""), ("t", "leaderboard", "")]

    def __init__(self) -> None:
        super().__init__()
        self.games: list[p.GameSummary] = []


    def compose(self) -> ComposeResult:
        yield Static(id="h-title")
        yield DataTable(id="h-games", cursor_type="row", zebra_stripes=False)
        yield Static(id="h-status")
        yield KeyBar(id="h-keys")

    @unless_popped
    def on_mount(self) -> None:
        title = Text(no_wrap=True, overflow="ellipsis")
        title.append(" truco-ssh ", style="reverse bold")
        title.append(" " + self.tr("history.title"))
        self.query_one("#h-title", Static).update(title)
        table = self.query_one("#h-games", DataTable)
        # The score before the players: at 60 columns it is in view, the names cut at the edge
        for key, width in (("when", 16), ("title", 14), ("game", 11), ("score", 7), ("players", 22)):
            table.add_column(self.tr(f"history.col.{key}"), key=key, width=width)
        self.query_one("#h-status", Static).update(Text(self.tr("history.loading"), style="dim"))
        self.query_one("#h-keys", KeyBar).show(
            [("Enter", self.tr("key.replay")), ("v", self.tr("key.verify")), ("s", self.tr("key.stats")),
             ("t", self.tr("key.leaderboard")), ("Esc", self.tr("key.back_to_lobby"))]
        )
        table.focus()
        self.app.send(p.MyGames())

    def server_changed(self, msg: p.Message) -> None:
        if isinstance(msg, p.GamesList) and self.is_mounted:
            self.games = list(msg.games)
            table = self.query_one("#h-games", DataTable)
            table.clear()
            for i, game in enumerate(self.games):
                when = time.strftime("%Y-%m-%d %H:%M", time.localtime(game.finished_at))
                table.add_row(
                    Text(when), Text(game.title, no_wrap=True, overflow="ellipsis"),
                    Text(self.tr(f"variant.{game.variant}"), no_wrap=True, overflow="ellipsis"),
                    Text("-".join(str(x) for x in game.scores)),
                    Text(", ".join(game.seats), no_wrap=True, overflow="ellipsis"),
                    key=str(i),
                )
            status = "" if self.games else self.tr("history.empty")
            self.query_one("#h-status", Static).update(Text(status, style="dim"))

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        self.action_replay()

    def _selected(self) -> p.GameSummary | None:
        table = self.query_one("#h-games", DataTable)
        if not self.games or table.cursor_row is None or not 0 <= table.cursor_row < len(self.games):
            return None
        return self.games[table.cursor_row]

    def action_replay(self) -> None:
        if (game := self._selected()) is not None:
            self.app.push_screen(ReplayScreen(game))

    def action_verify(self) -> None:
        if (game := self._selected()) is not None:
            ask_proof(self.app, game)

    def action_stats(self) -> None:
        from tui.screens.stats import StatsScreen

        self.app.push_screen(StatsScreen())

    def action_leaderboard(self) -> None:
        from tui.screens.stats import my_leaderboard

        self.app.push_screen(my_leaderboard(self.app.model))

    def action_close(self) -> None:
        self.dismiss(None)


class ReplayScreen(TrucoScreen[None]):
    BINDINGS = [
        ("escape", "close", ""), ("q", "close", ""),
        ("n", "step(1)", ""), ("right", "step(1)", ""), ("space", "step(1)", ""),
        ("p", "step(-1)", ""), ("left", "step(-1)", ""), ("v", "verify", ""),
    ]

    def __init__(self, game: p.GameSummary) -> None:
        super().__init__()
        self.game = game
        self.hand = 1
        self.total = max(1, game.hands)
        self.step: p.ReplayStep | None = None


    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(id="r-title")
            yield Static(id="r-hands")
            yield RichLog(id="r-log", markup=False, wrap=True, max_lines=500, auto_scroll=False,
                          min_width=1)  # wrapped to the pane, not to 78 columns (RichLog's default)
        yield KeyBar(id="r-keys")

    @unless_popped
    def on_mount(self) -> None:
        self.query_one("#r-keys", KeyBar).show([
            ("n/→", self.tr("key.next_hand")), ("p/←", self.tr("key.prev_hand")),
            ("v", self.tr("key.verify")), ("Esc", self.tr("key.close")),
        ])
        self._ask()

    def _ask(self) -> None:
        self._draw_title()
        self.app.send(
            p.ReplayHand(table_id=self.game.table_id, match_no=self.game.match_no, hand=self.hand)
        )

    def action_step(self, delta: int) -> None:
        wanted = self.hand + delta
        if 1 <= wanted <= self.total:
            self.hand = wanted
            self._ask()

    def action_close(self) -> None:
        self.dismiss(None)

    def action_verify(self) -> None:
        ask_proof(self.app, self.game)

    def server_changed(self, msg: p.Message) -> None:
        if not isinstance(msg, p.ReplayStep) or not self.is_mounted:
            return
        if msg.game.table_id != self.game.table_id or msg.game.match_no != self.game.match_no:
            return
        self.step = msg
        self.hand, self.total = msg.hand, max(1, msg.hands)
        self._draw()

    def _model(self) -> TableModel:
        """A read-only table model that only knows the names and teams (no seat of mine)."""
        n = len(self.game.seats)
        model = TableModel(self.game.table_id)
        model.update = p.TableUpdate(
            table_id=self.game.table_id, seq=0, seat=None,
            seats=tuple(p.SeatInfo(name=name) for name in self.game.seats),
            view=p.TableView(variant=self.game.variant, teams=tuple(s % 2 for s in range(n))),
        )
        return model

    def _draw_title(self) -> None:
        title = Text(no_wrap=True, overflow="ellipsis")
        title.append(" truco-ssh ", style="reverse bold")
        title.append(" " + self.tr("replay.title", title=self.game.title,
                                   game=self.tr(f"variant.{self.game.variant}"),
                                   n=self.hand, total=self.total))
        self.query_one("#r-title", Static).update(title)

    def _draw(self) -> None:
        assert self.step is not None
        self._draw_title()
        french = self.step.card_notation == "french"
        model = self._model()
        dealt = next((e for e in self.step.events if isinstance(e, p.HandDealt)), None)
        hands = Text()
        for seat, cards in enumerate(dealt.hands if dealt is not None else ()):
            hands.append(f" {model.name(seat)[:14]:<14} ", style="bold")
            for card in cards or []:
                hands.append_text(card_text(str(card), french=french))
                hands.append(" ")
            hands.append("\n")
        if dealt is not None and dealt.face_up:
            face_up = f"table.face_up.{self.game.variant}"
            hands.append(" " + self.tr(face_up if self.tr.has_default(face_up) else "table.face_up") + " ")
            hands.append_text(card_text(dealt.face_up, french=french))
        self.query_one("#r-hands", Static).update(hands)
        log = self.query_one("#r-log", RichLog)
        log.clear()
        for line in log_lines(self.tr, model, self.step.events, french):
            log.write(line)
