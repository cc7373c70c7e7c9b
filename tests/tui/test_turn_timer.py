"""The turn timer's countdown: 5 s steps until the last ten seconds, then every second, never
more than the decision had; repainted only when the figure it shows changes."""
from __future__ import annotations

import asyncio
import dataclasses
import random
from dataclasses import dataclass
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

import engine
from tests.tui.helpers import screen_text
from tests.tui.kit import FakeLink, seated_app, table_shown, update_for
from tui.screens.table import TableScreen
from tui.widgets.panels import Panel
from tui.widgets.table.status import TurnTimer, seconds_to_change, shown_seconds


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


@given(st.floats(0.0, 600.0), st.integers(0, 600))
def test_the_countdown_wakes_just_after_its_figure_changes(until: float, extra: int) -> None:
    """Woken when the figure shown changes, within 10 ms after, never before."""
    left = int(until + 0.999)  # as TableModel.seconds_left reads it
    full = left + extra if extra % 2 else left
    delay = seconds_to_change(until, left)
    if left == 0:
        assert delay is None
        return
    assert delay is not None and delay >= 0
    after = int(until - delay + 0.999)
    assert shown_seconds(after, full) != shown_seconds(left, full)
    if delay > 0.01:  # 10 ms earlier it still showed the same figure
        before = int(until - (delay - 0.01) + 0.999)
        assert shown_seconds(before, full) == shown_seconds(left, full)


async def test_the_countdown_runs_by_itself_and_stops_at_zero() -> None:
    rules = engine.get_ruleset("argentino", flor=False)
    state, events = engine.new_match(rules, 2, random.Random(3))
    link = FakeLink()
    app = await seated_app(link, 0)
    async with table_shown(app, link, update_for(state, 0, 1, events)):
        timer = app.screen.query_one("#t-timer", TurnTimer)
        assert timer._wake is None  # no timer at this table: nothing wakes it
        link.push(dataclasses.replace(update_for(state, 0, 2, ()), timer=2.0))
        seen = set()
        for _ in range(100):  # no update comes meanwhile: it counts down on its own
            await asyncio.sleep(0.05)
            text = screen_text(app)
            seen |= {f for f in ("⏱   2s", "⏱   1s", "⏱   0s") if f in text}
            if "⏱   0s" in text:
                break
        assert seen == {"⏱   2s", "⏱   1s", "⏱   0s"}
        assert timer._wake is None  # at 0 it stops
