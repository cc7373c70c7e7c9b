"""A layout does not ask for a second one for widgets that cannot scroll
(tui/textual_patches/hidden_overflow.py): the end of a hand, where the bets line takes a
second row, lays the table out once (stock Textual: twice), and draws what stock Textual draws."""
from __future__ import annotations

import random
from typing import Any

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


async def _layouts_at_hand_end(monkeypatch: Any) -> tuple[int, str, int]:
    """Screen layouts while the table goes to the end of the hand, the screen then, and the
    rows of the bets line."""
    before, before_events, end, end_events = _to_hand_end()
    link = FakeLink()
    app = await seated_app(link, 0)
    layouts = 0
    textual_layout = Screen._refresh_layout

    def counted(screen: Screen[Any], *args: Any, **kwargs: Any) -> None:
        nonlocal layouts
        layouts += 1
        textual_layout(screen, *args, **kwargs)

    async with table_shown(app, link, update_for(before, 0, 3, before_events), size=SIZE) as pilot:
        await pilot.pause(0.2)
        bets = app.screen.query_one("#t-bets", Static)
        assert bets.size.height == 1
        monkeypatch.setattr(Screen, "_refresh_layout", counted)
        link.push(update_for(end, 0, 4, end_events))
        for _ in range(5):
            await pilot.pause(0.1)
        monkeypatch.setattr(Screen, "_refresh_layout", textual_layout)
        return layouts, screen_text(app), bets.size.height


async def test_a_hand_end_lays_the_table_out_once_and_draws_what_textual_draws(monkeypatch: Any) -> None:
    assert Widget._size_updated is hidden_overflow._size_updated
    layouts, shown, rows = await _layouts_at_hand_end(monkeypatch)
    assert rows >= 2  # the bets line took a second row: the panes below moved and shrank
    assert layouts == 1
    # Stock Textual, the same change: a second layout, and the same screen.
    assert hidden_overflow._original is not None
    monkeypatch.setattr(Widget, "_size_updated", hidden_overflow._original)
    stock_layouts, stock_shown, stock_rows = await _layouts_at_hand_end(monkeypatch)
    assert stock_layouts == 2 and stock_rows == rows
    assert shown == stock_shown


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
