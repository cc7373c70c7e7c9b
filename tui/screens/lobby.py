"""The lobby: who is online, the open tables, the lobby chat."""
from __future__ import annotations

import time
from typing import Callable

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import DataTable, Input, RichLog
from textual.widgets.option_list import Option

import protocol as p
from tui.lobby_columns import TITLE_MIN, ColumnFit, fit_columns
from tui.lobby_pace import REDRAW_DELAY, players_delay, spread
from tui.lobby_rows import describe, table_cells
from tui.model import LobbyModel
from tui.screens.base import TrucoScreen, unless_popped
from tui.widgets.chat_input import ChatInput
from tui.widgets.keybar import KeyBar
from tui.widgets.fixed_lists import PlayerList
from tui.widgets.text_line import TextLine



class LobbyScreen(TrucoScreen[None]):
    AUTO_FOCUS = "#tables"  # (Textual's default, the first control, would focus the players first)
    # The key bar lists the bindings with show=True, labelled by their description (a locale
    # key): l (leave), c (chat) and L (lite mode) are in the help and the chat's placeholder
    # only; the bar breaks onto a second line where the keys do not fit. Letter keys are priority
    # bindings, run when the app reads the key, so a key typed right after "c" (one packet on
    # a slow link) already finds the chat focused; check_action turns them off there.
    BINDINGS = [
        Binding("n", "new_table", "key.new_table", priority=True),
        Binding("j", "join", "key.join", priority=True),
        Binding("p", "quick_play", "key.quick_play", priority=True),
        Binding("w", "watch", "key.watch", priority=True),
        Binding("l", "leave", "key.leave", show=False, priority=True),
        Binding("k", "code", "key.code", priority=True),
        Binding("r", "resume", "key.resume", priority=True),
        Binding("h", "history", "key.history", priority=True),
        Binding("s", "stats", "key.stats", priority=True),
        Binding("t", "leaderboard", "key.leaderboard", priority=True),
        Binding("c", "chat", "key.chat", show=False, priority=True),
        Binding("g", "language", "key.language", priority=True),
        Binding("L", "lite", "", show=False, priority=True),
        Binding("O", "operators", "operator.key.open", priority=True),
        Binding("question_mark", "help", "key.help", key_display="?", priority=True),
        Binding("q", "quit", "key.quit", priority=True),
        Binding("escape", "focus_tables", "", show=False),
    ]
    OWN_ACTIONS = frozenset(binding.action for binding in BINDINGS if isinstance(binding, Binding))

    @property
    def model(self) -> LobbyModel:
        return self.app.model

    def compose(self) -> ComposeResult:
        yield TextLine(id="title-bar")
        yield TextLine(id="status-line")
        with Horizontal(id="lobby-main"):
            with Vertical(id="players-pane"):
                yield PlayerList(id="players")
            with Vertical(id="tables-pane"):
                yield DataTable(id="tables", cursor_type="row", zebra_stripes=False)
        # min_width 1: each line wrapped to the log's width (RichLog's default, 78 columns,
        # wrapped there and cut the rest off narrower terminals, behind a sideways scrollbar)
        yield RichLog(id="chat-log", markup=False, wrap=True, max_lines=200, auto_scroll=True, min_width=1)
        yield ChatInput(id="chat-input", max_length=self.model.chat_max, send=self.send_chat, home="#tables",
                        stay=True)
        yield KeyBar(id="keys")

    @unless_popped
    def on_mount(self) -> None:
        tables = self.query_one("#tables", DataTable)
        self.query_one("#players-pane").border_title = self.tr("lobby.players")
        self.query_one("#tables-pane").border_title = self.tr("lobby.tables")
        self.query_one("#chat-input", Input).placeholder = self.tr("lobby.chat_placeholder")
        self.query_one("#keys", KeyBar).follow_bindings(lambda binding: str(self.tr(binding.description)))
        self._redraw_chat()
        self._draw_players()
        self._draw_status()  # the tables once they have a width: on_resize
        tables.focus()
        self._ask_rating()

    def _ask_rating(self) -> None:
        """My rating for the title (key holders), asked on entering and on coming back."""
        if not self.model.guest:
            self.app.send(p.MyStats())

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action not in self.OWN_ACTIONS:
            return super().check_action(action, parameters)  # Textual's own (copy, focus...)
        if action == "operators" and not self.model.operator:
            return False  # (the server would refuse every command on it anyway)
        # Typing in the chat: every letter is text (Esc and Enter are the chat's own keys).
        return not isinstance(self.focused, Input)

    # -- drawing from the model --------------------------------------------------
    _stale = False
    _chat_stale = False
    _dirty: set[str] = set()  # replaced per instance on first use (see _soon)

    def on_screen_resume(self) -> None:
        if self._stale:
            self._stale = False
            self._ask_rating()
            self._draw_players()
            self._draw_tables()
            self._draw_status()
        if self._chat_stale:
            self._chat_stale = False
            self._redraw_chat()

    _chat_width = 0  # the chat log's width when its lines were last wrapped

    def _redraw_chat(self) -> None:
        log = self.query_one("#chat-log", RichLog)
        self._chat_width = log.scrollable_content_region.width
        log.clear()
        for line in self.model.chat:
            log.write(self._chat_text(line), scroll_end=False)
        log.scroll_end(animate=False, immediate=True, x_axis=False)

    def _write_chat(self, line: p.ChatLine) -> None:
        """A new line, at the bottom of the log and in sight in the same frame: RichLog's own
        auto-scroll waits for a refresh, so once the log was full a line came on screen one
        frame later (a lobby chat round trip 25 -> 50 ms)."""
        log = self.query_one("#chat-log", RichLog)
        log.write(self._chat_text(line), scroll_end=False)
        log.scroll_end(animate=False, immediate=True, x_axis=False)

    def _under_a_screen(self) -> bool:
        """True under a full screen (the table), False on top or under a dialog (Textual's
        ``is_current`` counts the screen below the top one as visible whatever covers it)."""
        stack = self.app.screen_stack
        return self in stack and any(not isinstance(s, ModalScreen)
                                     for s in stack[stack.index(self) + 1:])

    def server_changed(self, msg: p.Message) -> None:
        if not self.is_mounted:
            return  # on_mount draws everything from the model
        if isinstance(msg, p.Chat) and msg.line.table_id is not None:
            return  # table chat belongs to the table screen
        if self._under_a_screen():
            # Hidden under a table: redraw once on return. Even the chat log waits: a hidden
            # log that grows re-lays out the screen on top, a full repaint for the player.
            if isinstance(msg, p.Chat):
                self._chat_stale = True
            else:
                self._stale = True
            return
        if isinstance(msg, p.Chat):
            self._write_chat(msg.line)
        elif isinstance(msg, p.Listening):  # whom the chat shows changed: the app filtered the model
            self._redraw_chat()
        elif isinstance(msg, (p.PlayerUpdated, p.PlayerLeft)):
            self._soon({"players"}, spread(players_delay(len(self.model.players))))
        elif isinstance(msg, p.LobbySnapshot):
            self._soon({"players", "tables"})
        elif isinstance(msg, (p.TableUpdated, p.TableRemoved, p.Seated)):
            self._soon({"tables", "status"})
        elif isinstance(msg, p.StatsReport):
            self._draw_title()

    _due = 0.0  # when the pending redraw runs (monotonic), if one is pending

    def _soon(self, parts: set[str], delay: float = REDRAW_DELAY) -> None:
        """Redraw these lists within ``delay``, once, however many events arrive meanwhile
        (an earlier redraw asked for meanwhile draws everything pending)."""
        due = time.monotonic() + delay
        if not self._dirty or due < self._due:
            self._due = due
            self.set_timer(delay, self._redraw_dirty)
        self._dirty = self._dirty | parts  # a new set: never the shared class default

    def _redraw_dirty(self) -> None:
        dirty, self._dirty = self._dirty, set()
        if not dirty:
            return  # drawn already, by an earlier timer
        if not self.is_mounted:
            return
        if self._under_a_screen():
            # Asked for before a table covered the lobby: drawn on return, as server_changed
            # does (drawn now, its regions made the table repaint its whole screen).
            self._stale = True
            return
        if "players" in dirty:
            self._draw_players()
            self._draw_title()
        if "tables" in dirty:
            self._draw_tables()
        if "status" in dirty:
            self._draw_status()

    def _chat_text(self, line: p.ChatLine) -> Text:
        text = Text()
        text.append(line.sender, style="bold cyan" if line.sender != self.model.me else "bold green")
        text.append(": ")
        text.append(line.text)
        return text

    def _draw_title(self) -> None:
        m = self.model
        who = m.me + (f" ({self.tr('lobby.guest')})" if m.guest else "")
        if m.rating is not None:
            who += f" · {self.tr('lobby.rating', r=f'{m.rating.rating:.1f}')}"
        title = Text(no_wrap=True, overflow="ellipsis")
        title.append(" truco-ssh ", style="reverse bold")
        title.append(f" {self.tr('lobby.title')} · {who} · {self.tr('lobby.online', n=len(m.players))}")
        self.query_one("#title-bar", TextLine).show(title)

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        self._draw_status()

    def _draw_status(self) -> None:
        m = self.model
        table = m.my_table
        selected = m.tables.get(self._selected_table_id() or "")
        if table is None and selected is not None:
            text = describe(self.tr, self.model.variants, selected)
        elif table is None:
            text = Text(self.tr("lobby.status.idle"), style="dim")
        else:
            free = sum(1 for s in table.seats if s is None)
            key = "lobby.status.watching" if m.seat is None else "lobby.status.seated"
            text = Text(self.tr(key, title=table.title, seat=(m.seat or 0) + 1, n=free))
            code = m.codes.get(table.table_id)
            if code:
                text.append("  " + self.tr("lobby.status.code", code=code), style="bold")
        self.query_one("#status-line", TextLine).show(text)
        self._draw_title()

    def _draw_players(self) -> None:
        options = []
        for pl in self.model.sorted_players():
            text = Text(pl.name, style="bold" if pl.name == self.model.me else "", no_wrap=True, overflow="ellipsis")
            if pl.rating is not None:
                text.append(f" {pl.rating:.1f}", style="dim")
            if pl.table_id:
                text.append(" *", style="dim")
            options.append(Option(text))
        # In one step: cleared first, the list would be empty for a moment, its scrollbar gone
        # and back, and each of those a layout of the whole screen on every lobby.
        self.query_one("#players", PlayerList).set_options(options)

    def _draw_tables(self) -> None:
        table_view = self.query_one("#tables", DataTable)
        selected = self._selected_table_id()
        table_view.clear()
        tables = self.model.sorted_tables()
        rows = [table_cells(self.tr, self.model.variants, info, info.table_id == self.model.table_id) for info in tables]
        fit = self._fit_columns(rows, table_view)
        if fit.widths["title"] < TITLE_MIN:  # too narrow: a private table's status in one word
            rows = [table_cells(self.tr, self.model.variants, info, info.table_id == self.model.table_id,
                                compact=True) for info in tables]
            fit = self._fit_columns(rows, table_view)
        for info, row in zip(tables, rows):
            cells = []
            for key in fit.widths:
                cell = row[key]
                cell.truncate(fit.text_width(key), overflow="ellipsis")
                cells.append(cell)
            table_view.add_row(*cells, key=info.table_id)
        if selected is not None and selected in self.model.tables:
            table_view.move_cursor(row=table_view.get_row_index(selected))

    COLUMNS = ("title", "game", "seats", "points", "status")

    def on_resize(self) -> None:
        # A narrow terminal gives the tables the room a 16-character name does not need.
        pane, width = self.query_one("#players-pane"), 20 if self.size.width < 70 else 22
        if pane.styles.width is None or pane.styles.width.value != width:  # (a layout)
            pane.styles.width = width
            self.call_after_refresh(self._refit_tables)  # once the pane has its new width
        else:
            self._refit_tables()  # in the layout the key bar's new width may ask for

    def _refit_tables(self) -> None:  # a Resize may leave their width as it was
        if self.query_one("#tables", DataTable).scrollable_content_region.width != self._fit_width:
            self._draw_tables()
        if self.query_one("#chat-log", RichLog).scrollable_content_region.width != self._chat_width:
            self._redraw_chat()  # RichLog keeps each line as it wrapped it: again, at the new width

    def _fit_columns(self, rows: list[dict[str, Text]], table_view: DataTable[Text]) -> ColumnFit:
        headers = {key: self.tr(f"lobby.col.{key}") for key in self.COLUMNS}
        natural = {key: max([len(headers[key]), *(row[key].cell_len for row in rows)])
                   for key in self.COLUMNS}
        self._fit_width = table_view.scrollable_content_region.width
        fit = fit_columns(natural, self._fit_width)
        if fit != self._fit:
            self._fit = fit
            table_view.clear(columns=True)
            table_view.cell_padding = fit.padding
            for key, width in fit.widths.items():
                header = Text(headers[key], no_wrap=True, overflow="ellipsis")
                header.truncate(fit.text_width(key), overflow="ellipsis")
                table_view.add_column(header, key=key, width=width)
        return fit

    _fit: ColumnFit | None = None
    _fit_width = -1  # the tables' width the columns were last fitted to

    def _selected_table_id(self) -> str | None:
        table_view = self.query_one("#tables", DataTable)
        if table_view.row_count == 0:
            return None
        try:
            row_key, _ = table_view.coordinate_to_cell_key(table_view.cursor_coordinate)
        except Exception:  # cursor outside the rows after a clear
            return None
        return str(row_key.value) if row_key.value is not None else None

    # -- actions --------------------------------------------------------------------
    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        self.action_join()

    def send_chat(self, text: str) -> None:
        self.app.speak(text, p.SendChat(text=text))

    # set_focus, not focus(): focus() is deferred, and keys typed right after
    # "c" (they arrive in one packet on a slow link) would go to the old widget.
    def action_chat(self) -> None:
        self.set_focus(self.query_one("#chat-input", Input))

    def action_focus_tables(self) -> None:
        self.set_focus(self.query_one("#tables", DataTable))

    def action_new_table(self) -> None:
        from tui.screens.new_table import NewTableScreen

        def created(command: p.CreateTable | None) -> None:
            if command is not None:
                self.app.send(command)

        game, _ = self.model.usual_game(self.tr.lang)
        self.app.push_screen(NewTableScreen(tuple(self.model.variants.values()), game), created)

    def action_join(self) -> None:
        """Partners and free seats: choose the seat (and partner); else sit straight away."""
        from tui.screens.seat_picker import SeatPickerScreen, free_seats

        table_id = self._selected_table_id()
        if table_id is None:
            self.app.notify_text(self.tr("lobby.no_table_selected"))
            return
        if table_id == self.model.table_id and self.model.seat is not None:
            return
        info = self.model.tables.get(table_id)
        free = free_seats(info) if info is not None else []
        if info is None or len(info.seats) < 4 or len(free) < 2:
            self.app.send(p.JoinTable(table_id=table_id))
            return
        def chosen(seat: int | None) -> None:
            if seat is not None:
                self.app.send(p.JoinTable(table_id=table_id, seat=seat))

        title = self.tr("table.seat_picker.join", title=info.title)
        self.app.push_screen(SeatPickerScreen(title, info, free, follow=free_seats), chosen)

    def action_quick_play(self) -> None:
        """A seat at the public table of a game and size closest to starting (or a new one that
        bots fill), both chosen in a small list: on my last choice, else the game and size I
        last sat at, else the game of my language for two."""
        from tui.screens.quick_play import QuickPlayScreen

        model = self.model
        preferred = model.usual_game(self.tr.lang)

        def chosen(choice: tuple[str, int] | None) -> None:
            if choice is not None:
                model.quick_choice = choice  # remembered for this session
                self.app.send(p.QuickPlay(variant=choice[0], players=choice[1]))

        self.app.push_screen(QuickPlayScreen(model.variants.values(), preferred), chosen)

    def action_watch(self) -> None:
        table_id = self._selected_table_id()
        if table_id is not None:
            self.app.send(p.WatchTable(table_id=table_id))

    def action_leave(self) -> None:
        if self.model.table_id is not None:
            self.app.send(p.LeaveTable(table_id=self.model.table_id))

    def action_code(self) -> None:
        self._ask_code(("code.title", "code.placeholder", "key.join"), lambda code: p.JoinByCode(code=code))

    def action_resume(self) -> None:
        self._ask_code(("resume.title", "resume.placeholder", "key.resume"),
                       lambda code: p.ResumeSeat(code=code))

    def _ask_code(self, keys: tuple[str, str, str], command: Callable[[str], p.Command]) -> None:
        """A code typed in a small prompt (its title, placeholder and Enter key's locale keys),
        sent as ``command(code)``."""
        from tui.screens.prompt import PromptScreen

        def entered(code: str | None) -> None:
            if code:
                self.app.send(command(code))

        tr, (title, placeholder, key) = self.tr, keys
        self.app.push_screen(PromptScreen(tr(title), tr(placeholder), 16, [("Enter", tr(key)), ("Esc", tr("key.cancel"))]),
                             entered)

    def action_operators(self) -> None:
        from tui.screens.operators import OperatorScreen

        self.app.push_screen(OperatorScreen())

    def action_history(self) -> None:
        from tui.screens.history import HistoryScreen

        self.app.push_screen(HistoryScreen())

    def action_stats(self) -> None:
        from tui.screens.stats import StatsScreen

        self.app.push_screen(StatsScreen())

    def action_leaderboard(self) -> None:
        from tui.screens.stats import my_leaderboard

        self.app.push_screen(my_leaderboard(self.model))

    def action_language(self) -> None:
        self.app.switch_language()

    def action_lite(self) -> None:
        self.app.toggle_lite()

    def action_quit(self) -> None:
        # The screen's own (its check_action knows the chat); asked first, q again says yes.
        self.app.ask_to_quit(again="q")

    def relabel(self) -> None:
        self.app.switch_screen(LobbyScreen())

    def action_help(self) -> None:
        """Made once per language and kept: a new one at each ``?`` of a key flood left
        thousands of widgets to the collector, whose passes held every session."""
        from tui.screens.help import HelpScreen

        name = f"lobby-help-{self.app.tr.lang}"
        if not self.app.is_screen_installed(name):
            self.app.install_screen(HelpScreen(), name)
        self.app.push_screen(name)
