"""A layout does not ask for a second one for widgets that cannot scroll
(tui/textual_patches/hidden_overflow.py): a status line that takes a second row lays the
table out once (stock Textual: twice), and draws what stock Textual draws. And the end of a
hand, where the bets line says who scored what, lays nothing out where that fits one row."""
from __future__ import annotations

import random
from typing import Any

import pytest
from rich.text import Text
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Static

import engine
from tests.tui.helpers import screen_text
from tests.tui.kit import FakeLink, seated_app, table_shown, update_for
from tui.textual_patches import hidden_overflow

SIZE = (80, 24)


def _to_hand_end() -> tuple[engine.State, list[engine.Event], engine.State, list[engine.Event]]:
    """A 4-player hand played to its end (not dealt again, as the server shows it during
    the hand pause): the state one move before the end, and the end."""
    rules = engine.get_ruleset("argentino", flor=False)
    rng = random.Random(2)
    state, events = engine.new_match(rules, 4, rng)
    before, before_events = state, events
    while not state.needs_deal:
        actions = engine.all_legal_actions(state)
        plays = [a for a in actions if a.card is not None]
        before, before_events = state, events
        state, events = engine.apply(state, rng.choice(plays or actions))
    return before, list(before_events), state, list(events)


async def _layouts_at_hand_end(monkeypatch: Any, size: tuple[int, int] = SIZE,
                               status: str = "") -> tuple[int, str, int]:
    """Screen layouts while the table goes to the end of the hand (and, given ``status``,
    the status line says that), the screen then, and the rows of the bets and status lines."""
    before, before_events, end, end_events = _to_hand_end()
    link = FakeLink()
    app = await seated_app(link, 0)
    layouts = 0
    textual_layout = Screen._refresh_layout

    def counted(screen: Screen[Any], *args: Any, **kwargs: Any) -> None:
        nonlocal layouts
        layouts += 1
        textual_layout(screen, *args, **kwargs)

    async with table_shown(app, link, update_for(before, 0, 3, before_events), size=size) as pilot:
        await pilot.pause(0.2)
        bets = app.screen.query_one("#t-bets", Static)
        status_line = app.screen.query_one("#t-status", Static)
        assert bets.size.height == 1 and status_line.size.height == 1
        monkeypatch.setattr(Screen, "_refresh_layout", counted)
        link.push(update_for(end, 0, 4, end_events))
        for _ in range(3):
            await pilot.pause(0.1)
        if status:
            status_line.show(Text(status, no_wrap=False))  # type: ignore[attr-defined]
            for _ in range(3):
                await pilot.pause(0.1)
        monkeypatch.setattr(Screen, "_refresh_layout", textual_layout)
        return layouts, screen_text(app), bets.size.height + status_line.size.height


LONG = " ".join(["a status line long enough to take a second row"] * 3)


async def test_a_second_row_lays_the_table_out_once_and_draws_what_textual_draws(monkeypatch: Any) -> None:
    assert Widget._size_updated is hidden_overflow._size_updated
    layouts, shown, rows = await _layouts_at_hand_end(monkeypatch, status=LONG)
    assert rows >= 3  # the status line took a second row: the panes above moved and shrank
    assert layouts == 1
    # Stock Textual, the same change: a second layout, and the same screen.
    assert hidden_overflow._original is not None
    monkeypatch.setattr(Widget, "_size_updated", hidden_overflow._original)
    stock_layouts, stock_shown, stock_rows = await _layouts_at_hand_end(monkeypatch, status=LONG)
    assert stock_layouts == 2 and stock_rows == rows
    assert shown == stock_shown


@pytest.mark.parametrize("size", [(60, 20), (80, 24)])
async def test_a_hand_end_says_who_scored_without_a_layout(monkeypatch: Any, size: tuple[int, int]) -> None:
    layouts, shown, rows = await _layouts_at_hand_end(monkeypatch, size)
    assert layouts == 0 and rows == 2
    lines = shown.splitlines()
    # The bets line (under the seats) says what the hand gave, in place of what it was worth.
    assert any(line.startswith("Us 1 (tricks)") for line in lines[:9]), shown
    assert not any("worth" in line for line in lines), shown


async def test_a_widget_that_may_scroll_still_asks_for_the_layout(monkeypatch: Any) -> None:
    """Scrollbars may appear when its virtual size changes: that needs the second layout."""
    link = FakeLink()
    app = await seated_app(link, 0)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause(0.1)
        scrolling, hidden = Static("a"), Static("b")
        scrolling.styles.overflow_y = "auto"
        await app.screen.mount(scrolling, hidden)
        await pilot.pause(0.1)
        for widget in (scrolling, hidden):
            widget._layout_required = False
            widget._size_updated(widget.size, widget.virtual_size + (0, 5), widget.container_size)
        assert scrolling._layout_required and not hidden._layout_required
        assert hidden.virtual_size == scrolling.virtual_size  # the new size is kept all the same
