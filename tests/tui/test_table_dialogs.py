"""Issue 13, "Nothing hidden": the log after a reconnect, dialogs over the table, the
private table's code, the rematch. Pilot tests fed with real engine states."""
from __future__ import annotations

import dataclasses
import random

import pytest
from textual.geometry import Region

import engine
import protocol as p
from tui.app import TrucoApp
from tui.cards import card_text
from tui.screens.help import HelpScreen
from tui.screens.prompt import PromptScreen
from tui.screens.table import ConfirmLeaveScreen, MatchOverScreen, TableScreen

from tests.tui.helpers import screen_text, until
from tests.tui.kit import (
    TABLE, FakeLink, PuntosOffered, ShowTable, seated_app, table_shown, two_player_state, update_for, venezolano_shown,
    welcome,
)


def played_hands(hands: int, seed: int = 7) -> tuple[engine.State, list[engine.Event]]:
    """A 2-player Argentine match after ``hands`` whole hands (bots on both seats)."""
    rules = engine.get_ruleset("argentino", flor=False)
    rng = random.Random(seed)
    state, events = engine.new_match(rules, 2, rng)
    while sum(1 for e in events if isinstance(e, engine.HandDealt)) <= hands:
        seat = next(s for s in range(2) if engine.legal_actions(state, s))
        action = engine.choose_action(engine.view(state, seat), rules, rng) or engine.legal_actions(state, seat)[0]
        state, more = engine.advance(state, action, rng)
        events += more
    return state, events


def dialog_region(app: TrucoApp) -> Region:
    return app.screen.query_one(".dialog").region


def table_region(app: TrucoApp, widget_id: str) -> Region:
    table = next(s for s in app.screen_stack if isinstance(s, TableScreen))
    return table.query_one(widget_id).region


# -- 1. the log after a reconnect ---------------------------------------------------------

async def test_a_rejoin_fills_the_log_with_the_match_so_far_and_never_twice() -> None:
    state, events = played_hands(2)
    wire = update_for(state, 0, len(events), events)
    rejoin = dataclasses.replace(wire, events=(), history=wire.events)
    link = FakeLink()
    app = await seated_app(link)
    async with app.run_test(size=(100, 60)) as pilot:  # room for the whole log
        await until(pilot, lambda: isinstance(app.screen, TableScreen), "the table")
        link.push(rejoin)
        await until(pilot, lambda: all(f"Hand {deal}: " in screen_text(app) for deal in (1, 2, 3)), "the match so far in the log")
        model = app.table_model("t1")
        assert list(model.log) == list(rejoin.history)
        text = screen_text(app)
        for deal in (1, 2, 3):  # the current hand and the ones before it
            assert text.count(f"Hand {deal}: ") == 1, text
        last_card = next(e for e in reversed(rejoin.history) if isinstance(e, p.Acted) and e.call == "play")
        assert last_card.card and last_card.card[:-1] in text
        # The same events again (another reconnect): replaced, not added.
        before = model.update
        link.push(rejoin)
        await until(pilot, lambda: model.update is not before, "the second rejoin taken")
        await pilot.pause()  # (and drawn)
        assert list(model.log) == list(rejoin.history)
        assert all(screen_text(app).count(f"Hand {deal}: ") == 1 for deal in (1, 2, 3))
        # The seat bubbles and the hand summary read the current hand again.
        dealt = [i for i, e in enumerate(rejoin.history) if isinstance(e, p.HandDealt)][-1]
        assert model.last_hand_events == list(rejoin.history[dealt:])


async def test_a_rejoin_before_the_screen_is_up_is_drawn_when_it_opens() -> None:
    state, events = played_hands(1)
    wire = update_for(state, 0, len(events), events)
    link = FakeLink()
    app = TrucoApp(link, "ana", "en")
    link.push(*welcome(), p.TableUpdated(table=TABLE), p.Seated(table_id="t1", seat=0),
              dataclasses.replace(wire, events=(), history=wire.events))
    async with app.run_test(size=(100, 60)) as pilot:
        await until(pilot, lambda: "Hand 2: " in screen_text(app), "the match so far in the log")
        text = screen_text(app)
        assert text.count("Hand 1: ") == 1 and text.count("Hand 2: ") == 1


# -- 3. dialogs over the table -----------------------------------------------------------

def assert_table_in_view(app: TrucoApp, *widget_ids: str) -> None:
    box = dialog_region(app)
    for widget_id in widget_ids:
        assert not box.overlaps(table_region(app, widget_id)), widget_id


