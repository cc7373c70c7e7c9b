"""Keys that do what the player expects: the chat gives the keys back, the key bar lists
only the keys that work now (from the screens' bindings), keys typed in one packet keep
their order and their target."""
from __future__ import annotations

import dataclasses
import random
from typing import Any

import pytest
from textual._xterm_parser import XTermParser
from textual.widgets import DataTable, Input, Select

import engine
import protocol as p
from server.variants import variant_infos
from tui.app import TrucoApp
from tui.textual_patches import fair_turns
from tui.widgets.chat_input import ChatInput
from tui.widgets.keybar import KeyBar
from tui.widgets.keybar import binding_pairs
from tui.screens.lobby import LobbyScreen
from tui.screens.new_table import NewTableScreen
from tui.screens.table import BotLevelScreen, ConfirmLeaveScreen, MatchOverScreen, TableScreen

from tests.tui.helpers import screen_strips, screen_text, toasts, until
from tests.tui.kit import (
    TABLE, FakeLink, Lobby, OwnTurn, ShowTable, TrucoCalled, lobby_with,
    seated_app, table_shown, two_player_state, update_for, welcome,
)


def one_packet(app: TrucoApp, typed: str) -> None:
    """Keys as the session driver delivers one SSH packet: all posted before any is handled."""
    for event in XTermParser(False).feed(typed):
        app.post_message(event)


def key_bar(app: TrucoApp) -> str:
    """The key bar's text, both lines where it breaks onto a second one (a row it keeps
    empty, having needed it before, is no text)."""
    region = app.screen.query_one(KeyBar).region
    rows = (row[region.x:region.right].strip() for row in screen_text(app).splitlines()[region.y:region.bottom])
    return "  ".join(row for row in rows if row)


def actions(link: FakeLink) -> list[p.TableAction]:
    return [m for m in link.sent if isinstance(m, p.TableAction)]


# -- the chat gives the keys back ---------------------------------------------------------

@pytest.mark.parametrize("leave", ["enter", "escape"])
async def test_after_the_table_chat_the_card_keys_play(
        leave: str, link: FakeLink, show_table: ShowTable, own_turn: OwnTurn
) -> None:
    state, events, seat, view = own_turn
    async with show_table(state, seat, events) as pilot:
        app = pilot.app
        await pilot.press("c", *"hola", leave)
        await until(pilot, lambda: app.screen.focused is None
                    and (leave == "escape" or any(isinstance(m, p.TableChat) for m in link.sent)), "the chat closed")
        sent_chat = [m for m in link.sent if isinstance(m, p.TableChat)]
        assert sent_chat == ([p.TableChat(table_id="t1", text="hola")] if leave == "enter" else [])
        assert app.screen.focused is None
        await pilot.press("1")
        assert actions(link)[-1].call == "play" and actions(link)[-1].card == str(view.own_cards[0])
        assert "1" not in app.screen.query_one("#t-chat", Input).value


async def test_after_the_lobby_chat_n_opens_a_table(lobby: Lobby) -> None:
    """Enter sends and the chat stays open (the lobby is where people talk); Esc leaves it."""
    app, link = lobby
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby")
        await pilot.press("c", *"hola", "enter")
        await until(pilot, lambda: any(isinstance(m, p.SendChat) for m in link.sent), "the line sent")
        assert link.sent[-1] == p.SendChat(text="hola")
        assert isinstance(app.focused, Input)
        await pilot.press("escape")
        assert isinstance(app.focused, DataTable)
        await pilot.press("n")
        await until(pilot, lambda: isinstance(app.screen, NewTableScreen), "the new table form")
        assert isinstance(app.screen, NewTableScreen)


# A loaded server: every widget's queue gives the loop back between two messages
# (tui/textual_patches/fair_turns.py does so after 4 ms of work), the order in which the
# widgets' turns interleave when the CPU is short.
TURNS = pytest.mark.parametrize("slice_", [fair_turns.SLICE, 0.0], ids=["idle", "loaded"])


