"""Panels of every session share the lines they render (tui/widgets/panels.py): a second
session showing the same table renders almost nothing anew, and draws the same screen;
a session in another size or in lite mode gets its own lines, not another session's."""
from __future__ import annotations

import contextlib
from typing import Any, AsyncIterator

from tests.tui.helpers import screen_text
from tests.tui.kit import FakeLink, seated_app, table_shown, two_player_state, update_for
from tui.app import TrucoApp
from tui.widgets import panels


@contextlib.asynccontextmanager
async def table_app(size: tuple[int, int] = (80, 24), lite: bool = False,
                    seed: int = 11) -> AsyncIterator[tuple[TrucoApp, Any]]:
    _, state, events = two_player_state(seed=seed)
    link = FakeLink()
    app = await seated_app(link, 0)
    app.lite = lite
    async with table_shown(app, link, update_for(state, 0, 3, events), size=size) as pilot:
        yield app, pilot


async def test_a_second_session_reuses_the_lines_the_first_rendered() -> None:
    async with table_app() as (first, _):
        first_text = screen_text(first)
        after_first = panels.shared_strip_count()
        assert after_first > 0
        async with table_app() as (second, _):
            assert screen_text(second) == first_text
            # (the chat input's cursor and the timer are not panels: a line or two at most)
            assert panels.shared_strip_count() - after_first <= 2


async def test_other_widths_and_lite_mode_render_their_own_lines() -> None:
    async with table_app((80, 24)) as (usual, _):
        usual_text = screen_text(usual)
        async with table_app((200, 50)) as (wide, _):
            wide_rows = screen_text(wide).splitlines()
            assert len(wide_rows) == 50 and all(len(row) == 200 for row in wide_rows)
        async with table_app((80, 24), lite=True) as (lite, _):
            lite_text = screen_text(lite)
    assert lite_text != usual_text  # ASCII borders and cards: nothing borrowed from the other
    assert "╭" not in lite_text and "─" not in lite_text


async def test_the_shared_lines_stay_bounded() -> None:
    saved = panels.SHARED_STRIPS_MAX
    panels.SHARED_STRIPS_MAX = 5
    try:
        async with table_app(seed=12) as (app, _):  # (other cards: lines not drawn before)
            assert panels.shared_strip_count() <= 5
            assert "Hand 1" in screen_text(app)
    finally:
        panels.SHARED_STRIPS_MAX = saved
