"""The table: seats, tricks, bets, your cards and the calls you may make.

Everything here is drawn from the last ``TableUpdate`` (the engine's view for this
viewer) and the events it carried; no game state lives in the widgets. Each part
is its own small widget so a change repaints only what it touches.
"""
from __future__ import annotations

import secrets
from typing import ClassVar

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.css.query import NoMatches
from textual.widgets import Input

import protocol as p
from tui.calls import PREFERRED_KEYS, RESERVED, SPARE_KEYS, CallChoice, call_label
from tui.refusals import card_refusal, no_card_reason, refusal_text
from tui.screens.base import TrucoScreen, unless_popped
from tui.screens.table_keys import CALL_DESCRIPTION, KeyBarGate
from tui.screens.table_dialogs import BotLevelScreen, ConfirmLeaveScreen, MatchOverScreen, over_table
from tui.screens.table_seats import SeatChoice
from tui.table_model import TableModel
from tui.widgets.chat_input import ChatInput
from tui.widgets.keybar import KeyBar
from tui.widgets.messages import CallPicked, CardPicked, Redraw
from tui.widgets.panels import Panel
from tui.widgets.table import (BetsLine, CallsPanel, CardsPanel, ScoreLine, SeatsPanel, StatusLine, TableLog,
                               TitleLine, TricksPanel, TurnTimer)
from tui.widgets.table.calls import card_action, is_card_call, usable_card_keys
from tui.widgets.table.calls import amounts as call_amounts
from tui.widgets.table.senas import PartnerTalk, sena_text

# (the dialogs are imported from here by the tests and the app)
__all__ = ["BotLevelScreen", "ConfirmLeaveScreen", "MatchOverScreen", "TableScreen", "over_table"]

CARD_KEYS = "123456789"
# Every key assign_keys may give a call (tui/calls.py), each its own binding.
CALL_KEYS = "".join(dict.fromkeys(
    k for k in [*PREFERRED_KEYS.values(), *SPARE_KEYS, *"ABCDEFGHIJKLMNOPQRSTUVWXYZ"] if k not in RESERVED))


def _table_bindings() -> list[Binding]:
    """Every key of the table, each enabled or hidden by ``TableScreen.check_action``.

    The key bar lists the enabled ones with a description (a locale key; the calls only while
    they answer or declare: KeyBarGate.call_key_label). All are priority bindings, run when
    the app reads the key: in the order typed, and a key after "c" in the same packet finds
    the chat already focused (``check_action`` then turns every table key off).
    """
    calls = [Binding(k, f"call({k!r})", CALL_DESCRIPTION, priority=True) for k in CALL_KEYS]
    return [
        # b and r come first: when enabled (the waiting room, the match over) they lead the bar.
        Binding("enter", "start", "key.start", key_display="Enter", priority=True),  # the waiting room's
        Binding("b", "add_bot", "key.add_bot", priority=True),
        Binding("r", "rematch", "key.rematch", priority=True),
        Binding("m", "seats", "key.seats", priority=True),  # the waiting room's; m is the mazo's later
        *(Binding(k, f"card({i})", "key.play", priority=True) for i, k in enumerate(CARD_KEYS)),
        Binding("c", "chat", "key.chat", priority=True),
        Binding("C", "partner_chat", "key.partner_chat", priority=True),
        Binding("S", "sena", "key.sena", priority=True),
        Binding("l", "leave", "key.leave_table", priority=True),
        Binding("question_mark", "help", "key.help", key_display="?", priority=True),
        *calls,  # after b and r: a call on one of those keys wins only when they are off
    ]


TABLE_ACTIONS = {b.action.split("(", 1)[0] for b in _table_bindings()}