@TURNS
async def test_table_keys_typed_in_one_packet_go_where_the_focus_is_by_then(
        link: FakeLink, show_table: ShowTable, own_turn: OwnTurn, slice_: float, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On a slow link "c", the line, Enter and the card key arrive together."""
    monkeypatch.setattr(fair_turns, "SLICE", slice_)
    state, events, seat, view = own_turn
    async with show_table(state, seat, events) as pilot:
        app = pilot.app
        one_packet(app, "chola\r2")
        await until(pilot, lambda: bool(actions(link)), "the card played after the line")
        assert [m for m in link.sent if isinstance(m, p.TableChat)] == [p.TableChat(table_id="t1", text="hola")]
        assert actions(link)[-1].call == "play" and actions(link)[-1].card == str(view.own_cards[1])
        assert app.screen.query_one("#t-chat", Input).value == ""


async def test_the_line_is_sent_when_its_enter_is_read(
        link: FakeLink, show_table: ShowTable, own_turn: OwnTurn
) -> None:
    """Not later, through a message: a key typed after the Enter, sent back through the app,
    played its card before the line was said (1 run in 75 with the widgets' turns interleaved)."""
    state, events, seat, _view = own_turn
    async with show_table(state, seat, events) as pilot:
        await pilot.press("c", *"hola")
        chat = pilot.app.screen.query_one("#t-chat", ChatInput)
        await until(pilot, lambda: chat.value == "hola", "the line typed")
        chat.action_send()  # (what Enter does)
        assert [m for m in link.sent if isinstance(m, p.TableChat)] == [p.TableChat(table_id="t1", text="hola")]


@TURNS
async def test_lobby_keys_typed_in_one_packet_keep_their_order(lobby: Lobby, slice_: float,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(fair_turns, "SLICE", slice_)
    app, link = lobby
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby")
        one_packet(app, "cuno\rdos\r")  # two lines: the chat stays open after each
        await until(pilot, lambda: len([m for m in link.sent if isinstance(m, p.SendChat)]) >= 2, "both lines sent")
        await pilot.press("escape")
        one_packet(app, "n")  # then a table form
        await until(pilot, lambda: isinstance(app.screen, NewTableScreen), "the new table form")
        assert [m for m in link.sent if isinstance(m, p.SendChat)] == [p.SendChat(text="uno"),
                                                                         p.SendChat(text="dos")]
        assert isinstance(app.screen, NewTableScreen)
        # The form's selects finish mounting before the app exits (on a busy machine the exit
        # came first, and Textual's Select failed to find its own overlay: CI, 2026-11-28).
        await until(pilot, lambda: all(select.is_mounted for select in app.screen.query(Select)), "the selects mounted")
        await pilot.pause()


async def test_typing_in_the_chat_never_triggers_a_key(
        link: FakeLink, show_table: ShowTable, own_turn: OwnTurn
) -> None:
    state, events, seat, view = own_turn
    async with show_table(state, seat, events) as pilot:
        app = pilot.app
        await pilot.press("c", *"1lqe?")
        await until(pilot, lambda: isinstance(app.screen, TableScreen) and app.screen.query_one("#t-chat", Input).value == "1lqe?"
                    and "Esc Back" in key_bar(app), "the line typed, the chat's keys shown")
        assert isinstance(app.screen, TableScreen)
        assert app.screen.query_one("#t-chat", Input).value == "1lqe?"
        assert actions(link) == []
        bar = key_bar(app)
        assert "Enter Send" in bar and "Esc Back" in bar and "Card" not in bar


# -- the key bar lists what works now -----------------------------------------------------

async def test_player_to_play_sees_card_keys_and_no_rematch(show_table: ShowTable, own_turn: OwnTurn) -> None:
    state, events, seat, view = own_turn
    async with show_table(state, seat, events) as pilot:
        app = pilot.app
        bar = key_bar(app)
        assert "1-3 Card" in bar and "c Chat" in bar and "l Leave" in bar and "? Help" in bar
        assert "Rematch" not in bar and "Add bot" not in bar


async def test_out_of_turn_the_card_keys_are_off_but_say_why(
        link: FakeLink, show_table: ShowTable, own_turn: OwnTurn
) -> None:
    state, events, seat, view = own_turn
    other = 1 - seat
    async with show_table(state, other, events) as pilot:
        app = pilot.app
        assert "Card" not in key_bar(app)
        await pilot.press("1")
        await until(pilot, lambda: "turn to play, not yours" in screen_text(app), "the reason the card key is off")
        assert actions(link) == []
        assert "turn to play, not yours" in screen_text(app)  # the engine's reason, with whose turn


async def test_a_spectator_has_no_card_keys_and_l_stops_watching(
        link: FakeLink, show_table: ShowTable
) -> None:
    rules, state, events = two_player_state(seed=8)
    async with show_table(state, None, events) as pilot:
        app = pilot.app
        bar = key_bar(app)
        assert "Card" not in bar and "1-" not in bar
        assert "l Stop watching" in bar and "Leave" not in bar
        await pilot.press("c")
        assert "Esc Back" in key_bar(app) and "watching" not in key_bar(app)
        await pilot.press("escape")
        await pilot.press("1")
        assert actions(link) == []
        await pilot.press("l")  # nothing lost: no question, no bot
        await until(pilot, lambda: any(isinstance(m, p.LeaveTable) for m in link.sent), "the table left")
        assert not isinstance(app.screen, ConfirmLeaveScreen)
        assert link.sent[-1] == p.LeaveTable(table_id="t1")


async def test_a_spectator_in_spanish_deja_de_mirar() -> None:
    rules, state, events = two_player_state(seed=8)
    link = FakeLink()
    app = TrucoApp(link, "ana", "es")
    link.push(*welcome(), p.TableUpdated(table=TABLE), p.Seated(table_id="t1", seat=None))
    async with table_shown(app, link, update_for(state, None, 3, events)):
        assert "l Dejar de mirar" in key_bar(app)


async def test_a_bet_waiting_for_your_answer_hides_the_card_keys(
        link: FakeLink, show_table: ShowTable, truco_called: TrucoCalled
) -> None:
    state, events, mano = truco_called
    answerer = 1 - mano
    async with show_table(state, answerer, events, seq=4) as pilot:
        app = pilot.app
        assert "Card" not in key_bar(app)
        assert "q Quiero" in screen_text(app)  # the answers are in the calls pane
        await pilot.press("1")
        assert actions(link) == []
        await pilot.press("q")
        assert actions(link)[-1].call == "quiero"


def finished_match():  # type: ignore[no-untyped-def]
    rules = engine.get_ruleset("argentino", flor=False, match_games=1, target=15)
    rng = random.Random(1)
    state, _ = engine.new_match(rules, 2, rng)
    while not state.match_over:
        seat = next(s for s in range(2) if engine.legal_actions(state, s))
        action = engine.choose_action(engine.view(state, seat), rules, rng) or engine.legal_actions(state, seat)[0]
        state, _ = engine.advance(state, action, rng)
    return state


async def test_after_the_match_only_rematch_chat_leave_help(link: FakeLink, show_table: ShowTable) -> None:
    state = finished_match()
    async with show_table(state, seq=99, waiting=()) as pilot:
        app = pilot.app
        assert isinstance(app.screen, MatchOverScreen)
        await pilot.press("escape")
        await until(pilot, lambda: isinstance(app.screen, TableScreen) and "r Rematch" in key_bar(app), "the table and its keys")
        assert isinstance(app.screen, TableScreen)
        bar = key_bar(app)
        assert "r Rematch" in bar and "Card" not in bar
        await pilot.press("r")
        assert link.sent[-1] == p.Rematch(table_id="t1")


async def test_once_asked_the_table_bar_drops_the_rematch_key() -> None:
    """The asker waits for the others: r would do nothing more, so the bar no longer lists it."""
    state = finished_match()
    link = FakeLink()
    app = await seated_app(link)
    asked = dataclasses.replace(update_for(state, 0, 99, [], waiting=()), rematch_votes=(0,))
    async with table_shown(app, link, asked) as pilot:
        await pilot.press("escape")
        await until(pilot, lambda: isinstance(app.screen, TableScreen) and "c Chat" in key_bar(app), "the table and its keys")
        assert isinstance(app.screen, TableScreen)
        bar = key_bar(app)
        assert "Rematch" not in bar and "c Chat" in bar
        assert "waiting for beto" in screen_text(app)


async def test_a_spectator_is_offered_no_rematch_after_the_match(
        link: FakeLink, show_table: ShowTable
) -> None:
    state = finished_match()
    async with show_table(state, None, seq=99, waiting=()) as pilot:
        app = pilot.app
        assert isinstance(app.screen, MatchOverScreen)
        bar = screen_text(app)  # the dialog's own key bar
        assert "l Lobby" in bar and "Esc Close" in bar and "Rematch" not in bar
        await pilot.press("r")
        assert not any(isinstance(m, p.Rematch) for m in link.sent)
        await pilot.press("escape")
        await until(pilot, lambda: isinstance(app.screen, TableScreen) and "? Help" in key_bar(app), "the table and its keys")
        assert "Rematch" not in key_bar(app) and "Card" not in key_bar(app)


async def test_one_card_left_reads_1_card(link: FakeLink, show_table: ShowTable) -> None:
    rules, state, events = two_player_state(seed=6)
    rng = random.Random(6)
    for _ in range(200):  # bots play until the seat to play holds a single card
        seat = next(s for s in range(2) if engine.legal_actions(state, s))
        view = engine.view(state, seat)
        if len(view.own_cards) == 1 and any(a.call is engine.Call.PLAY for a in view.legal):
            break
        play = next(a for a in engine.legal_actions(state, seat) if a.call is engine.Call.PLAY) \
            if any(a.call is engine.Call.PLAY for a in engine.legal_actions(state, seat)) \
            else engine.legal_actions(state, seat)[0]
        state, more = engine.advance(state, play, rng)
        events = events + more
    assert len(view.own_cards) == 1
    async with show_table(state, seat, seq=7) as pilot:
        app = pilot.app
        bar = key_bar(app)
        assert "1 Card" in bar and "1-1" not in bar
        await pilot.press("2")
        assert actions(link) == []
        await pilot.press("1")
        assert actions(link)[-1].card == str(view.own_cards[0])


async def test_the_waiting_room_offers_a_bot_to_its_owner_only_while_a_seat_is_free() -> None:
    link = FakeLink()
    table = p.TableInfo(table_id="t1", title="la mesa", variant="argentino", owner="ana",
                        seats=("ana", None), options={"target": 30}, status="waiting")
    app = await seated_app(link, 0, table=table)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, TableScreen) and "b Add bot" in key_bar(app), "the waiting room and its keys")
        assert isinstance(app.screen, TableScreen)
        bar = key_bar(app)
        assert "b Add bot" in bar and "Card" not in bar
        await pilot.press("b")  # the level dialog: Enter takes the normal bot
        await until(pilot, lambda: isinstance(app.screen, BotLevelScreen), "the bot level dialog")
        await pilot.press("enter")
        await until(pilot, lambda: any(isinstance(m, p.AddBot) for m in link.sent), "the bot asked for")
        assert link.sent[-1] == p.AddBot(table_id="t1")
        link.push(p.TableUpdated(table=p.TableInfo(**{**table.__dict__, "seats": ("ana", "Bot 1")})))
        await until(pilot, lambda: "Add bot" not in key_bar(app), "the bot key gone with the free seat")
        assert "Add bot" not in key_bar(app)
        # Leaving before the game frees the seat: the question says so, not "a bot plays".
        await pilot.press("l")
        await until(pilot, lambda: isinstance(app.screen, ConfirmLeaveScreen) and "becomes free" in screen_text(app), "the question")
        assert isinstance(app.screen, ConfirmLeaveScreen)
        assert "becomes free" in screen_text(app) and "bot" not in screen_text(app)


def test_card_keys_group_into_one_entry() -> None:
    from textual.binding import ActiveBinding, Binding

    def active(*bindings: Binding) -> dict[str, ActiveBinding]:
        return {b.key: ActiveBinding(None, b, True, "") for b in bindings}  # type: ignore[arg-type]

    cards = [Binding(str(i + 1), f"card({i})", "Card") for i in range(3)]
    label = lambda b: b.description  # noqa: E731
    assert binding_pairs(active(*cards), label) == [("1-3", "Card")]
    assert binding_pairs(active(cards[0]), label) == [("1", "Card")]
    assert binding_pairs(active(cards[0], cards[2]), label) == [("1,3", "Card")]
    hidden = Binding("x", "call('x')", "", show=False)
    assert binding_pairs(active(hidden, cards[1], Binding("c", "chat", "Chat")), label) == [
        ("2", "Card"), ("c", "Chat")]


async def test_lobby_bar_comes_from_its_bindings(lobby: Lobby) -> None:
    app, link = lobby
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, LobbyScreen) and "q Quit" in key_bar(app), "the lobby and its keys")
        assert isinstance(app.screen, LobbyScreen)
        bar = key_bar(app)
        for pair in ("n New", "j Join", "w Watch", "k Code", "r Resume", "h Games", "s Stats", "? Help", "q Quit"):
            assert pair in bar
        await pilot.press("c")
        bar = key_bar(app)
        assert "Enter Send" in bar and "New" not in bar
        await pilot.press(*"quit")  # typed, not obeyed
        assert app.is_running and app.screen.query_one("#chat-input", Input).value == "quit"


