"""My stats (``s`` in the lobby) and the leaderboards (``t``): drawn only from what the
server sends (``StatsReport``, ``LeaderboardReport``)."""
from __future__ import annotations

import time

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.widgets import DataTable, Static

import protocol as p
from tui.i18n import Translator
from tui.model import LobbyModel
from tui.screens.base import TrucoScreen, unless_popped
from tui.widgets.keybar import KeyBar


def rating_text(rating: float) -> str:
    return f"{rating:.1f}"


def change_text(change: float | None) -> str:
    return "" if change is None else f"{change:+.1f}"


def _title(tr: Translator, words: str) -> Text:
    title = Text(no_wrap=True, overflow="ellipsis")
    title.append(" truco-ssh ", style="reverse bold")
    title.append(" " + words)
    return title


COMPLETED_WELL = 0.9  # below it a leaderboard marks how often a player leaves


class StatsScreen(TrucoScreen[None]):
    BINDINGS = [
        Binding("escape", "close", ""), Binding("q", "close", ""),
        Binding("t", "leaderboard", ""),
    ]


    def compose(self) -> ComposeResult:
        yield Static(id="st-title")
        yield Static(id="st-totals")
        yield DataTable(id="st-ratings", cursor_type="none", zebra_stripes=False, show_cursor=False)
        yield DataTable(id="st-recent", cursor_type="row", zebra_stripes=False)
        yield KeyBar(id="st-keys")

    @unless_popped
    def on_mount(self) -> None:
        me = self.app.model.me
        self.query_one("#st-title", Static).update(_title(self.tr, f"{self.tr('stats.title')} · {me}"))
        ratings = self.query_one("#st-ratings", DataTable)
        for key, width in (("game", 11), ("players", 9), ("rating", 7), ("games", 8), ("wins", 8)):
            ratings.add_column(self.tr(f"stats.col.{key}"), key=key, width=width)
        recent = self.query_one("#st-recent", DataTable)
        # 60 columns: the match's game is left out (its table's name says enough)
        for key, width in (("when", 8), ("title", 12), ("result", 10), ("points", 6), ("change", 7)):
            recent.add_column(self.tr(f"stats.col.{key}"), key=key, width=width)
        self.query_one("#st-totals", Static).update(Text(self.tr("stats.loading"), style="dim"))
        self.query_one("#st-keys", KeyBar).show(
            [("t", self.tr("key.leaderboard")), ("Esc", self.tr("key.back_to_lobby"))])
        recent.focus()
        self.app.send(p.MyStats())

    def server_changed(self, msg: p.Message) -> None:
        if isinstance(msg, p.StatsReport) and self.is_mounted:
            self.show(msg)

    def show(self, report: p.StatsReport) -> None:
        tr = self.tr
        totals = self.query_one("#st-totals", Static)
        ratings = self.query_one("#st-ratings", DataTable)
        recent = self.query_one("#st-recent", DataTable)
        ratings.clear()
        recent.clear()
        if not report.keyed:
            totals.update(Text(tr("stats.guest"), style="dim"))
            ratings.display = recent.display = False
            return
        line = tr("stats.totals", games=report.games, wins=report.wins, pf=report.points_for,
                  pa=report.points_against, envidos=report.envidos_won, trucos=report.trucos_won,
                  refused=report.trucos_refused)
        if not report.ratings:
            line += "\n" + tr("stats.no_rating")
        totals.update(Text(line))
        for r in report.ratings:
            ratings.add_row(
                Text(tr(f"variant.{r.variant}"), no_wrap=True, overflow="ellipsis"),
                Text(str(r.players)), Text(rating_text(r.rating), style="bold"),
                Text(str(r.games)), Text(str(r.wins)),
            )
        ratings.display = bool(report.ratings)
        for i, m in enumerate(report.recent):
            result = "stats.left" if m.abandoned else "stats.won" if m.won else "stats.lost"
            recent.add_row(
                Text(time.strftime(tr("stats.when_format"), time.localtime(m.finished_at))),
                Text(m.title, no_wrap=True, overflow="ellipsis"),
                Text(tr(result), no_wrap=True, overflow="ellipsis"),
                Text(f"{m.points_for}-{m.points_against}"),
                Text(change_text(m.change) if m.rated else tr("stats.unrated"), style="dim" if not m.rated else ""),
                key=str(i),
            )
        recent.display = bool(report.recent)

    def action_leaderboard(self) -> None:
        self.app.push_screen(my_leaderboard(self.app.model))

    def action_close(self) -> None:
        self.dismiss(None)


