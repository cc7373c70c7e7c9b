"""The table: seats, tricks, bets, your cards and the calls you may make.

Everything here is drawn from the last ``TableUpdate`` (the engine's view for this
viewer) and the events it carried; no game state lives in the widgets. Each part
is its own small widget so a change repaints only what it touches.
"""
from __future__ import annotations

import secrets
from typing import Any, Iterable

from rich.table import Table
from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen, Screen
from textual.widgets import Input, Static

import protocol as p
from tui.calls import PREFERRED_KEYS, RESERVED, SPARE_KEYS, CallChoice, assign_keys, call_label
from tui.cards import card_box, card_roles
from tui.bets import pending_bets
from tui.event_text import act_words, hand_summary, holder_name, log_lines, score_text, team_name
from tui.refusals import refusal_text
from tui.screens.chat_input import ChatInput
from tui.screens.keybar import KeyBar
from tui.screens.panels import DrawnPanel, GridPanel, HandPanel, LogPanel, Panel, WrapPanel
from tui.table_model import TableModel

CARD_WIDTH = 8  # a drawn card (7) and the gap after it
CARD_CALLS = ("play", "discard")  # made with the card keys directly
TRICK_COLUMN = 5  # the narrowest trick column: a card ("10E") and room for a mark


CARD_KEYS = "123456789"
# Every key assign_keys may give a call (tui/calls.py), each its own binding.
CALL_KEYS = "".join(dict.fromkeys(
    k for k in [*PREFERRED_KEYS.values(), *SPARE_KEYS, *"ABCDEFGHIJKLMNOPQRSTUVWXYZ"] if k not in RESERVED))


def _table_bindings() -> list[Binding]:
    """Every key of the table, each enabled or hidden by ``TableScreen.check_action``.

    The key bar lists the enabled ones with a description (a locale key); the calls have
    none: the actions pane shows them with their keys. All are priority bindings, run when
    the app reads the key: in the order typed, and a key after "c" in the same packet finds
    the chat already focused (``check_action`` then turns every table key off).
    """
    calls = [Binding(k, f"call({k!r})", "", show=False, priority=True) for k in CALL_KEYS]
    return [
        # b and r come first: when enabled (the waiting room, the match over) they lead the bar.
        Binding("b", "add_bot", "key.add_bot", priority=True),
        Binding("r", "rematch", "key.rematch", priority=True),
        *(Binding(k, f"card({i})", "key.play", priority=True) for i, k in enumerate(CARD_KEYS)),
        Binding("c", "chat", "key.chat", priority=True),
        Binding("l", "leave", "key.leave_table", priority=True),
        Binding("question_mark", "help", "key.help", key_display="?", priority=True),
        *calls,  # after b and r: a call on one of those keys wins only when they are off
    ]


TABLE_ACTIONS = {b.action.split("(", 1)[0] for b in _table_bindings()}


