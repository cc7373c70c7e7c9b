"""The turn timer's countdown: 5 s steps until the last ten seconds, then every second, never
more than the decision had; repainted only when the figure it shows changes."""
from __future__ import annotations

import dataclasses
import random
from dataclasses import dataclass
from typing import Any

import pytest

import engine
from tests.tui.helpers import screen_text
from tests.tui.kit import FakeLink, seated_app, table_shown, update_for
from tui.screens.table import TableScreen
from tui.widgets.panels import Panel
from tui.widgets.table.status import TurnTimer, shown_seconds


@pytest.mark.parametrize("left, full, shown", [
    (30, 30, 30), (27, 30, 30), (26, 30, 30), (25, 30, 25), (21, 30, 25), (16, 30, 20),
    (11, 30, 15), (10, 30, 10), (9, 30, 9), (1, 30, 1), (0, 30, 0),
    (12, 12, 12), (11, 12, 12),  # a 12 s timer never shows 15
    (17, 17, 17), (15, 17, 15), (600, 600, 600), (597, 600, 600),
])
def test_shown_seconds(left: int, full: int, shown: int) -> None:
    assert shown_seconds(left, full) == shown


@dataclass
class Clock:
    """What the timer reads of the table model: the decision's deadline and the seconds left."""

    deadline: float
    left: int

    def seconds_left(self) -> int:
        return self.left


async def test_a_decision_counts_down_in_steps_then_by_the_second(monkeypatch: Any) -> None:
    rules = engine.get_ruleset("argentino", flor=False)
    state, events = engine.new_match(rules, 2, random.Random(3))
    link = FakeLink()
    app = await seated_app(link, 0)
    update = dataclasses.replace(update_for(state, 0, 1, events), timer=30.0)
    async with table_shown(app, link, update) as pilot:
        screen = app.screen
        assert isinstance(screen, TableScreen)
        timer = screen.query_one("#t-timer", TurnTimer)
        assert "⏱  30s" in screen_text(app)
        shows: list[str] = []
        show = Panel.show
        monkeypatch.setattr(TurnTimer, "show", lambda self, text: (shows.append(text.plain), show(self, text)))
        clock = Clock(deadline=1000.0, left=30)
        for left in range(30, -1, -1):  # one tick a second, a whole decision
            clock.left = left
            timer.tick(clock)  # type: ignore[arg-type]
        assert [int(s.strip("⏱ s")) for s in shows] == [25, 20, 15, *range(10, -1, -1)]
        await pilot.pause()
        assert "⏱   0s" in screen_text(app)
        # The next decision, of a 12 s timer: 12, not 15, then by the second from 10.
        shows.clear()
        clock = Clock(deadline=2000.0, left=12)
        for left in (12, 11, 10):
            clock.left = left
            timer.tick(clock)  # type: ignore[arg-type]
        assert [int(s.strip("⏱ s")) for s in shows] == [12, 10]