def my_leaderboard(model: LobbyModel) -> LeaderboardScreen:
    """The leaderboard of the game and table size I play most (``LobbyModel.board_choice``)."""
    choice = model.board_choice()
    return LeaderboardScreen(*choice) if choice is not None else LeaderboardScreen()


class LeaderboardScreen(TrucoScreen[None]):
    BINDINGS = [
        Binding("escape", "close", ""), Binding("q", "close", ""),
        Binding("v", "variant(1)", ""), Binding("right", "variant(1)", ""), Binding("left", "variant(-1)", ""),
        Binding("2", "size(2)", ""), Binding("4", "size(4)", ""), Binding("6", "size(6)", ""),
    ]

    def __init__(self, variant: str = "", players: int = 2) -> None:
        super().__init__()
        self.variant = variant
        self.players = players


    def _variants(self) -> list[p.VariantInfo]:
        return [v for v in self.app.model.variants.values() if v.implemented]

    def compose(self) -> ComposeResult:
        yield Static(id="lb-title")
        yield DataTable(id="lb-board", cursor_type="row", zebra_stripes=False)
        yield Static(id="lb-status")
        yield KeyBar(id="lb-keys")

    @unless_popped
    def on_mount(self) -> None:
        board = self.query_one("#lb-board", DataTable)
        # completed: the share of their rated matches each player stayed to the end of
        for key, width in (("rank", 4), ("name", 11), ("rating", 7), ("games", 8), ("wins", 8), ("completed", 9)):
            board.add_column(self.tr(f"stats.col.{key}"), key=key, width=width)
        self.query_one("#lb-keys", KeyBar).show(
            [("v", self.tr("key.next_game")), ("2/4/6", self.tr("key.table_size")),
             ("Esc", self.tr("key.close"))])
        variants = self._variants()
        if variants and self.variant not in {v.name for v in variants}:
            self.variant = variants[0].name
        board.focus()
        self._ask()

    def _ask(self) -> None:
        title = self.tr("stats.board_title", game=self.tr(f"variant.{self.variant}"),
                        size=self.tr("form.n_players", n=self.players))
        self.query_one("#lb-title", Static).update(_title(self.tr, title))
        self.query_one("#lb-board", DataTable).clear()
        self.query_one("#lb-status", Static).update(Text(self.tr("stats.loading"), style="dim"))
        self.app.send(p.Leaderboard(variant=self.variant, players=self.players))

    def server_changed(self, msg: p.Message) -> None:
        if not (isinstance(msg, p.LeaderboardReport) and self.is_mounted):
            return
        if (msg.variant, msg.players) != (self.variant, self.players):
            return  # an answer to an earlier question
        board = self.query_one("#lb-board", DataTable)
        board.clear()
        me = self.app.model.me
        for rank, line in enumerate(msg.lines, 1):
            style = "bold" if line.name == me else ""
            board.add_row(
                Text(str(rank)), Text(line.name, style=style, no_wrap=True, overflow="ellipsis"),
                Text(rating_text(line.rating), style=style), Text(str(line.games)), Text(str(line.wins)),
                Text(f"{line.completed:.0%}", style="" if line.completed >= COMPLETED_WELL else "yellow"),
                key=str(rank),
            )
        status = "" if msg.lines else self.tr("stats.board_empty")
        self.query_one("#lb-status", Static).update(Text(status, style="dim"))

    def action_variant(self, step: int) -> None:
        names = [v.name for v in self._variants()]
        if not names:
            return
        index = names.index(self.variant) if self.variant in names else 0
        self.variant = names[(index + step) % len(names)]
        counts = next(v.player_counts for v in self._variants() if v.name == self.variant)
        if self.players not in counts:
            self.players = min(counts)
        self._ask()

    def action_size(self, players: int) -> None:
        counts = next((v.player_counts for v in self._variants() if v.name == self.variant), (2,))
        if players in counts and players != self.players:
            self.players = players
            self._ask()

    def action_close(self) -> None:
        self.dismiss(None)
