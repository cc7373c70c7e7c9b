"""Table parts skip rebuilding what they show when their inputs did not change
(tui/widgets/table/part.py ``drawn_from``), and draw again when they did, or when something
else was shown in the panel meanwhile (a waiting room, a restore)."""
from __future__ import annotations

from typing import Any

from rich.text import Text

from tests.tui.helpers import screen_text
from tests.tui.kit import FakeLink, seated_app, table_shown, two_player_state, update_for
from tui.widgets.table.score import ScoreLine
from tui.widgets.table.seats import TricksPanel


async def test_an_unchanged_part_is_not_rebuilt_and_a_changed_one_is(monkeypatch: Any) -> None:
    _, state, events = two_player_state(seed=11)
    link = FakeLink()
    app = await seated_app(link, 0)
    async with table_shown(app, link, update_for(state, 0, 3, events)) as pilot:
        screen = app.screen
        score = screen.query_one("#t-score", ScoreLine)
        built: list[str] = []
        score_show = ScoreLine.show

        def show(panel: ScoreLine, text: Text) -> None:
            built.append(text.plain)
            score_show(panel, text)

        monkeypatch.setattr(ScoreLine, "show", show)
        shown = screen_text(app)
        screen.redraw()  # the same update again: the score is as it was
        assert built == []
        score.show(Text(""))  # something else shown there (as while a table is restored)
        screen.redraw()
        assert len(built) == 2 and built[-1].strip()  # drawn again from the model
        await pilot.pause(0.1)
        assert screen_text(app) == shown


async def test_a_resize_draws_the_tricks_again() -> None:
    _, state, events = two_player_state(seed=11)
    link = FakeLink()
    app = await seated_app(link, 0)
    async with table_shown(app, link, update_for(state, 0, 3, events), size=(80, 24)) as pilot:
        tricks = app.screen.query_one("#t-tricks", TricksPanel)
        narrow = tricks._shown
        await pilot.resize_terminal(200, 50)
        await pilot.pause(0.3)
        assert tricks._shown != narrow  # wider columns for the same cards
        rows = screen_text(app).splitlines()
        assert len(rows) == 50 and all(len(row) == 200 for row in rows)