class TableScreen(Screen[None]):
    AUTO_FOCUS = ""  # keys are the table's; the chat input only takes focus on "c"
    # Size classes for tui/truco.tcss: 60x20 is the smallest supported terminal, 80x24
    # the usual one; the -seats-N class (set when the table is known) sizes the seat rows.
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (80, "-normal"), (120, "-wide")]
    VERTICAL_BREAKPOINTS = [(0, "-short"), (24, "-normal-height"), (40, "-tall")]
    BINDINGS = _table_bindings()

    def __init__(self, table_id: str) -> None:
        super().__init__()
        self.table_id = table_id
        self._actions_key: tuple[Any, ...] = ()
        self._choices: list[CallChoice] = []
        # Command ids only have to differ from the ones this seat used before; a random
        # base keeps them apart across reconnects (a new session must not reuse old ids).
        self._cid = secrets.randbelow(2**40) << 8
        self._summary_shown_for = -1
        self._match_over_shown = False
        self._timer_handle = None
        self._timer_shown = ""
        self._card_call: str | None = None  # a call waiting for its card (las que pintan)

    @property
    def tr(self):  # type: ignore[no-untyped-def]
        return self.app.tr  # type: ignore[attr-defined]

    @property
    def table(self) -> TableModel:
        return self.app.table_model(self.table_id)  # type: ignore[attr-defined,no-any-return]

    def compose(self) -> ComposeResult:
        yield Panel(id="t-title")
        yield Panel(id="t-score")
        with Horizontal(id="t-middle"):  # one row per seat, the tricks in line with them
            yield DrawnPanel(self.redraw, id="t-seats")
            yield DrawnPanel(self.redraw, id="t-tricks")
        yield WrapPanel(id="t-bets")
        with Horizontal(id="t-hand"):
            yield HandPanel(id="t-cards", card_width=CARD_WIDTH, on_pick=self.play_card)
            yield GridPanel(id="t-actions", columns=3, on_pick=self._pick_action)
        with Horizontal(id="t-talk"):  # side by side; stacked, or one pane, when small
            yield LogPanel(id="t-log")
            yield LogPanel(id="t-chat-log")
        with Vertical(id="t-foot"):
            yield ChatInput(id="t-chat", max_length=p.CHAT_MAX)
            with Horizontal(id="t-status-row"):
                yield WrapPanel(id="t-status")
                yield Panel(id="t-timer")
        yield KeyBar(id="t-keys")

    def on_mount(self) -> None:
        self.query_one("#t-chat", Input).placeholder = self.tr("table.chat_placeholder")
        log = self.query_one("#t-log", LogPanel)
        log.set_title(" " + self.tr("table.log_title") + " ")
        chat = self.query_one("#t-chat-log", LogPanel)
        chat.show_chat = True
        chat.set_title(" " + self.tr("table.chat_title") + " ")
        self._fill_log()
        self.redraw()
        self.query_one("#t-keys", KeyBar).follow_bindings(self._binding_label)
        self._timer_handle = self.set_interval(1.0, self._tick_timer)

    def on_resize(self, event: events.Resize) -> None:
        # The size classes are set by now; the panes know their sizes after the layout.
        self.call_after_refresh(self._share_talk)

    def _share_talk(self) -> None:
        """Where the chat pane is hidden (a small terminal) the log shows the chat too."""
        chat = self.query_one("#t-chat-log", LogPanel)
        self.query_one("#t-log", LogPanel).set_show_chat(not chat.display)

    def key_pageup(self) -> None:
        self.query_one("#t-log", LogPanel).page(1)

    def key_pagedown(self) -> None:
        self.query_one("#t-log", LogPanel).page(-1)

    # -- events from the app ------------------------------------------------------------
    def lobby_changed(self, msg: p.Message) -> None:
        if not self.is_mounted:
            return
        if isinstance(msg, p.TableUpdate) and msg.table_id == self.table_id:
            log = self.query_one("#t-log", LogPanel)
            if msg.history:  # (re)joined: the model's log was replaced by the match so far
                self._fill_log()
            else:
                self._write_log(log, msg.events)
            self.redraw()
        elif isinstance(msg, p.Chat) and msg.line.table_id == self.table_id:
            self._write_chat(msg.line)
        elif self.table.update is None and (
                isinstance(msg, p.TableUpdated) and msg.table.table_id == self.table_id
                or isinstance(msg, p.Seated) and msg.table_id == self.table_id):
            self.redraw()  # the waiting room shows this table's seats, nobody else's

    def _fill_log(self) -> None:
        """The log drawn again from the model (on mount, and when a rejoin replaced it)."""
        log = self.query_one("#t-log", LogPanel)
        log.clear()
        self.query_one("#t-chat-log", LogPanel).clear()
        self._write_log(log, self.table.log)
        for line in self.table.chat:
            self._write_chat(line)

    def _write_log(self, log: LogPanel, entries: Iterable[dict[str, Any]]) -> None:
        for line in log_lines(self.tr, self.table, entries, self._french(), self._ascii()):
            log.write(line)

    def _write_chat(self, line: p.ChatLine) -> None:
        self.query_one("#t-chat-log", LogPanel).write(self._chat_text(line), chat=True)
        self.query_one("#t-log", LogPanel).write(self._chat_text(line), chat=True)

    def _chat_text(self, line: p.ChatLine) -> Text:
        text = Text(line.sender, style="bold magenta")
        text.append(": ")
        text.append(line.text)
        return text

    def _french(self) -> bool:
        return self.table.view.get("card_notation") == "french"

    def _ascii(self) -> bool:
        """Lite mode: cards in plain ASCII."""
        return bool(getattr(self.app, "lite", False))

    # -- drawing --------------------------------------------------------------------------
    def redraw(self) -> None:
        model = self.table
        info = self._info()
        self._size_seats(len(model.update.seats) if model.update is not None
                         else len(info.seats) if info is not None else 2)
        self._draw_title()
        if model.update is None:
            self._draw_waiting()
            return
        self._draw_score()
        self._draw_seats()
        self._draw_tricks()
        self._draw_bets()
        self._draw_cards()
        self._draw_actions()
        self._draw_status()
        self.refresh_bindings()  # the key bar: what check_action allows in this state
        self._tick_timer()
        view = model.view
        if view.get("match_over") and not self._match_over_shown:
            self._match_over_shown = True
            self.app.push_screen(MatchOverScreen(self.table_id))
        elif not view.get("match_over"):
            self._match_over_shown = False

    def _size_seats(self, seats: int) -> None:
        """The -seats-N class gives the seat rows (and the tricks beside them) their height."""
        wanted = f"-seats-{seats}"
        if not self.has_class(wanted):
            self.remove_class(*(c for c in self.classes if c.startswith("-seats-")))
            self.add_class(wanted)

    def _info(self) -> p.TableInfo | None:
        return self.app.model.tables.get(self.table_id)  # type: ignore[attr-defined,no-any-return]

    def _draw_title(self) -> None:
        info = self._info()
        title = Text(no_wrap=True, overflow="ellipsis")
        title.append(" truco-ssh ", style="reverse bold")
        if info is not None:
            variant = self.tr(f"variant.{info.variant}")
            target = info.options.get("target", "")
            title.append(f" {info.title} · {variant} · {self.tr('table.to_points', n=target)}")
            if info.options.get("flor") is True:
                title.append(" · " + self.tr("table.with_flor"))
        if self.table.seat is None and self.table.update is not None:
            title.append(" · " + self.tr("table.watching"), style="italic")
        self.query_one("#t-title", Panel).show(title)

    def _draw_restoring(self, info: p.TableInfo) -> None:
        """The server restarted and this table is not back yet: who sits there and that it is
        coming back (no waiting-room hints or keys: nobody joins a table being restored)."""
        seats = Text()
        for i, name in enumerate(info.seats):
            seats.append(f" {i + 1}. ")
            seats.append(name or "")  # Text: a name is never markup
            seats.append("\n")
        self.query_one("#t-seats", Panel).show(seats)
        self.query_one("#t-tricks", Panel).show(Text(""))
        self.query_one("#t-bets", Panel).show(Text(self.tr("table.restoring"), style="bold"))
        self.query_one("#t-score", Panel).show(Text(""))
        keys = [("l", self.tr("key.leave_table")), ("c", self.tr("key.chat")), ("?", self.tr("key.help"))]
        self.query_one("#t-keys", KeyBar).show(keys)
        self.query_one("#t-status", Panel).show(Text(""))

    def _draw_waiting(self) -> None:
        info = self._info()
        if info is not None and info.status == "restoring":  # the server restarted
            self._draw_restoring(info)
            return
        seats = Text()
        free = 0
        if info is not None:
            for i, name in enumerate(info.seats):
                if name is None:
                    free += 1
                seats.append(f" {i + 1}. ")
                seats.append(name or self.tr("table.free_seat"), style="" if name else "dim italic")
                if info.bots and i < len(info.bots) and info.bots[i]:
                    seats.append(" (bot)", style="dim")
                seats.append("\n")
        self.query_one("#t-seats", Panel).show(seats)
        code = self._join_code()
        self.query_one("#t-tricks", Panel).show(Text(""))
        # The bets line spans the screen: the code is never split from its label there.
        waiting = Text(self.tr("table.waiting_for", n=free), style="bold")
        if code:  # for as long as the table waits: friends need it to sit down
            waiting.append("\n" + self.tr("table.code_title", code=code), style="bold yellow")
            waiting.append("\n" + self.tr("table.code_how"), style="")
        self.query_one("#t-bets", Panel).show(waiting)
        self.query_one("#t-score", Panel).show(Text(""))
        self.refresh_bindings()
        how = (self.tr("table.status.waiting_private", code=code) if code
               else self.tr("table.status.waiting_public"))
        self.query_one("#t-status", Panel).show(Text(how))

    def _join_code(self) -> str:
        """The join code of this private table, if this session was told it ("" if public)."""
        info = self._info()
        if info is not None and not info.private:
            return ""
        return str(self.app.model.codes.get(self.table_id, ""))  # type: ignore[attr-defined]

    def _draw_score(self) -> None:
        view, model = self.table.view, self.table
        scores = list(view.get("scores") or [0, 0])
        holders = view.get("score_holders") or [[i] for i in range(len(scores))]
        target = view.get("target", "")
        line = Text(no_wrap=True, overflow="ellipsis")
        for entry, score in enumerate(scores):
            seats = holders[entry] if entry < len(holders) else []
            if len(scores) == 2:
                label, mine = team_name(self.tr, model, entry), model.my_team() == entry
            else:  # one score per player (the three-player game)
                label = " + ".join(model.name(seat) for seat in seats)
                mine = model.seat in seats
            line.append(f" {label} ", style="reverse bold green" if mine else "reverse bold")
            if view.get("malas"):
                line.append(f" {score} ({score_text(self.tr, score, int(view['malas']))})  ")
            else:
                line.append(f" {score}/{target}  ")
        games = view.get("games_won") or [0, 0]
        if (view.get("match_games") or 1) > 1 and len(games) == 2:
            line.append(self.tr("table.games", a=games[0], b=games[1]), style="dim")
        self.query_one("#t-score", Panel).show(line)

    def _draw_seats(self) -> None:
        """One row per seat under a header row (the tricks beside are in line with it):
        names and team names whole; what the seat last said gets the rest of the row.
        When that is too short the row drops its extras (cards left in hand, the bot
        mark) before a call ends in an ellipsis."""
        update = self.table.update
        assert update is not None
        said = self._last_said()
        panel = self.query_one("#t-seats", Panel)
        width = panel.size.width or 44
        for extras in (True, False):
            rows = [self._seat_row(seat, extras) for seat in range(len(update.seats))]
            if all(row.cell_len + 1 + len(said[seat]) <= width for seat, row in enumerate(rows) if seat in said):
                break
        out = Text(no_wrap=True, overflow="ellipsis")
        for seat, row in enumerate(rows):
            if seat in said:
                bubble = Text(said[seat], style="italic yellow")
                bubble.truncate(max(1, width - row.cell_len - 1), overflow="ellipsis")
                row.append(" ")
                row.append_text(bubble)
            out.append("\n")
            out.append_text(row)
        panel.show(out)

    def _seat_row(self, seat: int, extras: bool) -> Text:
        model, view = self.table, self.table.view
        update = model.update
        assert update is not None
        info = update.seats[seat]
        lite = self._ascii()
        names = [s.name + (" *" if i == model.seat else "") for i, s in enumerate(update.seats)]
        teams = [team_name(self.tr, model, model.team_of(i)) for i in range(len(update.seats))]
        # Two or three players: each seat is its own side, the score line names them.
        team_width = max(len(t) for t in teams) if len(update.seats) > 3 else 0
        row = Text(no_wrap=True, overflow="ellipsis")
        row.append(("> " if lite else "▶ ") if seat in update.waiting else "  ", style="bold yellow")
        team = model.team_of(seat)
        mine = team is not None and team == model.my_team()
        row.append(f"{names[seat]:<{max(len(n) for n in names)}}", style="bold green" if mine else "bold")
        if team_width:
            row.append(f" {teams[seat]:<{team_width}}", style="green" if mine else "")
        if extras:
            hand_sizes = view.get("hand_sizes") or []
            size = hand_sizes[seat] if seat < len(hand_sizes) else 0
            row.append(" " + (("#" if lite else "■") * size).ljust(3), style="cyan")
        role = ("D" if view.get("dealer") == seat else " ") + ("M" if view.get("mano") == seat else " ")
        row.append(" " + role, style="dim")
        if info.bot and extras:
            row.append(" bot", style="dim")
        elif info.away:
            row.append(" " + self.tr("table.away"), style="red")
        return row

    def _last_said(self) -> dict[int, str]:
        said: dict[int, str] = {}
        for event in self.table.last_hand_events:
            if event.get("type") == "hand_started":
                said.clear()  # a new pica-pica duel: what was said in the last one is over
            elif event.get("type") == "acted" and event.get("call") not in ("play", "play_blind"):
                seat = event.get("seat")
                if isinstance(seat, int):
                    said[seat] = act_words(self.tr, self.table, event)  # with its piedras, if any
        return said

    def _draw_tricks(self) -> None:
        """The cards of each trick in a column, one row per seat beside the seat rows.

        A trick is won by a player: that card is drawn reversed, and the header names
        the player when the column is wide enough for the whole name."""
        model, view = self.table, self.table.view
        update = model.update
        assert update is not None
        tricks = [list(t) for t in (view.get("tricks") or [])]
        current = view.get("current_trick") or []
        if current:
            tricks.append(list(current))
        columns = max(3, len(tricks))
        french = self._french()
        roles = card_roles(view)  # the special cards of this hand get their star
        results = view.get("trick_results") or []
        # The engine names the seat that took each trick (None for a parda).
        winners = {i: s for i, s in enumerate(view.get("trick_winners") or []) if isinstance(s, int)}
        panel = self.query_one("#t-tricks", Panel)
        column = max(TRICK_COLUMN, ((panel.size.width or 3 * TRICK_COLUMN) + 1) // columns - 1)
        out = Text(no_wrap=True, overflow="ellipsis")
        for i in range(columns):
            head = self.tr("table.trick_n", n=i + 1)
            style = "dim"
            if i < len(results):
                style = "bold cyan"
                who = self._result_text(results[i], winners.get(i))
                if i in winners or results[i] is None:
                    head = f"{head} {who}" if len(head) + 1 + len(who) <= column else head
            out.append(f"{head:<{column}} ", style=style)
        for seat in range(len(update.seats)):
            out.append("\n")
            for number, trick in enumerate(tricks):
                card = next((c for s, c in trick if s == seat), None)
                cell = _card_cell(card, french, self._ascii(), roles.get(str(card)))
                if card is not None and winners.get(number) == seat:
                    cell.stylize("reverse")
                cell.truncate(column, pad=True)
                out.append_text(cell)
                out.append(" ")
        panel.show(out)

    def _result_text(self, team: int | None, seat: int | None = None) -> str:
        """A trick is taken by a player: his name (the team only for a parda)."""
        return self.table.name(seat) if seat is not None else team_name(self.tr, self.table, team)

    def _draw_bets(self) -> None:
        view, model = self.table.view, self.table
        variant = str(view.get("variant", ""))
        line = Text(no_wrap=False)
        truco_value = view.get("truco_value", 1)
        line.append(self.tr("table.hand_worth", n=truco_value), style="bold")
        for part in pending_bets(self.tr, model):  # each names the seat that made the bet
            line.append("  " + part.text, style=part.style)
        ley_seats = view.get("ley_seats") or []
        if ley_seats and view.get("phase") != "deal":
            names = ", ".join(model.name(s) for s in ley_seats)
            line.append("  " + self.tr("table.a_ley", names=names), style="magenta")
        if view.get("face_up"):
            from tui.cards import card_text

            line.append("  " + self.tr(f"table.face_up.{variant}") if self.tr.has_default(f"table.face_up.{variant}")
                        else "  " + self.tr("table.face_up"))
            line.append(" ")
            line.append_text(card_text(str(view["face_up"]), french=self._french(), ascii_only=self._ascii()))
        if view.get("phase") in ("deal", "match_over") or view.get("game_winner") is not None:
            summary = hand_summary(self.tr, model, self._french(), self._ascii())
            if summary:
                line.append("\n")
                line.append_text(summary)
        self.query_one("#t-bets", Panel).show(line)

    def _draw_cards(self) -> None:
        own = list(self.table.view.get("own_cards") or [])
        french = self._french()
        playable = {a.get("card") for a in self.table.view.get("legal") or [] if a.get("card")}
        ascii_only = self._ascii()
        roles = card_roles(self.table.view)
        boxes = [card_box(card, str(i + 1), french=french, ascii_only=ascii_only, selected=card in playable,
                          role=roles.get(card))
                 for i, card in enumerate(own)]
        self.query_one("#t-cards", HandPanel).show_cards(boxes)

    def _draw_actions(self) -> None:
        """The calls this player may make now, each with its key; clickable.

        Plain plays (and discards) are made with the card keys. A call that needs a
        number (piedras, envido N puntos) asks for it; a call that needs a card other
        than playing it (las que pintan) waits for the card key that follows.
        """
        legal = self.table.view.get("legal") or []
        calls: list[str] = []
        for action in legal:
            call = str(action.get("call"))
            if call in CARD_CALLS or call in calls:
                continue
            calls.append(call)
        deal_kind = str(self.table.view.get("deal_kind") or "")
        key = (*calls, deal_kind)
        if key == self._actions_key:
            return  # unchanged: nothing to repaint
        self._actions_key = key
        self._choices = assign_keys(calls)
        variant = str(self.table.view.get("variant", ""))
        cells = []
        for choice in self._choices:
            label = Text()
            label.append(choice.key, style="reverse bold")
            label.append(" " + call_label(self.tr, variant, choice.call, deal_kind=deal_kind))
            if self._amounts(choice.call) or self._is_card_call(choice.call):
                label.append("…")
            cells.append(label)
        self.query_one("#t-actions", GridPanel).set_cells(cells)

    def _amounts(self, call: str) -> list[int]:
        return sorted(
            int(a["amount"]) for a in self.table.view.get("legal") or []
            if a.get("call") == call and isinstance(a.get("amount"), int)
        )

    def _is_card_call(self, call: str) -> bool:
        return any(a.get("call") == call and a.get("card") for a in self.table.view.get("legal") or [])

    def _pick_action(self, index: int) -> None:
        if 0 <= index < len(self._choices):
            self._choose(self._choices[index].call)

    def _choose(self, call: str) -> None:
        amounts = self._amounts(call)
        if amounts:
            from tui.screens.prompt import PromptScreen

            variant = str(self.table.view.get("variant", ""))
            title = self.tr("table.how_many", call=call_label(self.tr, variant, call),
                            low=amounts[0], high=amounts[-1])

            def chosen(text: str | None) -> None:
                if text and text.isdigit() and int(text) in amounts:
                    self._send_action(call, None, amount=int(text))
                elif text:
                    self._say(Text(self.tr("table.bad_amount", low=amounts[0], high=amounts[-1]),
                                   style="bold red"))

            self.app.push_screen(over_table(PromptScreen(
                title, str(amounts[0]), 2, [("Enter", self.tr("key.accept")), ("Esc", self.tr("key.cancel"))])),
                chosen)
        elif self._is_card_call(call):
            self._card_call = call
            self.refresh_bindings()  # the card keys now pick that call's card
            self._say(Text(self.tr("table.pick_card"), style="bold yellow"))
        else:
            self._send_action(call, None)

    def _say(self, text: Text) -> None:
        self.query_one("#t-status", Panel).show(text)

    def _draw_status(self) -> None:
        model, view = self.table, self.table.view
        update = model.update
        assert update is not None
        if view.get("match_over"):
            over = "table.status.match_over" if model.seat is not None else "table.status.match_over_watching"
            text = rematch_text(self.tr, model) or Text(self.tr(over), style="bold green")  # no r for spectators
        elif model.seat is not None and model.seat in update.waiting:
            text = Text(self.tr("table.status.your_turn"), style="bold yellow")
        elif update.waiting:
            names = ", ".join(model.name(s) for s in update.waiting)
            text = Text(self.tr("table.status.waiting_on", names=names))
        else:
            text = Text(self.tr("table.status.next_hand"), style="dim")
        if update.resume_code:
            text.append("  ·  " + self.tr("table.resume_code", code=update.resume_code), style="dim")
        self.query_one("#t-status", Panel).show(text)

    def _tick_timer(self) -> None:
        left = self.table.seconds_left()
        if left is not None and left > 10 and self._ascii():
            left = -(-left // 5) * 5  # lite: the countdown moves in 5 s steps until the last 10
        shown = "" if left is None else (f"T {left:>3}s" if self._ascii() else f"⏱ {left:>3}s")
        if shown != self._timer_shown:  # only this one-line widget repaints, once a second
            self._timer_shown = shown
            style = "bold red" if left is not None and left <= 5 else "bold"
            self.query_one("#t-timer", Panel).show(Text(shown, style=style))

    # -- input ---------------------------------------------------------------------------
    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Which table keys work now: False hides a key from the bar and turns it off."""
        if action not in TABLE_ACTIONS:
            return super().check_action(action, parameters)  # Textual's own (copy, focus...)
        if isinstance(self.focused, Input):
            return False  # typing in the chat: every key is text
        model, view = self.table, self.table.view
        if action == "card":
            return self._card_usable(int(parameters[0]))  # type: ignore[call-overload]
        if action == "call":
            return any(choice.key == parameters[0] for choice in self._choices)
        if action == "add_bot":
            info = self._info()
            return (model.update is None and info is not None and None in info.seats
                    and info.owner == self.app.model.me)  # type: ignore[attr-defined]
        if action == "rematch":  # once asked, r does nothing more: the bar drops it
            update = model.update
            asked = update is not None and model.seat in update.rematch_votes
            return not self._watching() and bool(view.get("match_over")) and not asked
        return True

    def _card_usable(self, index: int) -> bool:
        """A card key works when some legal action now takes that card: a play or a discard,
        or the call that waits for its card (never for a spectator, never after the match)."""
        own = list(self.table.view.get("own_cards") or [])
        return 0 <= index < len(own) and self._card_action(own[index]) is not None

    def _card_action(self, card: str) -> str | None:
        wanted = self._card_call
        return next(
            (str(a.get("call")) for a in self.table.view.get("legal") or []
             if a.get("card") == card and (wanted is None or a.get("call") == wanted)
             and (wanted is not None or a.get("call") in CARD_CALLS)),
            None,
        )

    def _watching(self) -> bool:
        """No seat here (before the first update only the lobby's Seated tells)."""
        if self.table.update is not None:
            return self.table.seat is None
        return self.app.model.seat is None  # type: ignore[attr-defined,no-any-return]

    def _binding_label(self, binding: Binding) -> str:
        if binding.description == "key.leave_table" and self._watching():
            return str(self.tr("key.stop_watching"))  # nobody's seat to hand to a bot
        return str(self.tr(binding.description))

    def on_key(self, event: events.Key) -> None:
        """A key that is off now says why: a card out of turn or with a bet to answer first,
        a card key while watching or in a blind hand, a call that is not possible now."""
        key = event.character or ""
        if isinstance(self.focused, Input) or not key:
            return
        if key.isdigit() and key != "0":
            if int(key) <= len(self.table.view.get("own_cards") or []) or self._no_card_reason():
                self.play_card(int(key) - 1)
                event.stop()
        elif self._explain_refused_call(key):
            event.stop()

    def action_card(self, index: int) -> None:
        self.play_card(index)

    def action_call(self, key: str) -> None:
        for choice in self._choices:
            if choice.key == key:
                self._choose(choice.call)
                return

    def action_chat(self) -> None:
        # set_focus, not focus(): at once, so the keys right after "c" are typed in the chat.
        self.set_focus(self.query_one("#t-chat", Input))

    def action_leave(self) -> None:
        if self._watching():  # a spectator just stops watching: nothing to lose
            self._leave_confirmed(True)
            return
        waiting_room = self.table.update is None
        self.app.push_screen(ConfirmLeaveScreen(waiting_room), self._leave_confirmed)

    def action_add_bot(self) -> None:
        self.app.send(p.AddBot(table_id=self.table_id))  # type: ignore[attr-defined]

    def action_rematch(self) -> None:
        self.app.send(p.Rematch(table_id=self.table_id))  # type: ignore[attr-defined]

    def action_help(self) -> None:
        from tui.screens.help import HelpScreen

        self.app.push_screen(over_table(HelpScreen(self._help_text())))

    def _help_text(self) -> str:
        info = self._info()
        lines = []
        if self.table.update is not None:  # this hand first: it is what a player opens help for
            from tui.screens.help import hand_help

            lines += [hand_help(self.tr, self.table.view, french=self._french(), ascii_only=self._ascii()), ""]
        lines.append(self.tr("help.table"))
        if info is not None and info.variant == "venezolano" and info.options.get("flor", True) \
                and info.options.get("flor_declaration", "a_ley") == "a_ley":
            lines += ["", self.tr("help.ley")]
        if info is not None:
            lines.append("")
            lines.append(self.tr("help.options"))
            from tui.i18n import option_value  # (here: keeps the imports as other work left them)

            for name, value in self._options_in_form_order(info):
                lines.append(f"  {self._option_label(info.variant, name)}: {option_value(self.tr, value)}")
            timer = f"{info.turn_timer} s" if info.turn_timer else self.tr("form.timer_off")
            lines.append(f"  {self.tr('form.turn_timer')}: {timer}")
        return "\n".join(lines)

    def _options_in_form_order(self, info: p.TableInfo) -> list[tuple[str, Any]]:
        """The table's options in the order the New-table form shows them."""
        variant = self.app.model.variants.get(info.variant)  # type: ignore[attr-defined]
        order = [o.name for o in variant.options] if variant else []
        return sorted(info.options.items(), key=lambda kv: (order.index(kv[0]) if kv[0] in order else len(order), kv[0]))

    def _option_label(self, variant: str, name: str) -> str:
        key = f"option.{name}"
        if self.tr.has(key) or self.tr.has_default(key):
            return str(self.tr(key))
        info = self.app.model.variants.get(variant)  # type: ignore[attr-defined]
        for opt in info.options if info else ():
            if opt.name == name:
                return opt.label
        return name

    def _leave_confirmed(self, yes: bool | None) -> None:
        if yes:
            self.app.send(p.LeaveTable(table_id=self.table_id))  # type: ignore[attr-defined]

    def on_chat_input_send(self, event: ChatInput.Send) -> None:
        self.app.send(p.TableChat(table_id=self.table_id, text=event.text))  # type: ignore[attr-defined]

    def play_card(self, index: int) -> None:
        """A card key (or click): whatever legal action takes that card (play, discard...)."""
        own = list(self.table.view.get("own_cards") or [])
        if not 0 <= index < len(own):
            reason = self._no_card_reason()
            if reason:
                self._say(Text(reason, style="bold red"))
            return
        call = self._card_action(own[index])
        wanted = self._card_call
        if wanted is not None:
            self._card_call = None
            self.refresh_bindings()
        if call is None:
            # Known locally: no round trip, no error toast, just say why in the status line.
            reason = (refusal_text(self.tr, "pintan_not_now", self.table) if wanted == "las_que_pintan"
                      else self._card_refusal(own[index]))
            self.query_one("#t-status", Panel).show(Text(reason, style="bold red"))
            return
        self._send_action(call, own[index])

    def _explain_refused_call(self, key: str | None) -> bool:
        """The key of a call that is not possible now (t with no truco to call, e after the
        first trick...) says why in the status line, as the engine gives it."""
        for entry in self.table.view.get("call_refusals") or []:
            if isinstance(entry, (list, tuple)) and len(entry) == 2 and PREFERRED_KEYS.get(str(entry[0])) == key:
                self._say(Text(refusal_text(self.tr, str(entry[1]), self.table), style="bold red"))
                return True
        return False

    def _no_card_reason(self) -> str:
        """Why a card key finds no card: watching, or a blind hand (mão de ferro) whose
        cards go down unseen with their own key."""
        if self.table.update is None or self.table.view.get("match_over"):
            return ""
        if self.table.seat is None:
            return str(self.tr("refusal.watching"))
        if any(a.get("call") == "play_blind" for a in self.table.view.get("legal") or []):
            return refusal_text(self.tr, "blind_hand", self.table)
        return ""

    def _card_refusal(self, card: str) -> str:
        """Why this card cannot be played now: the engine's reason (the view's
        ``card_refusals``), in the player's language."""
        view = self.table.view
        if self.table.seat is None:
            return str(self.tr("refusal.watching"))
        code = next((str(c) for entry in view.get("card_refusals") or []
                     if isinstance(entry, (list, tuple)) and len(entry) == 2
                     for k, c in [entry] if k == card), "")
        if not code:  # the card is playable, but not for the call that waits for a card
            return str(self.tr("table.cannot_play"))
        return refusal_text(self.tr, code, self.table)

    def _send_action(self, call: str, card: str | None, *, amount: int | None = None) -> None:
        self._cid += 1
        self.app.send(p.TableAction(table_id=self.table_id, call=call, card=card, cid=self._cid,  # type: ignore[attr-defined]
                                    amount=amount))


def _card_cell(card: str | None, french: bool, ascii_only: bool = False, role: str | None = None) -> Text:
    if card is None:
        return Text("")
    from tui.cards import card_text

    return card_text(card, french=french, ascii_only=ascii_only, role=role)


OVER_TABLE = "-over-table"  # truco.tcss: at the bottom, the table in view above it


def over_table(screen: ModalScreen[Any]) -> ModalScreen[Any]:
    """A dialog opened at the table: drawn over it, leaving the tricks and cards in view."""
    screen.add_class(OVER_TABLE)
    return screen


def rematch_text(tr, model: TableModel) -> Text | None:  # type: ignore[no-untyped-def]
    """Who asked for a rematch and whom it waits for, told to this viewer (None: nobody asked).

    The asker sees who has not accepted yet; the others see who asked and the key to accept."""
    update = model.update
    if update is None or not update.rematch_votes:
        return None
    asked = [s for s in update.rematch_votes if 0 <= s < len(update.seats)]
    humans = [s for s, info in enumerate(update.seats) if not info.bot]
    names = ", ".join(model.name(s) for s in asked)
    if model.seat is None:
        return Text(tr("table.rematch_asked_watching", names=names), style="bold yellow")
    if model.seat in asked:
        missing = ", ".join(model.name(s) for s in humans if s not in asked)
        return Text(tr("table.rematch_waiting", names=missing), style="bold yellow") if missing else None
    return Text(tr("table.rematch_asked", names=names), style="bold yellow")


class ConfirmLeaveScreen(ModalScreen[bool]):
    BINDINGS = [("y", "yes", ""), ("s", "yes", ""), ("n", "no", ""), ("escape", "no", "")]

    def __init__(self, waiting_room: bool = False) -> None:
        super().__init__(classes=OVER_TABLE)
        self._waiting_room = waiting_room  # before the game the seat is freed, no bot takes it

    def compose(self) -> ComposeResult:
        tr = self.app.tr  # type: ignore[attr-defined]
        with Vertical(classes="dialog small"):
            yield Static(Text(tr("table.confirm_leave_waiting" if self._waiting_room else "table.confirm_leave")))
            bar = KeyBar()
            bar.show([("y", tr("form.yes")), ("n", tr("form.no"))])
            yield bar

    def action_yes(self) -> None:
        self.dismiss(True)

    def action_no(self) -> None:
        self.dismiss(False)


class MatchOverScreen(ModalScreen[None]):
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
        return self.app.table_model(self.table_id)  # type: ignore[attr-defined,no-any-return]

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "rematch":
            return self._can_ask()  # spectators have no say; an asker waits for the others
        return super().check_action(action, parameters)

    def on_mount(self) -> None:
        tr = self.app.tr  # type: ignore[attr-defined]
        self.query_one("#match-over-keys", KeyBar).follow_bindings(lambda binding: str(tr(binding.description)))

    def compose(self) -> ComposeResult:
        tr = self.app.tr  # type: ignore[attr-defined]
        model = self.model
        view = model.view
        winner = view.get("winner")
        scores = view.get("scores") or [0, 0]
        games = view.get("games_won") or [0, 0]
        box = Vertical(classes="dialog", id="match-over")
        box.border_title = Text(tr("table.match_over_title"), style="bold")  # Text: never markup
        holders = view.get("score_holders") or [[i] for i in range(len(scores))]
        malas = int(view.get("malas") or 0)
        with box:
            if len(scores) == 2:
                won = tr("log.match_over", team=team_name(tr, model, winner))
            else:  # one score per player (the three-player game): name the players
                won = tr("log.match_over_names", names=", ".join(model.name(s) for s in view.get("winners") or []))
            yield Static(Text(won, style="bold green"))
            final = " · ".join(
                f"{holder_name(tr, model, entry, holders)} {scores[entry]}"
                + (f" ({score_text(tr, scores[entry], malas)})" if malas else "")
                for entry in range(len(scores))
            )
            yield Static(Text(tr("table.final_score", scores=final)))
            if len(games) == 2 and (view.get("match_games") or 1) > 1:
                yield Static(Text(tr("table.games", a=games[0], b=games[1]), style="dim"))
            lite = bool(getattr(self.app, "lite", False))
            points = hand_summary(tr, model, view.get("card_notation") == "french", lite)
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

    def lobby_changed(self, msg: p.Message) -> None:
        """Called by the app for every server message (as for every screen in the stack)."""
        if not isinstance(msg, p.TableUpdate) or msg.table_id != self.table_id or not self.is_mounted:
            return
        if not msg.view.get("match_over"):
            if self.app.screen is self:  # (under a help dialog: at the next update on top)
                self.dismiss(None)  # the rematch started
            return
        self.query_one("#rematch", Static).update(rematch_text(self.app.tr, self.model) or Text(""))  # type: ignore[attr-defined]
        self.refresh_bindings()

    def action_rematch(self) -> None:
        """Ask (or accept); the dialog stays, saying whom the rematch waits for."""
        if self.model.seat is not None:
            self.app.send(p.Rematch(table_id=self.table_id))  # type: ignore[attr-defined]

    def action_leave(self) -> None:
        self.app.send(p.LeaveTable(table_id=self.table_id))  # type: ignore[attr-defined]
        self.dismiss(None)

    def action_close(self) -> None:
        self.dismiss(None)