async def test_choosing_piedras_keeps_the_cards_and_tricks_in_view(puntos_offered: PuntosOffered) -> None:
    state, events, seat = puntos_offered
    own = engine.view(state, seat).own_cards
    async with venezolano_shown(state, seat, events) as (app, link, pilot):
        await pilot.press("u")
        await until(pilot, lambda: isinstance(app.screen, PromptScreen) and "how many?" in screen_text(app), "the amount asked")
        assert isinstance(app.screen, PromptScreen)
        text = screen_text(app)
        assert "how many?" in text
        for card in own:  # every card of the hand is drawn while the amount is typed
            assert f"│{str(card)[:-1]:<2}" in text or f"|{str(card)[:-1]:<2}" in text, text
        assert_table_in_view(app, "#t-cards", "#t-tricks", "#t-seats", "#t-score")


@pytest.mark.parametrize("lite", [False, True])
async def test_leave_and_help_open_over_the_table_without_blanking_it(
        lite: bool, show_table: ShowTable
) -> None:
    rules, state, events = two_player_state()
    async with show_table(state, 0, events) as pilot:
        app = pilot.app
        if lite:
            app.toggle_lite()
            await until(pilot, lambda: "- Game log -" in screen_text(app), "the lite look drawn")
        under = screen_text(app).splitlines()
        await pilot.press("l")
        await until(pilot, lambda: isinstance(app.screen, ConfirmLeaveScreen) and dialog_region(app).width > 0, "the question")
        assert isinstance(app.screen, ConfirmLeaveScreen)
        assert_table_in_view(app, "#t-cards", "#t-tricks", "#t-actions")
        shown = screen_text(app).splitlines()
        box = dialog_region(app)
        assert shown[: box.y] == under[: box.y]  # everything above the box, unchanged
        await pilot.press("n")
        await until(pilot, lambda: isinstance(app.screen, TableScreen), "the table again")
        await pilot.press("question_mark")
        await until(pilot, lambda: isinstance(app.screen, HelpScreen) and dialog_region(app).width > 0, "the help")
        assert isinstance(app.screen, HelpScreen)
        assert_table_in_view(app, "#t-tricks", "#t-seats")
        seats = app.screen_stack[-2].query_one("#t-seats").region
        rows = screen_text(app).splitlines()[seats.y:seats.bottom]
        assert any("ana" in row for row in rows)  # the seat rows are drawn, not blank


async def test_at_200x50_help_leaves_the_cards_in_view(show_table: ShowTable) -> None:
    rules, state, events = two_player_state()
    async with show_table(state, 0, events, size=(200, 50)) as pilot:
        app = pilot.app
        await pilot.press("question_mark")
        await until(pilot, lambda: isinstance(app.screen, HelpScreen) and dialog_region(app).width > 0, "the help")
        assert_table_in_view(app, "#t-cards", "#t-tricks", "#t-seats")


# -- 2 and 6. match over: the last hand stays readable; the rematch ----------------------

def finished_match(players: int = 2, seed: int = 1) -> tuple[engine.State, list[engine.Event]]:
    rules = engine.get_ruleset("argentino", flor=False, match_games=1, target=15)
    rng = random.Random(seed)
    state, events = engine.new_match(rules, players, rng)
    while not state.match_over:
        seat = next(s for s in range(players) if engine.legal_actions(state, s))
        action = engine.choose_action(engine.view(state, seat), rules, rng) or engine.legal_actions(state, seat)[0]
        state, more = engine.advance(state, action, rng)
        events += more
    return state, events


def last_hand_points(events: list[engine.Event]) -> list[engine.PointsScored]:
    start = max(i for i, e in enumerate(events) if isinstance(e, engine.HandDealt))
    return [e for e in events[start:] if isinstance(e, engine.PointsScored)]


async def test_match_over_keeps_the_last_trick_in_view_and_tells_the_last_hand() -> None:
    state, events = finished_match()
    link = FakeLink()
    app = await seated_app(link)
    update = update_for(state, 0, len(events), events[-60:], waiting=())
    async with table_shown(app, link, update):
        assert isinstance(app.screen, MatchOverScreen)
        text = screen_text(app)
        assert_table_in_view(app, "#t-tricks", "#t-seats", "#t-score")
        last_trick = engine.view(state, 0).tricks[-1]
        for _seat, card in last_trick:
            assert card_text(str(card), french=False).plain in text  # the final trick, still readable
        points = last_hand_points(events)
        assert points and "Last hand:" in text
        totals: dict[int, int] = {}
        for scored in points:
            totals[scored.team] = totals.get(scored.team, 0) + scored.points
        for team, total in totals.items():  # each side's total for the hand (seat 0 is Us)
            assert f"{'Them' if team else 'Us'} {total} (" in text


