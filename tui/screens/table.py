"""The table: seats, tricks, bets, your cards and the calls you may make.

Everything here is drawn from the last ``TableUpdate`` (the engine's view for this
viewer) and the events it carried; no game state lives in the widgets. Each part
is its own small widget so a change repaints only what it touches.
"""
from __future__ import annotations

import secrets
from typing import Any

from rich.table import Table
from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen, Screen
from textual.widgets import Input, Static

import protocol as p
from tui.calls import CallChoice, assign_keys, call_label
from tui.cards import card_box
from tui.event_text import event_line, hand_summary, team_name
from tui.screens.chat_input import ChatInput
from tui.screens.keybar import KeyBar
from tui.screens.panels import GridPanel, HandPanel, LogPanel, Panel
from tui.table_model import TableModel

PENDING_ENVIDO = ("betting", "declaring")
PENDING_FLOR = ("announcing", "answering", "round_two")


CARD_WIDTH = 8  # a drawn card (7) and the gap after it
CARD_CALLS = ("play", "discard")  # made with the card keys directly


class TableScreen(Screen[None]):
    AUTO_FOCUS = ""  # keys are the table's; the chat input only takes focus on "c"
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
        with Horizontal(id="t-middle"):
            yield Panel(id="t-seats")
            yield Panel(id="t-tricks")
        yield Panel(id="t-bets")
        with Horizontal(id="t-hand"):
            yield HandPanel(id="t-cards", card_width=CARD_WIDTH, on_pick=self.play_card)
            yield GridPanel(id="t-actions", columns=2, on_pick=self._pick_action)
        yield LogPanel(id="t-log")
        yield ChatInput(id="t-chat", max_length=p.CHAT_MAX)
        with Horizontal(id="t-status-row"):
            yield Panel(id="t-status")
            yield Panel(id="t-timer")
        yield KeyBar(id="t-keys")

    def on_mount(self) -> None:
        self.query_one("#t-chat", Input).placeholder = self.tr("table.chat_placeholder")
        log = self.query_one("#t-log", LogPanel)
        for entry in self.table.log:
            self._write_log(log, entry)
        for line in self.table.chat:
            log.write(self._chat_text(line))
        self.redraw()
        self._timer_handle = self.set_interval(1.0, self._tick_timer)

    # -- events from the app ------------------------------------------------------------
    def lobby_changed(self, msg: p.Message) -> None:
        if not self.is_mounted:
            return
        if isinstance(msg, p.TableUpdate) and msg.table_id == self.table_id:
            log = self.query_one("#t-log", LogPanel)
            for entry in msg.events:
                self._write_log(log, entry)
            self.redraw()
        elif isinstance(msg, p.Chat) and msg.line.table_id == self.table_id:
            self.query_one("#t-log", LogPanel).write(self._chat_text(msg.line))
        elif self.table.update is None and (
                isinstance(msg, p.TableUpdated) and msg.table.table_id == self.table_id
                or isinstance(msg, p.Seated) and msg.table_id == self.table_id):
            self.redraw()  # the waiting room shows this table's seats, nobody else's

    def _write_log(self, log: LogPanel, entry: dict[str, Any]) -> None:
        line = event_line(self.tr, self.table, entry, self._french(), self._ascii())
        if line is not None:
            log.write(line)

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
        self._draw_keys()
        self._tick_timer()
        view = model.view
        if view.get("match_over") and not self._match_over_shown:
            self._match_over_shown = True
            self.app.push_screen(MatchOverScreen(self.table_id))
        elif not view.get("match_over"):
            self._match_over_shown = False

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

    def _draw_waiting(self) -> None:
        info = self._info()
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
        self.query_one("#t-tricks", Panel).show(Text(""))
        waiting = Text(self.tr("table.waiting_for", n=free), style="bold")
        self.query_one("#t-bets", Panel).show(waiting)
        self.query_one("#t-score", Panel).show(Text(""))
        owner = info is not None and info.owner == self.app.model.me  # type: ignore[attr-defined]
        keys = [("l", self.tr("key.leave_table")), ("c", self.tr("key.chat")), ("?", self.tr("key.help"))]
        if owner:
            keys.insert(0, ("b", self.tr("key.add_bot")))
        self.query_one("#t-keys", KeyBar).show(keys)
        self.query_one("#t-status", Panel).show(Text(self.tr("table.status.waiting")))

    def _draw_score(self) -> None:
        view, model = self.table.view, self.table
        scores = list(view.get("scores") or [0, 0])
        texts = view.get("scores_text") or [str(x) for x in scores]
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
            if view.get("variant") == "argentino" or texts[entry] != str(score):
                line.append(f" {score} ({texts[entry]})  ")
            else:
                line.append(f" {score}/{target}  ")
        games = view.get("games_won") or [0, 0]
        if (view.get("match_games") or 1) > 1 and len(games) == 2:
            line.append(self.tr("table.games", a=games[0], b=games[1]), style="dim")
        self.query_one("#t-score", Panel).show(line)

    def _draw_seats(self) -> None:
        model, view = self.table, self.table.view
        update = model.update
        assert update is not None
        hand_sizes = view.get("hand_sizes") or []
        said = self._last_said()
        out = Text(no_wrap=True, overflow="ellipsis")
        for seat, info in enumerate(update.seats):
            waiting = seat in update.waiting
            lite = self._ascii()
            out.append(("> " if lite else "▶ ") if waiting else "  ", style="bold yellow")
            team = model.team_of(seat)
            mine = team is not None and team == model.my_team()
            style = "bold green" if mine else "bold"
            name = info.name + (" *" if seat == model.seat else "")
            out.append(f"{name[:13]:<13}", style=style)
            out.append(f" {team_name(self.tr, model, team)[:5]:<5}", style="green" if mine else "")
            size = hand_sizes[seat] if seat < len(hand_sizes) else 0
            out.append(" " + (("#" if lite else "■") * size).ljust(4), style="cyan")
            role = ("D" if view.get("dealer") == seat else " ") + ("M" if view.get("mano") == seat else " ")
            out.append(role, style="dim")
            if info.bot:
                out.append(" bot", style="dim")
            elif info.away:
                out.append(" " + self.tr("table.away"), style="red")
            if seat in said:
                out.append(" " + said[seat], style="italic yellow")
            out.append("\n")
        self.query_one("#t-seats", Panel).show(out)

    def _last_said(self) -> dict[int, str]:
        said: dict[int, str] = {}
        variant = str(self.table.view.get("variant", ""))
        for event in self.table.last_hand_events:
            if event.get("type") == "acted" and event.get("call") != "play":
                seat = event.get("seat")
                if isinstance(seat, int):
                    call = str(event.get("call"))
                    said[seat] = (str(event.get("value")) if call == "declare_envido"
                                  else call_label(self.tr, variant, call))
        return said

    def _draw_tricks(self) -> None:
        model, view = self.table, self.table.view
        tricks = [list(t) for t in (view.get("tricks") or [])]
        current = view.get("current_trick") or []
        if current:
            tricks.append(list(current))
        columns = max(3, len(tricks))
        french = self._french()
        results = view.get("trick_results") or []
        out = Text(no_wrap=True, overflow="ellipsis")
        out.append(" " * 13)
        for i in range(columns):  # a finished trick's header says who took it
            if i < len(results):
                out.append(f"{self._result_text(results[i])[:5]:<6}", style="bold cyan")
            else:
                out.append(f"{self.tr('table.trick_n', n=i + 1):<6}", style="dim")
        for seat in view.get("players") or []:
            out.append(f"\n{model.name(seat)[:12]:<13}")
            for trick in tricks:
                card = next((c for s, c in trick if s == seat), None)
                cell = _card_cell(card, french, self._ascii())
                cell.truncate(6, pad=True)
                out.append_text(cell)
        self.query_one("#t-tricks", Panel).show(out)

    def _result_text(self, team: int | None) -> str:
        return team_name(self.tr, self.table, team)

    def _draw_bets(self) -> None:
        view, model = self.table.view, self.table
        variant = str(view.get("variant", ""))
        line = Text(no_wrap=False)
        truco_value = view.get("truco_value", 1)
        pending = view.get("truco_pending")
        line.append(self.tr("table.hand_worth", n=truco_value), style="bold")
        if pending:
            who = model.name(view.get("truco_pending_by"))
            line.append("  " + self.tr("table.pending", call=call_label(self.tr, variant, str(pending)), who=who),
                        style="bold red")
        envido = view.get("envido_status")
        calls = view.get("envido_calls") or []
        if calls and envido in PENDING_ENVIDO:
            said = " + ".join(call_label(self.tr, variant, str(c)) for c in calls)
            ley = view.get("envite_ley")  # Venezuelan a ley: con ley (a bet on flor) or sin ley
            key = "table.envido_pending" if ley is None else (
                "table.envite_con_ley" if ley else "table.envite_sin_ley")
            line.append("  " + self.tr(key, calls=said), style="bold magenta")
        if view.get("flor_status") in PENDING_FLOR:
            line.append("  " + self.tr("table.flor_pending"), style="bold magenta")
        elif view.get("flor_status") == "ley":
            line.append("  " + self.tr("table.ley_pending"), style="bold magenta")
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
        if view.get("phase") == "deal" or (view.get("game_winner") is not None and not view.get("match_over")):
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
        boxes = [card_box(card, str(i + 1), french=french, ascii_only=ascii_only, selected=card in playable)
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
        key = tuple(calls)
        if key == self._actions_key:
            return  # unchanged: nothing to repaint
        self._actions_key = key
        self._choices = assign_keys(calls)
        variant = str(self.table.view.get("variant", ""))
        cells = []
        for choice in self._choices:
            label = Text()
            label.append(choice.key, style="reverse bold")
            label.append(" " + call_label(self.tr, variant, choice.call))
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

            self.app.push_screen(PromptScreen(title, str(amounts[0]), 2,
                                              [("Enter", self.tr("key.accept")), ("Esc", self.tr("key.cancel"))]),
                                 chosen)
        elif self._is_card_call(call):
            self._card_call = call
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
            text = Text(self.tr("table.status.match_over"), style="bold green")
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

    def _draw_keys(self) -> None:
        cards = len(self.table.view.get("own_cards") or []) or 3
        keys = [(f"1-{cards}", self.tr("key.play")), ("c", self.tr("key.chat")), ("l", self.tr("key.leave_table")),
                ("?", self.tr("key.help"))]
        if self.table.view.get("match_over"):
            keys.insert(0, ("r", self.tr("key.rematch")))
        self.query_one("#t-keys", KeyBar).show(keys)

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
    def on_key(self, event: events.Key) -> None:
        if isinstance(self.focused, Input):
            if event.key == "escape":
                self.set_focus(None)
                event.stop()
            return
        key = event.character or event.key
        if key and key.isdigit() and key != "0":
            self.play_card(int(key) - 1)
            event.stop()
            return
        for choice in self._choices:
            if choice.key == key:
                self._choose(choice.call)
                event.stop()
                return
        if key == "c":
            self.set_focus(self.query_one("#t-chat", Input))
        elif key == "l":
            self.app.push_screen(ConfirmLeaveScreen(), self._leave_confirmed)
        elif key == "b":
            self.app.send(p.AddBot(table_id=self.table_id))  # type: ignore[attr-defined]
        elif key == "r" and self.table.view.get("match_over"):
            self.app.send(p.Rematch(table_id=self.table_id))  # type: ignore[attr-defined]
        elif key == "question_mark" or key == "?":
            from tui.screens.help import HelpScreen

            self.app.push_screen(HelpScreen(self._help_text()))
        else:
            return
        event.stop()

    def _help_text(self) -> str:
        info = self._info()
        lines = [self.tr("help.table")]
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
            return
        wanted, self._card_call = self._card_call, None
        call = next(
            (str(a.get("call")) for a in self.table.view.get("legal") or []
             if a.get("card") == own[index] and (wanted is None or a.get("call") == wanted)
             and (wanted is not None or a.get("call") in CARD_CALLS)),
            None,
        )
        if call is None:
            # Known locally: no round trip, no error toast, just say why in the status line.
            self.query_one("#t-status", Panel).show(Text(self.tr("table.cannot_play"), style="bold red"))
            return
        self._send_action(call, own[index])

    def _send_action(self, call: str, card: str | None, *, amount: int | None = None) -> None:
        self._cid += 1
        self.app.send(p.TableAction(table_id=self.table_id, call=call, card=card, cid=self._cid,  # type: ignore[attr-defined]
                                    amount=amount))


def _card_cell(card: str | None, french: bool, ascii_only: bool = False) -> Text:
    if card is None:
        return Text("")
    from tui.cards import card_text

    return card_text(card, french=french, ascii_only=ascii_only)


class ConfirmLeaveScreen(ModalScreen[bool]):
    BINDINGS = [("y", "yes", ""), ("s", "yes", ""), ("n", "no", ""), ("escape", "no", "")]

    def compose(self) -> ComposeResult:
        tr = self.app.tr  # type: ignore[attr-defined]
        with Vertical(classes="dialog small"):
            yield Static(Text(tr("table.confirm_leave")))
            bar = KeyBar()
            bar.show([("y", tr("form.yes")), ("n", tr("form.no"))])
            yield bar

    def action_yes(self) -> None:
        self.dismiss(True)

    def action_no(self) -> None:
        self.dismiss(False)


class MatchOverScreen(ModalScreen[None]):
    BINDINGS = [("r", "rematch", ""), ("l", "leave", ""), ("escape", "close", "")]

    def __init__(self, table_id: str) -> None:
        super().__init__()
        self.table_id = table_id

    def compose(self) -> ComposeResult:
        tr = self.app.tr  # type: ignore[attr-defined]
        model: TableModel = self.app.table_model(self.table_id)  # type: ignore[attr-defined]
        view = model.view
        winner = view.get("winner")
        scores = view.get("scores") or [0, 0]
        games = view.get("games_won") or [0, 0]
        with Vertical(classes="dialog small", id="match-over"):
            yield Static(Text(tr("table.match_over_title"), style="bold"))
            yield Static(Text(tr("log.match_over", team=team_name(tr, model, winner)), style="bold green"))
            final = " · ".join(
                f"{team_name(tr, model, team)} {scores[team]}" for team in range(len(scores))
            )
            yield Static(Text(tr("table.final_score", scores=final)))
            if len(games) == 2 and (view.get("match_games") or 1) > 1:
                yield Static(Text(tr("table.games", a=games[0], b=games[1]), style="dim"))
            bar = KeyBar()
            bar.show([("r", tr("key.rematch")), ("l", tr("key.back_to_lobby")), ("Esc", tr("key.close"))])
            yield bar

    def action_rematch(self) -> None:
        self.app.send(p.Rematch(table_id=self.table_id))  # type: ignore[attr-defined]
        self.dismiss(None)

    def action_leave(self) -> None:
        self.app.send(p.LeaveTable(table_id=self.table_id))  # type: ignore[attr-defined]
        self.dismiss(None)

    def action_close(self) -> None:
        self.dismiss(None)