# -- the New-table form: every Tab stop visible and marked --------------------------------

def _reverse_rows(app: TrucoApp) -> set[int]:
    """Screen rows with reverse-video text, the key bar's keys left out."""
    strips = screen_strips(app)
    bar_row = len(strips) - 1
    dialog = app.screen.query_one("#new-table").region  # the lobby shows through around it
    rows = set()
    for y, strip in enumerate(strips):
        strip = strip.crop(dialog.x, dialog.right)
        # Words in reverse (a scrollbar's thumb is drawn in reverse too, with block characters).
        if any(any(ch.isalnum() for ch in seg.text) and seg.style is not None and seg.style.reverse
               for seg in strip):
            rows.add(y)
    keybar = app.screen.query_one("#new-table KeyBar").region.y
    return {y for y in rows if dialog.y <= y < dialog.bottom} - {keybar, bar_row}


def _options_of(form: Any, variant: str) -> bool:
    """The form shows ``variant``'s options, every one mounted."""
    wanted = [f"opt-{opt.name}" for v in variant_infos() if v.name == variant for opt in v.options]
    shown = list(form.query(".option"))
    return [w.id for w in shown] == wanted and all(w.is_mounted for w in shown)


def _shown_and_marked(app: Any, options: Any, widget: Any) -> bool:
    """``widget`` is on screen, scrolled into its options list if it is in it, and marked."""
    region = widget.region
    if region.width == 0 or (widget in options.walk_children() and not options.region.contains_region(region)):
        return False
    return region.y in _reverse_rows(app)


