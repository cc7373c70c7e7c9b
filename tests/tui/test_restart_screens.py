"""What a player sees around a server restart: a table still being restored says so, then the game."""
from __future__ import annotations

import random

import engine
import protocol as p
from tui.app import TrucoApp
from tui.screens.table import TableScreen

from tests.tui.helpers import screen_text
from tests.tui.kit import FakeLink, update_for, welcome


async def test_a_table_still_restoring_says_so_then_shows_the_game() -> None:
    rules = engine.get_ruleset("argentino", flor=False)
    state, _ = engine.new_match(rules, 2, random.Random(3))
    restoring = p.TableInfo(table_id="t1", title="la mesa", variant="argentino", owner="ana",
                            seats=("ana", "[b]beto"), options={"target": 30}, status="restoring")
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
        assert "2. [b]beto" in text  # who sits there; a name is text, never markup
        link.push(p.TableUpdated(table=p.TableInfo(**{**restoring.__dict__, "status": "playing"})),
                  update_for(state, 0, 5))
        await pilot.pause(0.3)
        assert "coming back" not in screen_text(app)
        assert "╭" in screen_text(app)  # the cards are drawn