class TableScreen(PartnerTalk, SeatChoice, KeyBarGate, TrucoScreen[None]):
    AUTO_FOCUS = ""  # keys are the table's; the chat input only takes focus on "c"
    # Size classes for tui/truco.tcss: 60x20 is the smallest supported terminal, 80x24
    # the usual one; the -seats-N class (set when the table is known) sizes the seat rows.
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (80, "-normal"), (120, "-wide")]
    VERTICAL_BREAKPOINTS = [(0, "-short"), (24, "-normal-height"), (40, "-tall")]
    BINDINGS: ClassVar[list[BindingType]] = list(_table_bindings())

    def __init__(self, table_id: str) -> None:
        super().__init__()
        self.table_id = table_id
        # Command ids only have to differ from the ones this seat used before; a random
        # base keeps them apart across reconnects (a new session must not reuse old ids).
        self._cid = secrets.randbelow(2**40) << 8
        self._summary_shown_for = -1
        self._match_over_shown = False
        self._card_call: str | None = None  # a call waiting for its card (las que pintan)

    @property
    def table(self) -> TableModel:
        return self.app.table_model(self.table_id)

    def compose(self) -> ComposeResult:
        self._size_seats()  # before the parts are styled: set later, every part is styled again
        waiting = "-waiting" if self.table.update is None else ""  # (only these two: see redraw)
        yield from (TitleLine(id="t-title", classes=waiting), ScoreLine(id="t-score", classes=waiting))
        with Horizontal(id="t-middle"):  # one row per seat, the tricks in line with them
            yield SeatsPanel(id="t-seats")
            yield TricksPanel(id="t-tricks")
        yield BetsLine(id="t-bets")
        with Horizontal(id="t-hand"):
            yield CardsPanel(id="t-cards")
            yield CallsPanel(id="t-actions")
        with Horizontal(id="t-talk"):  # side by side; stacked, or one pane, when small
            yield TableLog(id="t-log")
            yield TableLog(id="t-chat-log")
        with Vertical(id="t-foot"):
            yield ChatInput(id="t-chat", max_length=p.CHAT_MAX, send=self.send_chat)
            with Horizontal(id="t-status-row"):
                yield StatusLine(id="t-status")
                yield TurnTimer(id="t-timer")
        yield KeyBar(id="t-keys")

    @unless_popped
    def on_mount(self) -> None:
        self.query_one("#t-chat", Input).placeholder = self.tr("table.chat_placeholder")
        log = self.query_one("#t-log", TableLog)
        log.set_title(" " + self.tr("table.log_title") + " ")
        chat = self.query_one("#t-chat-log", TableLog)
        chat.show_chat = True
        chat.set_title(" " + self.tr("table.chat_title") + " ")
        self._fill_log()
        self.redraw()
        self.query_one("#t-keys", KeyBar).follow_bindings(self._binding_label, self.key_order, self.short_optional)

    def on_resize(self, event: events.Resize) -> None:
        # The size classes are set by now; the panes know their sizes after the layout.
        self.call_after_refresh(self._share_talk)

    def on_redraw(self, message: Redraw) -> None:
        """A part drawn to its width (the seats, the tricks) was resized."""
        self.redraw()

    def _share_talk(self) -> None:
        """Where the chat pane is hidden (a small terminal) the log shows the chat too."""
        self.query_one("#t-log", TableLog).set_show_chat(not self.query_one("#t-chat-log", TableLog).display)
        if self.table.update is not None:
            self.refresh_keys()  # (a short terminal's bar leaves some keys off)

    def key_pageup(self) -> None:
        self.query_one("#t-log", TableLog).page(1)

    def key_pagedown(self) -> None:
        self.query_one("#t-log", TableLog).page(-1)

    # -- events from the app ------------------------------------------------------------
    def server_changed(self, msg: p.Message) -> None:
        if not self.is_mounted:
            return
        if isinstance(msg, p.TableUpdate) and msg.table_id == self.table_id:
            if msg.history:  # (re)joined: the model's log was replaced by the match so far
                self._fill_log()
            else:
                self.query_one("#t-log", TableLog).write_events(self.table, msg.events)
            self.redraw()
        elif isinstance(msg, p.Chat) and msg.line.table_id == self.table_id:
            self._write_chat(msg.line)
        elif isinstance(msg, p.SenaSeen) and msg.table_id == self.table_id:
            self._write_talk(sena_text(self.tr, self.table, msg))
        elif isinstance(msg, p.DealSeal) and msg.table_id == self.table_id:
            self.query_one("#t-log", TableLog).write_seal(msg)
        elif self.table.update is None and (
                isinstance(msg, p.TableUpdated) and msg.table.table_id == self.table_id
                or isinstance(msg, p.Seated) and msg.table_id == self.table_id):
            self.redraw()  # the waiting room shows this table's seats, nobody else's

    def _fill_log(self) -> None:
        """The log drawn again from the model (on mount, and when a rejoin replaced it)."""
        log = self.query_one("#t-log", TableLog)
        log.clear(self.table.seal)  # (the match's commitment first, once it came)
        self.query_one("#t-chat-log", TableLog).clear()
        log.write_events(self.table, self.table.log)
        for line in self.table.chat:
            self._write_chat(line)
        for sena in self.table.senas:
            self._write_talk(sena_text(self.tr, self.table, sena))

    def _french(self) -> bool:
        return self.table.view.french

    def _ascii(self) -> bool:
        """Lite mode: cards in plain ASCII."""
        return bool(getattr(self.app, "lite", False))

    # -- drawing: each part draws itself from the model -----------------------------------
    def redraw(self) -> None:
        model, info = self.table, self._info()
        self._size_seats()
        title, score = self.query_one("#t-title", TitleLine), self.query_one("#t-score", ScoreLine)
        for part in (title, score):  # -waiting: the score line's row is the title's (truco.tcss)
            part.set_class(model.update is None, "-waiting")
        title.update_from(model, info)
        if model.update is None:
            self._draw_waiting()
            return
        score.update_from(model)
        self.query_one("#t-seats", SeatsPanel).update_from(model)
        self.query_one("#t-tricks", TricksPanel).update_from(model)
        self.query_one("#t-bets", BetsLine).update_from(model)
        self.query_one("#t-cards", CardsPanel).update_from(model)
        self.query_one("#t-actions", CallsPanel).update_from(model)
        self.query_one("#t-status", StatusLine).update_from(model)
        self.refresh_keys()  # the key bar: what check_action allows in this state
        self.query_one("#t-chat", Input).placeholder = self._placeholder()  # (reserved words?)
        self._follow_timer()
        if model.view.match_over and not self._match_over_shown:
            self._match_over_shown = True
            self.app.push_screen(MatchOverScreen(self.table_id))
        elif not model.view.match_over:
            self._match_over_shown = False

    def _size_seats(self) -> None:
        """-seats-N gives the seat rows (and the tricks beside them) their height."""
        update, info = self.table.update, self._info()
        wanted = f"-seats-{len(update.seats) if update else len(info.seats) if info else 2}"
        if not self.has_class(wanted):
            self.remove_class(*(c for c in self.classes if c.startswith("-seats-")))
            self.add_class(wanted)

    def _info(self) -> p.TableInfo | None:
        return self.app.model.tables.get(self.table_id)

    def _draw_restoring(self, info: p.TableInfo) -> None:
        """The server restarted and this table is not back yet: who sits there and that it is
        coming back (no waiting-room hints or keys: nobody joins a table being restored)."""
        self.query_one("#t-seats", SeatsPanel).show_restoring(info)
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
        free = self.query_one("#t-seats", SeatsPanel).show_waiting(info)
        code = self._join_code()
        self.query_one("#t-tricks", Panel).show(Text(""))
        self.query_one("#t-bets", BetsLine).show_waiting(
            free, code, self.waiting_line(info, free), self.app.join_commands.get(code, ()))
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
        return str(self.app.model.codes.get(self.table_id, ""))

    @property
    def _choices(self) -> list[CallChoice]:
        """The calls shown now, with their keys (the calls pane assigns them)."""
        # (asked per call key whenever the key bar follows the bindings: found once, not queried)
        panel: CallsPanel | None = getattr(self, "_calls_panel", None)
        if panel is None:
            try:
                panel = self._calls_panel = self.query_one("#t-actions", CallsPanel)
            except NoMatches:  # (not composed yet: no calls)
                return []
        return panel.choices

    def on_call_picked(self, message: CallPicked) -> None:
        if 0 <= message.index < len(self._choices):
            self._choose(self._choices[message.index].call)

    def on_card_picked(self, message: CardPicked) -> None:
        self.play_card(message.index)

    def _choose(self, call: str) -> None:
        view = self.table.view
        amounts = call_amounts(view, call)
        if amounts:
            from tui.screens.prompt import PromptScreen

            title = self.tr("table.how_many", call=call_label(self.tr, view.variant, call),
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
        elif is_card_call(view, call):
            self._card_call = call
            self.refresh_bindings()  # the card keys now pick that call's card
            self._say(Text(self.tr("table.pick_card"), style="bold yellow"))
        else:
            self._send_action(call, None)

    def _say(self, text: Text) -> None:
        self.query_one("#t-status", StatusLine).say(text)

    def _follow_timer(self) -> None:
        self.query_one("#t-timer", TurnTimer).follow(self.table)

    # -- input ---------------------------------------------------------------------------
    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Which table keys work now: False hides a key from the bar and turns it off."""
        if action not in TABLE_ACTIONS:
            return super().check_action(action, parameters)  # Textual's own (copy, focus...)
        return self.table_key_usable(action, parameters, isinstance(self.focused, Input))

    def table_key_usable(self, action: str, parameters: tuple[object, ...], typing: bool) -> bool:
        """``check_action`` of a table key, ``typing`` saying whether the chat has the focus
        (the key bar asks about every key on every update: the focus is looked up once)."""
        if typing:
            return False  # typing in the chat: every key is text
        if action in ("chat", "leave", "help"):  # (asked on every update: the table not looked up)
            return True
        if action == "card":
            return int(parameters[0]) in self.usable_card_keys()  # type: ignore[call-overload]
        if action == "call":
            return any(choice.key == parameters[0] for choice in self._choices)
        if action in ("sena", "partner_chat"):
            return self.partner_key_usable(action)
        model = self.table
        if model.update is not None and action in ("seats", "start", "add_bot"):
            return False  # waiting-room keys: the game is on
        if action in ("seats", "start"):
            return self.seats_usable() if action == "seats" else self.start_usable()
        if action == "add_bot":
            info = self._info()
            return (info is not None and None in info.seats
                    and info.owner == self.app.model.me)
        if action == "rematch":  # once asked, r does nothing more: the bar drops it
            update = model.update
            asked = update is not None and model.seat in update.rematch_votes
            return not self._watching() and model.view.match_over and not asked
        return True

    def usable_card_keys(self) -> frozenset[int]:
        """A card key works when some legal action now takes that card: a play or a discard,
        or the call that waits for its card (never for a spectator, never after the match)."""
        return usable_card_keys(self.table.view, self._card_call)

    def _card_action(self, card: str) -> str | None:
        return card_action(self.table.view, card, self._card_call)

    def _watching(self) -> bool:
        """No seat here (before the first update only the lobby's Seated tells)."""
        if self.table.update is not None:
            return self.table.seat is None
        return self.app.model.seat is None

    def on_key(self, event: events.Key) -> None:
        """A key that is off now says why: a card out of turn or with a bet to answer first,
        a card key while watching or in a blind hand, a call that is not possible now."""
        key = event.character or ""
        if isinstance(self.focused, Input) or not key:
            return
        if key.isdigit() and key != "0":
            if int(key) <= len(self.table.view.own_cards) or self._no_card_reason():
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

    def action_leave(self) -> None:
        if self._watching():  # a spectator just stops watching: nothing to lose
            return self._leave_confirmed(True)
        info = self._info()  # (None: not known yet, and the warning is said)
        self.app.push_screen(ConfirmLeaveScreen(self.table.update is None, not info or info.rated), self._leave_confirmed)

    def action_add_bot(self) -> None:
        self.app.push_screen(BotLevelScreen(), self._bot_level_chosen)

    def _bot_level_chosen(self, level: str | None) -> None:
        if level is not None:
            self.app.send(p.AddBot(table_id=self.table_id, level=level))

    def action_rematch(self) -> None:
        self.app.send(p.Rematch(table_id=self.table_id))

    def action_help(self) -> None:
        from tui.screens.help import HelpScreen, table_help

        text = table_help(self.tr, self.table, self._info(), self.app.model.variants,
                          french=self._french(), ascii_only=self._ascii())
        self.app.push_screen(over_table(HelpScreen(text)))

    def _leave_confirmed(self, yes: bool | None) -> None:
        if yes:
            self.app.held_keys.hold()  # until the server seats this player in the lobby
            self.app.send(p.LeaveTable(table_id=self.table_id))

    def play_card(self, index: int) -> None:
        """A card key (or click): whatever legal action takes that card (play, discard...)."""
        own = self.table.view.own_cards
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
            self._say(Text(reason, style="bold red"))
            return
        self._send_action(call, own[index])

    def _explain_refused_call(self, key: str | None) -> bool:
        """The key of a call that is not possible now (t with no truco to call, e after the
        first trick...) says why in the status line, as the engine gives it."""
        for call, reason in self.table.view.call_refusals:
            if PREFERRED_KEYS.get(call) == key:
                self._say(Text(refusal_text(self.tr, reason, self.table), style="bold red"))
                return True
        return False

    def _no_card_reason(self) -> str:
        return no_card_reason(self.tr, self.table)

    def _card_refusal(self, card: str) -> str:
        return card_refusal(self.tr, self.table, card)

    def _send_action(self, call: str, card: str | None, *, amount: int | None = None) -> None:
        self._cid += 1
        self.app.send(p.TableAction(table_id=self.table_id, call=call, card=card, cid=self._cid,
                                    amount=amount))