@pytest.mark.slow
# At the smallest size only, where it is tightest, in both looks (each case takes 12-14 s of
# CPU; tests/tui/test_screen_sizes.py lays the form out at the other sizes).
@pytest.mark.parametrize(("size", "lite"), [((60, 20), False), ((60, 20), True)])
async def test_new_table_tab_stops_are_visible_controls_each_marked_in_reverse(size, lite) -> None:
    app, link = lobby_with()
    async with app.run_test(size=size) as pilot:
        await until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby")
        if lite:
            app.toggle_lite()
        for variant in ("argentino", "venezolano"):  # the most options, then another set
            await pilot.press("n")
            await until(pilot, lambda: isinstance(app.screen, NewTableScreen), "the new table form")
            form = app.screen
            assert isinstance(form, NewTableScreen)
            form.query_one("#variant").value = variant
            await until(pilot, lambda: _options_of(form, variant), f"the options of {variant}")
            dialog = form.query_one("#new-table").region
            chain = list(form.focus_chain)
            assert chain[0] is form.focused
            seen = []
            for _ in range(len(chain)):
                widget = form.focused
                options = form.query_one("#options")
                await until(pilot, lambda w=widget: _shown_and_marked(app, options, w),
                            f"{widget} scrolled into view and marked",
                            seen=lambda w=widget: f"at {w.region} in {options.region} scrolled "
                            f"{options.scroll_y}/{options.max_scroll_y}, marked rows {_reverse_rows(app)}, "
                            f"toasts {toasts(app)}\n{screen_text(app)}")
                region = widget.region
                # A real control, whole and on screen: no container, nothing cut or scrolled away.
                assert type(widget).__name__ in ("Select", "Input", "TickBox", "Button"), widget
                assert region.width > 0 and region.height > 0, widget
                assert dialog.contains_region(region), (widget, region, dialog)
                if widget in options.walk_children():
                    assert options.region.contains_region(region), (widget, region, options.region)
                # Its mark, in reverse video (not colour alone), on its own row and no other.
                marked = _reverse_rows(app)
                # (an option's row is two lines when its label wraps, at 60 columns)
                row = next((n for n in widget.ancestors_with_self if n.has_class("form-row")), widget).region
                assert region.y in marked and marked <= set(range(row.y, row.bottom)), (widget, marked)
                seen.append(widget)
                await pilot.press("tab")
            assert seen == chain and form.focused is chain[0]  # in order, then round again
            for box in form.query("TickBox"):  # a long label wraps, never loses its end
                assert box.region.height == box.render().get_height(box.styles, box.region.width)
            one_packet(app, "\t\t\t")  # quick Tabs: still one mark, on the focused row
            await until(pilot, lambda: form.focused is chain[3] and _reverse_rows(app) == {chain[3].region.y},
                        "three Tabs taken, the fourth control marked alone")
            assert form.focused is chain[3] and _reverse_rows(app) == {chain[3].region.y}  # one line: private
            await pilot.press("escape")
            await until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby again")
