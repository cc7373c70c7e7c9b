"""What a player sees around a server restart: the table restoring, and a match's final score
with every score holder named (the Uruguayan game of three keeps one score per player)."""
from __future__ import annotations

import random

import engine
import protocol as p
from tui.app import TrucoApp
from tui.screens.table import MatchOverScreen, TableScreen

from test_screens import FakeLink, screen_text, welcome
from test_table_screen import seated_app, table_shown, update_for


def finished(variant: str, players: int, seed: int, **options: object) -> engine.State:
    rules = engine.get_ruleset(variant, **options)
    rng = random.Random(seed)
    state, _ = engine.new_match(rules, players, rng)
    while not state.match_over:
        seat = next(s for s in range(players) if engine.legal_actions(state, s))
        seat_view = engine.view(state, seat)
        action = engine.choose_action(seat_view, rules, rng) or seat_view.legal[0]
        state, _ = engine.advance(state, action, rng)
    return state


def dialog_text(app: TrucoApp) -> str:
    """The screen's words in reading order, borders dropped (a long line wraps in the dialog)."""
    return " ".join(screen_text(app).replace("│", " ").split())


async def test_the_uruguayan_game_of_three_ends_with_each_players_name_and_score() -> None:
    state = finished("uruguayo", 3, 4)
    assert len(state.scores) == 3
    names = ("ana", "[b]beto[/b]", "carla")  # a name is text, never markup
    table = p.TableInfo(table_id="t1", title="mesa", variant="uruguayo", owner="ana",
                        seats=names, options={}, status="finished")
    link = FakeLink()
    app = await seated_app(link, 0, table=table)
    async with table_shown(app, link, update_for(state, 0, 99, [], names=names, waiting=())):
        assert isinstance(app.screen, MatchOverScreen)
        text = dialog_text(app)
        expected = " · ".join(f"{name} {score}" for name, score in zip(names, state.scores))
        assert f"Final score: {expected}" in text, text


async def test_two_teams_still_read_us_and_them() -> None:
    state = finished("argentino", 2, 1, flor=False, match_games=1, target=15)
    link = FakeLink()
    app = await seated_app(link)
    async with table_shown(app, link, update_for(state, 0, 99, [], waiting=())):
        assert isinstance(app.screen, MatchOverScreen)
        assert f"Final score: Us {state.scores[0]} · Them {state.scores[1]}" in dialog_text(app)


async def test_a_table_still_restoring_says_so_then_shows_the_game() -> None:
    rules = engine.get_ruleset("argentino", flor=False)
    state, _ = engine.new_match(rules, 2, random.Random(3))
    restoring = p.TableInfo(table_id="t1", title="la mesa", variant="argentino", owner="ana",
                            seats=("ana", "beto"), options={"target": 30}, status="restoring")
    link = FakeLink()
    app = TrucoApp(link, "ana", "en")
    # What the hub sends a player whose table is not back yet: the seat, the table restoring.
    link.push(*welcome(), p.Seated(table_id="t1", seat=0), p.TableUpdated(table=restoring))  # ana owns it
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause(0.2)
        assert isinstance(app.screen, TableScreen)
        text = screen_text(app)
        assert "your table is coming back" in text and "Waiting for" not in text, text
        assert "Friends can join" not in text and "Add bot" not in text  # not a waiting room
        link.push(p.TableUpdated(table=p.TableInfo(**{**restoring.__dict__, "status": "playing"})),
                  update_for(state, 0, 5))
        await pilot.pause(0.3)
        assert "coming back" not in screen_text(app)
        assert "╭" in screen_text(app)  # the cards are drawn
