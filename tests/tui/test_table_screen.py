"""Pilot tests of the table screen, fed with real engine views through a fake link."""
from __future__ import annotations

import dataclasses
import random

import pytest
from textual.containers import VerticalScroll
from textual.widgets import RichLog

import engine
import protocol as p
from tui.widgets.hanging import HangingText
from tui.screens.help import HelpScreen
from tui.screens.table import ConfirmLeaveScreen, MatchOverScreen, TableScreen

from tests.tui.helpers import region_text, screen_text, until
from tests.tui.kit import (
    FakeLink, OwnTurn, PuntosOffered, ShowTable, TrucoCalled,
    seated_app, table_shown, two_player_state, update_for, venezolano_shown,
)


async def test_table_screen_shows_cards_calls_and_fits_80x24() -> None:
    rules, state, events = two_player_state()
    link = FakeLink()
    app = await seated_app(link)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, TableScreen), "the table")
        assert isinstance(app.screen, TableScreen)
        link.push(update_for(state, 0, 3, events))
        await until(pilot, lambda: app.screen.table.update is not None and "Hand 1: " in screen_text(app)
                    and "beto" in screen_text(app), "the update drawn")
        text = screen_text(app)
        own = engine.view(state, 0).own_cards
        for card in own:
            face = str(card)
            assert face[:-1] in text  # rank drawn on a card
        assert "ana" in text and "beto" in text
        legal_calls = {a.call.value for a in engine.legal_actions(state, 0) if a.call is not engine.Call.PLAY}
        if "truco" in legal_calls:
            assert "t Truco" in text
        for widget_id in ("#t-seats", "#t-tricks", "#t-bets", "#t-actions", "#t-log", "#t-keys"):
            region = app.screen.query_one(widget_id).region
            assert region.bottom <= 24 and region.right <= 80, widget_id
        # The other seat's cards are never on this screen.
        other = engine.view(state, 1).own_cards
        assert not any(str(c) in text for c in other if c not in own)


async def test_keys_send_the_legal_action_with_a_fresh_command_id(
        link: FakeLink, show_table: ShowTable, own_turn: OwnTurn
) -> None:
    state, events, seat, view = own_turn
    async with show_table(state, seat, events) as pilot:
        calls = [a.call.value for a in view.legal if a.call is not engine.Call.PLAY]
        assert "envido" in calls
        await pilot.press("e")
        sent = [m for m in link.sent if isinstance(m, p.TableAction)]
        first = sent[-1].cid
        assert sent[-1].call == "envido" and first > 0
        await pilot.press("1")
        sent = [m for m in link.sent if isinstance(m, p.TableAction)]
        assert sent[-1].call == "play" and sent[-1].card == str(view.own_cards[0]) and sent[-1].cid == first + 1
    # A new session (a reconnect) does not start again at the same ids: the server
    # remembers the seat's recent ids and would ignore a repeat.
    link2 = FakeLink()
    app2 = await seated_app(link2, seat)
    async with table_shown(app2, link2, update_for(state, seat, 3, events)) as pilot:
        await pilot.press("e")
        again = [m for m in link2.sent if isinstance(m, p.TableAction)]
        assert again[-1].call == "envido" and again[-1].cid not in (first, first + 1)


async def test_a_card_that_cannot_be_played_is_not_sent(link: FakeLink, show_table: ShowTable) -> None:
    rules, state, events = two_player_state()
    seat = 1 - engine.view(state, 0).turn  # not this seat's turn
    async with show_table(state, seat, events) as pilot:
        app = pilot.app
        await pilot.press("1")
        await until(pilot, lambda: "turn to play, not yours." in screen_text(app), "the reason said")
        assert not [m for m in link.sent if isinstance(m, p.TableAction)]
        turn = engine.view(state, seat).turn
        assert f"It is {('ana', 'beto')[turn]}'s turn to play, not yours." in screen_text(app)


@pytest.mark.parametrize("size", [(80, 24), (60, 20)])
async def test_a_refused_key_is_said_and_the_turn_stays_on_the_status_line(
        link: FakeLink, show_table: ShowTable, size: tuple[int, int]) -> None:
    rules, state, events = two_player_state()
    seat = engine.view(state, 0).turn  # this seat's turn, and no bet to answer
    async with show_table(state, seat, events, size=size) as pilot:
        app = pilot.app
        await until(pilot, lambda: "Your move." in region_text(app, "#t-status")[0], "the turn said")
        await pilot.press("q")
        await until(pilot, lambda: "no bet for you to answer" in " ".join(region_text(app, "#t-status")),
                    "the refusal said", seen=lambda: region_text(app, "#t-status"))
        rows = [row.strip() for row in region_text(app, "#t-status")]
        status = " ".join(rows)
        assert "Your move." in status and status.index("no bet") < status.index("Your move."), status
        assert not any(row.endswith("·") for row in rows), rows  # a row of its own, not "... ·"
        assert not [m for m in link.sent if isinstance(m, p.TableAction)]