@pytest.mark.parametrize("size", [(60, 20), (80, 24), (200, 50)])
async def test_match_over_covers_the_width_so_no_chat_shows_beside_it(size: tuple[int, int]) -> None:
    state, events = finished_match()
    link = FakeLink()
    app = await seated_app(link)
    link.push(p.Chat(line=p.ChatLine(sender="beto", text="zz " * 60, ts=0, table_id="t1")))
    update = update_for(state, 0, len(events), events[-60:], waiting=())
    async with table_shown(app, link, update, size) as pilot:
        assert isinstance(app.screen, MatchOverScreen)
        dialog = app.screen.query_one("#match-over")
        await until(pilot, lambda: dialog.region.width > 0, "the dialog laid out")  # later on a busy machine
        box = dialog.region
        assert (box.x, box.width) == (0, size[0])
        rows = screen_text(app).splitlines()[box.y:box.bottom]
        assert not any("zz" in row for row in rows)  # the chat pane is wholly under the dialog
        await pilot.pause()


async def test_rematch_tells_the_asker_whom_it_waits_for_and_the_others_who_asked() -> None:
    state, events = finished_match()
    base = update_for(state, 0, len(events), [], waiting=())
    link = FakeLink()
    app = await seated_app(link)
    async with table_shown(app, link, base) as pilot:
        assert isinstance(app.screen, MatchOverScreen)
        assert "asked" not in screen_text(app)
        link.push(dataclasses.replace(base, rematch_votes=(1,)))  # beto asks first
        await until(pilot, lambda: "beto asked for a rematch" in screen_text(app), "beto's ask shown")
        assert "beto asked for a rematch: press r to accept." in screen_text(app)
        assert "r Rematch" in screen_text(app)
        await pilot.press("r")
        assert isinstance(link.sent[-1], p.Rematch)
        assert isinstance(app.screen, MatchOverScreen)  # stays: the answer comes from the table
        # The rematch starts: the dialog gives the table back.
        rules = engine.get_ruleset("argentino", flor=False, match_games=1, target=15)
        fresh, fresh_events = engine.new_match(rules, 2, random.Random(2))
        link.push(update_for(fresh, 0, len(events) + len(fresh_events), fresh_events))
        await until(pilot, lambda: isinstance(app.screen, TableScreen), "the table back")
        assert isinstance(app.screen, TableScreen)


async def test_the_asker_sees_the_names_it_waits_for_even_after_closing_the_dialog() -> None:
    state, events = finished_match(players=4)
    names = ("ana", "beto", "carla", "dani")
    base = update_for(state, 0, len(events), [], waiting=())
    seats = (p.SeatInfo(name="ana"), p.SeatInfo(name="beto"), p.SeatInfo(name="Bot 1", bot=True),
             p.SeatInfo(name="dani"))
    link = FakeLink()
    app = await seated_app(link, table=dataclasses.replace(TABLE, seats=names))
    async with table_shown(app, link, dataclasses.replace(base, seats=seats)) as pilot:
        await pilot.press("r")
        link.push(dataclasses.replace(base, seats=seats, rematch_votes=(0,)))
        await until(pilot, lambda: "waiting for beto, dani." in screen_text(app), "whom the ask waits for")
        assert "waiting for beto, dani." in screen_text(app)  # not the bot
        assert "r Rematch" not in screen_text(app)  # asked already: nothing more to press
        await pilot.press("escape")
        await until(pilot, lambda: isinstance(app.screen, TableScreen) and "waiting for beto, dani." in screen_text(app),
                    "the table, with whom the ask waits for")
        assert isinstance(app.screen, TableScreen)
        assert "waiting for beto, dani." in screen_text(app)  # the status line says it too


