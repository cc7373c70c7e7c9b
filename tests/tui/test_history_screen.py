"""Pilot tests of "My games" and the hand-by-hand replay, fed with a real engine game."""
from __future__ import annotations

import random

import engine
import protocol as p
from server.lobby import split_hands
from server.lobby.history import replay_records
from tui.screens.history import HistoryScreen, ReplayScreen
from tui.screens.lobby import LobbyScreen

from tests.tui.helpers import screen_text, until
from tests.tui.kit import Lobby, lobby_with

GAME = p.GameSummary(table_id="t9", match_no=1, variant="argentino", title="la revancha",
                     seats=("ana", "beto"), scores=(30, 12), winner=0, hands=2)


def two_hands_of_events() -> list[list[dict[str, object]]]:
    """Every event of the first two hands of a random 2-player game, as the log keeps them."""
    rules = engine.get_ruleset("argentino", flor=False)
    rng = random.Random(7)
    state, events = engine.new_match(rules, 2, rng)
    log = [e.to_wire() for e in events]
    while len(split_hands(log)) < 3:
        state, events = engine.advance(state, rng.choice(engine.all_legal_actions(state)), rng)
        log.extend(e.to_wire() for e in events)
    return split_hands(log)[:2]


async def test_my_games_lists_a_game_and_the_replay_steps_through_its_hands(lobby: Lobby) -> None:
    hands = two_hands_of_events()
    app, link = lobby
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby")
        await pilot.press("h")
        await until(pilot, lambda: isinstance(app.screen, HistoryScreen) and any(isinstance(m, p.MyGames) for m in link.sent),
                    "my games, asked for")
        assert isinstance(app.screen, HistoryScreen)
        assert isinstance(link.sent[-1], p.MyGames)
        link.push(p.GamesList(games=(GAME,)))
        await until(pilot, lambda: "la revancha" in screen_text(app), "the game listed")
        assert "la revancha" in screen_text(app)
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, ReplayScreen) and any(isinstance(m, p.ReplayHand) for m in link.sent),
                    "the replay, its first hand asked for")
        assert isinstance(app.screen, ReplayScreen)
        assert link.sent[-1] == p.ReplayHand(table_id="t9", match_no=1, hand=1)

        link.push(p.ReplayStep(game=GAME, hand=1, events=tuple(replay_records(hands[0], "spanish")), hands=2))
        await until(pilot, lambda: "hand 1 of 2" in screen_text(app) and "beto" in screen_text(app), "the first hand drawn")
        text = screen_text(app)
        dealt = next(e for e in hands[0] if e["type"] == "hand_dealt")
        for cards in dealt["hands"]:  # every hand is shown: the game is over
            for card in cards:
                assert str(card)[:-1] in text
        assert "ana" in text and "beto" in text and "hand 1 of 2" in text

        await pilot.press("n")
        await until(pilot, lambda: link.sent[-1] == p.ReplayHand(table_id="t9", match_no=1, hand=2), "hand 2 asked")
        assert link.sent[-1] == p.ReplayHand(table_id="t9", match_no=1, hand=2)
        link.push(p.ReplayStep(game=GAME, hand=2, events=tuple(replay_records(hands[1], "spanish")), hands=2))
        await until(pilot, lambda: "hand 2 of 2" in screen_text(app), "the second hand drawn")
        assert "hand 2 of 2" in screen_text(app)
        await pilot.press("n")  # there is no third hand: nothing is asked
        await pilot.pause(0.1)  # (a pause: proves nothing happens)
        assert link.sent[-1] == p.ReplayHand(table_id="t9", match_no=1, hand=2)
        await pilot.press("p")
        await until(pilot, lambda: link.sent[-1] == p.ReplayHand(table_id="t9", match_no=1, hand=1), "hand 1 asked")
        assert link.sent[-1] == p.ReplayHand(table_id="t9", match_no=1, hand=1)

        other = p.GameSummary(table_id="t1", match_no=1, variant="argentino", title="otra",
                              seats=("x", "y"), scores=(0, 0), hands=1)
        link.push(p.ReplayStep(game=other, hand=1, events=tuple(replay_records(hands[1], "spanish")), hands=1))
        link.push(p.Chat(line=p.ChatLine(sender="beto", text="after the step", ts=0)))  # taken after it
        await until(pilot, lambda: any(line.text == "after the step" for line in app.model.chat), "the line after the step")
        await pilot.pause()  # (and any redraw it asked for made)
        assert "otra" not in screen_text(app)  # another game's step is not drawn here

        await pilot.press("escape")
        await until(pilot, lambda: isinstance(app.screen, HistoryScreen), "my games again")
        assert isinstance(app.screen, HistoryScreen)


async def test_at_60_columns_my_games_shows_each_score_whole() -> None:
    app, link = lobby_with(lang="es")
    async with app.run_test(size=(60, 20)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby")
        await pilot.press("h")
        await until(pilot, lambda: isinstance(app.screen, HistoryScreen), "my games")
        link.push(p.GamesList(games=(GAME,)))
        await until(pilot, lambda: "30-12" in screen_text(app), "the game's score, in view",
                    seen=lambda: screen_text(app))
        assert "Tantos" in screen_text(app)  # its column's head, whole