async def test_pending_truco_offers_answers_and_shows_who_called(
        link: FakeLink, show_table: ShowTable, truco_called: TrucoCalled
) -> None:
    state, events, mano = truco_called
    answerer = 1 - mano
    async with show_table(state, answerer, events, seq=4) as pilot:
        app = pilot.app
        text = screen_text(app)
        caller = ("ana", "beto")[mano]
        assert f"Truco from {caller}" in text
        assert "q Quiero" in text and "n No quiero" in text
        await pilot.press("q")
        assert [m for m in link.sent if isinstance(m, p.TableAction)][-1].call == "quiero"


async def test_spectator_screen_has_no_hidden_cards_and_no_actions(show_table: ShowTable) -> None:
    rules, state, events = two_player_state(seed=8)
    async with show_table(state, None, events) as pilot:
        app = pilot.app
        text = screen_text(app)
        assert "watching" in text
        hidden = [str(c) for s in (0, 1) for c in engine.view(state, s).own_cards]
        assert not any(f"│{c[:-1]:<2}" in text for c in hidden)
        assert len(app.screen.query("ActionButton")) == 0


async def test_match_over_offers_rematch(link: FakeLink, show_table: ShowTable) -> None:
    rules = engine.get_ruleset("argentino", flor=False, match_games=1, target=15)
    rng = random.Random(1)
    state, _ = engine.new_match(rules, 2, rng)
    while not state.match_over:
        seat = next(s for s in range(2) if engine.legal_actions(state, s))
        action = engine.choose_action(engine.view(state, seat), rules, rng) or engine.legal_actions(state, seat)[0]
        state, _ = engine.advance(state, action, rng)
    async with show_table(state, seq=99, waiting=()) as pilot:
        app = pilot.app
        assert isinstance(app.screen, MatchOverScreen)
        await pilot.press("r")
        assert isinstance(link.sent[-1], p.Rematch)


@pytest.mark.parametrize("players", [4, 6])
async def test_bigger_tables_fit(players: int, show_table: ShowTable) -> None:
    rules = engine.get_ruleset("argentino")
    state, events = engine.new_match(rules, players, random.Random(2))
    async with show_table(state, 0, events) as pilot:
        app = pilot.app
        text = screen_text(app)
        for name in ("ana", "beto", "carla", "dani", "eva", "fede")[:players]:
            assert name in text


async def test_leaving_asks_first_and_returns_to_the_lobby(link: FakeLink, show_table: ShowTable) -> None:
    rules, state, events = two_player_state()
    async with show_table(state, 0, events) as pilot:
        app = pilot.app
        await pilot.press("l")
        await until(pilot, lambda: isinstance(app.screen, ConfirmLeaveScreen), "the question")
        await pilot.press("y")
        assert link.sent[-1] == p.LeaveTable(table_id="t1")
        from tui.screens.lobby import LobbyScreen

        link.push(p.Seated())
        await until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby")
        assert isinstance(app.screen, LobbyScreen)


def every_variant_and_count() -> list[tuple[str, int]]:
    return [(v.name, n) for v in engine.variant_catalog() if v.implemented for n in v.player_counts]


@pytest.mark.parametrize("variant, players", every_variant_and_count())
async def test_every_variant_renders_and_takes_card_keys(variant: str, players: int) -> None:
    """No variant-specific table code: every implemented variant draws and plays."""
    rules = engine.get_ruleset(variant)
    rng = random.Random(11)
    state, events = engine.new_match(rules, players, rng)

    def card_seats() -> list[int]:
        return [s for s in range(players) if any(a.card for a in engine.legal_actions(state, s))]

    while not card_seats():  # e.g. a flor round first: let the bots speak
        speaker = next(s for s in range(players) if engine.legal_actions(state, s))
        action = engine.choose_action(engine.view(state, speaker), rules, rng)
        state, more = engine.advance(state, action or engine.legal_actions(state, speaker)[0], rng)
        events = events + more
    # The seat the game waits for, and a card action it may take (play or discard).
    seat = card_seats()[0]
    view = engine.view(state, seat)
    info = p.TableInfo(table_id="t1", title="mesa", variant=variant, owner="ana",
                       seats=tuple(f"p{i}" for i in range(players)), options={}, status="playing")
    link = FakeLink()
    app = await seated_app(link, seat, table=info)
    async with table_shown(app, link, update_for(state, seat, 3, events, names=tuple(f"p{i}" for i in range(6)))) as pilot:
        text = screen_text(app)
        if view.face_up is not None:
            face = str(view.face_up)
            assert face[:-1] in text  # the muestra / vira is on screen
        legal_cards = [a for a in view.legal if a.card is not None]
        index = list(view.own_cards).index(legal_cards[0].card)
        await pilot.press(str(index + 1))
        sent = [m for m in link.sent if isinstance(m, p.TableAction)][-1]
        assert sent.call == legal_cards[0].call.value and sent.card == str(legal_cards[0].card)