async def test_a_spectator_sees_who_asked_for_the_rematch(link: FakeLink, show_table: ShowTable) -> None:
    state, events = finished_match()
    async with show_table(state, None, seq=len(events), waiting=()) as pilot:
        app = pilot.app
        link.push(dataclasses.replace(update_for(state, None, len(events), [], waiting=()), rematch_votes=(0,)))
        await until(pilot, lambda: "Rematch asked by ana." in screen_text(app), "the ask shown")
        text = screen_text(app)
        assert "Rematch asked by ana." in text and "press r" not in text
        assert "r Rematch" not in text  # a spectator has no say
        await pilot.press("r")
        assert not any(isinstance(m, p.Rematch) for m in link.sent)
        await pilot.press("escape")
        link.push(update_for(state, None, len(events), [], waiting=()))  # nobody asks any more
        await until(pilot, lambda: isinstance(app.screen, TableScreen) and app.table_model("t1").update.rematch_votes == ()
                    and "Match over." in screen_text(app), "the table, nobody asking")
        assert isinstance(app.screen, TableScreen)
        assert "Match over." in screen_text(app) and "r for a rematch" not in screen_text(app)


# -- 5. the join code of a private table ------------------------------------------------------

async def waiting_room(private: bool, code: str, lang: str = "en") -> str:
    link = FakeLink()
    app = TrucoApp(link, "beto", lang)
    info = dataclasses.replace(TABLE, seats=("ana", "beto", None, None), private=private, status="waiting")
    link.push(*welcome("beto"), p.TableUpdated(table=info), p.Seated(table_id="t1", seat=1, code=code))
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, TableScreen) and "2. beto" in screen_text(app)
                    and "c Chat" in screen_text(app), "the waiting room")
        assert isinstance(app.screen, TableScreen)
        return screen_text(app)


async def test_a_private_table_shows_its_code_and_how_to_use_it_while_it_waits() -> None:
    text = await waiting_room(True, "6Y2WPE")
    assert "code 6Y2WPE" in text  # in the waiting room panel
    assert "k in the lobby and type the code 6Y2WPE" in text  # and how friends use it


async def test_a_public_table_mentions_no_code() -> None:
    text = await waiting_room(False, "")
    assert "code" not in text.lower() and "j" in text


async def test_the_code_is_in_the_players_language() -> None:
    text = await waiting_room(True, "6Y2WPE", "es")
    assert "Mesa privada · código 6Y2WPE" in text


async def test_the_three_player_match_over_names_players_not_teams() -> None:
    """The Uruguayan three-player game keeps one score per player: the dialog names them."""
    rules = engine.get_ruleset("uruguayo")
    rng = random.Random(2)
    state, events = engine.new_match(rules, 3, rng)
    while not state.match_over:
        seat = next(s for s in range(3) if engine.legal_actions(state, s))
        action = engine.choose_action(engine.view(state, seat), rules, rng) or engine.legal_actions(state, seat)[0]
        state, more = engine.advance(state, action, rng)
        events += more
    scores = engine.view(state, 0).to_wire()["scores"]
    names = ("ana", "beto", "carla")
    info = dataclasses.replace(TABLE, variant="uruguayo", seats=names)
    link = FakeLink()
    app = await seated_app(link, table=info)
    async with table_shown(app, link, update_for(state, 0, len(events), [], waiting=())):
        assert isinstance(app.screen, MatchOverScreen)
        text = screen_text(app)
        winners = engine.view(state, 0).to_wire()["winners"]  # the seats that reached the target
        assert winners and f"{', '.join(names[s] for s in winners)} win the match!" in text
        assert "Final score: " + " · ".join(f"{n} {s}" for n, s in zip(names, scores)) in text
        assert "Us" not in text.split("Final score")[1]


@pytest.mark.parametrize("lang, yes", [("en", "y Yes"), ("es", "s Sí"), ("pt", "s Sim")])
async def test_the_leave_question_offers_the_letter_of_the_players_yes(lang: str, yes: str) -> None:
    """A Portuguese or Spanish speaker is offered "s" (sim, sí), an English one "y"; the
    letter offered leaves the table."""
    from tests.tui.kit import lobby_with

    app, link = lobby_with(dataclasses.replace(TABLE, table_id="t0"), lang=lang)
    async with app.run_test(size=(60, 20)) as pilot:
        link.push(p.Seated(table_id="t0", seat=0))
        await until(pilot, lambda: isinstance(app.screen, TableScreen), "the table")
        await pilot.press("l")
        await until(pilot, lambda: isinstance(app.screen, ConfirmLeaveScreen) and dialog_region(app).width > 0,
                    "the question")
        bar = " ".join(screen_text(app).split())
        assert yes.lower() in bar.lower(), bar
        await pilot.press(yes[0])
        await until(pilot, lambda: p.LeaveTable(table_id="t0") in link.sent, "the table left")