async def test_a_call_that_names_a_number_asks_for_it(puntos_offered: PuntosOffered) -> None:
    """Venezuelan 'envido N puntos': one entry in the calls, then the number is asked."""
    state, events, seat = puntos_offered
    amounts = sorted(a.amount for a in engine.legal_actions(state, seat) if a.call.value == "envido_puntos")
    async with venezolano_shown(state, seat, events) as (app, link, pilot):
        text = screen_text(app)
        assert text.count("Envido puntos") == 1  # one entry, not one per number
        await pilot.press("u")
        await until(pilot, lambda: f"({amounts[0]} to {amounts[-1]})" in screen_text(app), "the number asked")
        assert f"({amounts[0]} to {amounts[-1]})" in screen_text(app)
        await pilot.press(*str(amounts[-1]), "enter")
        await until(pilot, lambda: bool([m for m in link.sent if isinstance(m, p.TableAction)]), "the action sent")
        sent = [m for m in link.sent if isinstance(m, p.TableAction)][-1]
        assert (sent.call, sent.amount) == ("envido_puntos", amounts[-1])


async def test_a_ley_is_offered_on_a_venezolano_table() -> None:
    """The Venezuelan a ley: its own key (y) and label next to the cards; help explains it."""
    rules = engine.get_ruleset("venezolano")
    state, events = engine.new_match(rules, 2, random.Random(5))
    seat = state.mano
    assert any(a.call.value == "a_ley" for a in engine.legal_actions(state, seat))
    async with venezolano_shown(state, seat, events) as (app, link, pilot):
        text = screen_text(app)
        assert "y A ley" in text
        await pilot.press("y")
        await until(pilot, lambda: bool([m for m in link.sent if isinstance(m, p.TableAction)]), "the action sent")
        sent = [m for m in link.sent if isinstance(m, p.TableAction)][-1]
        assert sent.call == "a_ley"
        await pilot.press("question_mark")
        await until(pilot, lambda: isinstance(app.screen, HelpScreen) and bool(app.screen.query(HangingText)), "the help")
        help_text = app.screen.query_one(VerticalScroll).query_one(HangingText).text
        assert "tengo flor" in str(help_text)


async def test_withheld_points_are_explained() -> None:
    """A Venezuelan flor kept quiet: the log and the hand summary say which rule withheld
    the points the team won."""
    from engine.core.hand import initial_state

    rules = engine.get_ruleset("venezolano")
    state = initial_state(rules, 2, 1)
    hands = tuple(tuple(engine.parse_cards(h)) for h in ("1e 7e 3e", "4o 5b 6c"))
    state, events = engine.apply(state, engine.Deal(hands, engine.parse_cards("4c")[0]))
    for seat, card in ((0, "1e"), (1, "4o"), (0, "7e"), (1, "5b")):
        state, more = engine.apply(state, engine.Action(seat, engine.Call.PLAY, engine.parse_cards(card)[0]))
        events += more
    assert any(isinstance(e, engine.PointsWithheld) for e in events)
    async with venezolano_shown(state, 1, events) as (app, link, pilot):
        assert "flor not sung with the first card" in " ".join(screen_text(app).split())


def test_a_ley_calls_keep_their_keys_beside_every_other_call() -> None:
    """In random a-ley games the new calls always get their own keys (y a ley, o tengo flor,
    q / n con ley quiero / sin ley no quiero, p pido flor): no clash with the calls legal
    with them."""
    from tui.calls import PREFERRED_KEYS, RESERVED, assign_keys

    rules = engine.get_ruleset("venezolano", target=12)
    new = {"a_ley", "tengo_flor", "con_ley_quiero", "sin_ley_no_quiero", "pedir_flor"}
    seen: set[str] = set()
    for seed in range(60):
        rng = random.Random(seed)
        state, _ = engine.new_match(rules, 2 + 2 * (seed % 2), rng)
        for _ in range(400):
            if state.match_over:
                break
            # Pido flor needs the callers on target - 4: try each state with that score too.
            looks = [state]
            if state.truco_pending and state.truco_by in (0, 1):
                scores = list(state.scores)
                scores[state.truco_by] = rules.target - 4
                looks.append(dataclasses.replace(state, scores=tuple(scores)))
            for look in looks:
                for seat in range(state.n):
                    calls = list(dict.fromkeys(a.call.value for a in engine.legal_actions(look, seat)
                                               if a.call.value != "play"))
                    for choice in assign_keys(calls):
                        assert choice.key not in RESERVED
                        if choice.call in new:
                            seen.add(choice.call)
                            assert choice.key == PREFERRED_KEYS[choice.call], (calls, choice)
            mover = next(s for s in range(state.n) if engine.legal_actions(state, s))
            bot = engine.choose_action(engine.view(state, mover), rules, rng)
            action = bot if bot is not None and rng.random() < 0.5 else rng.choice(engine.all_legal_actions(state))
            state, _ = engine.advance(state, action, rng)
    assert seen == new


async def test_pido_flor_has_its_key_and_its_answer_is_logged() -> None:
    """Facing a truco from a team on 20 (001 L48): p asks for flor; the log tells the answer."""
    from engine.core.hand import initial_state

    rules = engine.get_ruleset("venezolano")
    state = dataclasses.replace(initial_state(rules, 2, 1), scores=(0, 20))
    hands = tuple(tuple(engine.parse_cards(h)) for h in ("4o 5b 6c", "1e 7e 3e"))
    state, events = engine.apply(state, engine.Deal(hands, engine.parse_cards("4c")[0]))
    for seat, call, card in ((0, engine.Call.PLAY, "4o"), (1, engine.Call.TRUCO, None)):
        action = engine.Action(seat, call, engine.parse_cards(card)[0] if card else None)
        state, more = engine.apply(state, action)
        events += more
    async with venezolano_shown(state, 0, events) as (app, link, pilot):
        assert "p Pido flor" in screen_text(app)
        await pilot.press("p")
        await until(pilot, lambda: bool([m for m in link.sent if isinstance(m, p.TableAction)]), "the action sent")
        assert [m for m in link.sent if isinstance(m, p.TableAction)][-1].call == "pedir_flor"
    state, more = engine.apply(state, engine.Action(0, engine.Call.PEDIR_FLOR))
    async with venezolano_shown(state, 0, events + more) as (app, link, pilot):
        assert "Them hold a flor" in screen_text(app)


async def test_lobby_chat_while_at_a_table_is_shown_on_return_without_touching_the_table(
        link: FakeLink, show_table: ShowTable
) -> None:
    from tui.screens.lobby import LobbyScreen

    rules, state, events = two_player_state()
    async with show_table(state, 0, events) as pilot:
        app = pilot.app
        table_screen = app.screen
        assert isinstance(table_screen, TableScreen)
        lobby = next(s for s in app.screen_stack if isinstance(s, LobbyScreen))
        link.push(p.Chat(line=p.ChatLine(sender="beto", text="who wants a game?", ts=0)))
        await until(pilot, lambda: any(line.text == "who wants a game?" for line in app.model.chat), "the line taken")
        await pilot.pause()  # (and any redraw it asked for made)
        assert "who wants a game?" not in screen_text(app)  # the table is untouched
        # Even the hidden lobby's chat log waits (writing it would re-lay out the table).
        assert not any("who wants a game?" in line.text
                       for line in lobby.query_one("#chat-log", RichLog).lines)
        link.push(p.Seated())  # back to the lobby
        await until(pilot, lambda: isinstance(app.screen, LobbyScreen) and "who wants a game?" in screen_text(app),
                    "the lobby, with the line")
        assert isinstance(app.screen, LobbyScreen)
        assert "who wants a game?" in screen_text(app)


async def test_between_hands_no_seat_reads_dealer_and_mano_at_once() -> None:
    # The engine names the next dealer as soon as a hand ends while the mano is still the last
    # hand's: a 2-player table showed "DM" on one seat during the pause between hands.
    rules, state, events = two_player_state()
    mover = state.turn
    (mazo,) = [a for a in engine.legal_actions(state, mover) if a.call is engine.Call.MAZO]
    state, more = engine.apply(state, mazo)
    assert state.phase is engine.Phase.DEAL and state.dealer == state.mano  # the case at hand
    link = FakeLink()
    app = await seated_app(link)
    async with table_shown(app, link, update_for(state, 0, 3, [*events, *more])) as pilot:
        rows = [line for line in screen_text(pilot.app).splitlines() if "ana" in line or "beto" in line]
        assert rows and not any(" DM" in row or " D " in row or " M " in row for row in rows[:2]), rows
