"""Panels of every session share the lines they render (tui/widgets/panels.py) and the rows
styled from them (tui/widgets/shared_rows.py): a second session showing the same table
renders and styles almost nothing anew, and draws the same screen; a session in another
size or in lite mode, or a panel restyled, gets its own rows, not another session's."""
from __future__ import annotations

import contextlib
from typing import Any, AsyncIterator

import pytest
from rich.segment import Segment
from rich.text import Text
from textual._styles_cache import StylesCache
from textual.color import Color
from textual.filter import ANSIToTruecolor, DimFilter, LineFilter, Monochrome
from textual.geometry import Region
from textual.widget import Widget

from tests.tui.helpers import screen_text
from tests.tui.kit import FakeLink, seated_app, table_shown, two_player_state, update_for
from tui.app import TrucoApp
from tui.widgets import log_panel, panels, shared_rows
from tui.widgets.panels import Panel


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
    saved = panels.SHARED_STRIPS.limit
    panels.SHARED_STRIPS.limit = 5
    try:
        async with table_app(seed=12) as (app, _):  # (other cards: lines not drawn before)
            assert panels.shared_strip_count() <= 5
            assert "Hand 1" in screen_text(app)
    finally:
        panels.SHARED_STRIPS.limit = saved


# -- styled rows (tui/widgets/shared_rows.py): a panel's rows with borders and background --

def _rows_drawn_alone(panel: Panel) -> list[list[Segment]]:
    """The panel's rows as Textual draws them for it alone (its own styles cache, emptied)."""
    panel._styles_cache.clear()
    return [list(row) for row in Widget.render_lines(panel, Region(0, 0, *panel.region.size))]


def _rows_shared(panel: Panel) -> list[list[Segment]]:
    return [list(row) for row in panel.render_lines(Region(0, 0, *panel.region.size))]


def _shown_panels(app: TrucoApp) -> list[Panel]:
    return [panel for panel in app.screen.query(Panel) if panel.region]


@pytest.mark.parametrize("size", [(60, 20), (80, 24), (200, 50)])
async def test_shared_styled_rows_are_the_rows_textual_draws(size: tuple[int, int]) -> None:
    async with table_app(size) as (first, _):
        async with table_app(size) as (second, _):  # takes the first one's rows
            assert screen_text(second) == screen_text(first)
            panels = _shown_panels(second)
            assert len(panels) > 5
            for panel in panels:
                assert _rows_shared(panel) == _rows_drawn_alone(panel), panel.id


async def test_a_second_session_styles_no_row_the_first_styled(monkeypatch: Any) -> None:
    """Only the panels' border rows (their titles are the session's: not shared), and a
    panel's first paint before it was given its lines (empty: Textual draws it)."""
    styled: list[tuple[Widget, int]] = []
    textual_render_widget, shared_styled = StylesCache.render_widget, shared_rows._styled

    def render_widget(cache: StylesCache, widget: Widget, crop: Region) -> Any:
        if getattr(widget, "_line_texts", None) is not None:
            styled.extend((widget, y) for y in crop.line_range)
        return textual_render_widget(cache, widget, crop)

    def styled_shared(widget: Widget, cache: Any, frame: Any, crop: Region) -> Any:
        styled.extend((widget, y) for y in crop.line_range)
        return shared_styled(widget, cache, frame, crop)

    async with table_app() as (first, _):
        monkeypatch.setattr(StylesCache, "render_widget", render_widget)  # Textual's own drawing
        monkeypatch.setattr(shared_rows, "_styled", styled_shared)  # rows no session had styled
        async with table_app() as (second, _):
            assert screen_text(second) == screen_text(first)
            panels = _shown_panels(second)
            content = [(panel, y) for panel, y in styled if panel in panels
                       and panel.styles.gutter.top <= y < panel.region.height - panel.styles.gutter.bottom]
            assert len(panels) > 5 and {panel for panel, _ in styled} & set(panels)
            assert not content, [(panel.id, y) for panel, y in content]


async def test_a_restyled_panel_gets_rows_of_its_new_style() -> None:
    async with table_app() as (first, pilot):
        bets = first.screen.query_one("#t-bets", Panel)
        before = _rows_shared(bets)
        bets.styles.background = "darkred"
        await pilot.pause(0.1)
        after = _rows_shared(bets)
        assert after != before
        assert after == _rows_drawn_alone(bets)
        async with table_app() as (second, _):  # its own frame: the usual rows
            assert _rows_shared(second.screen.query_one("#t-bets", Panel)) == before


async def test_a_new_border_title_and_padding_are_drawn_as_textual_draws_them() -> None:
    """What a panel's frame keeps (its titles, where its content starts, its inner size) is
    worked out again when the panel's title or styles change."""
    async with table_app() as (app, pilot):
        log = app.screen.query_one("#t-log", Panel)
        log.border_title = "Otro título"
        await pilot.pause(0.1)
        assert "Otro título" in screen_text(app)
        shared = _rows_shared(log)
        assert shared == _rows_drawn_alone(log)
        log.styles.padding = (1, 3)
        await pilot.pause(0.1)
        assert log._inner_size() == log.size  # Textual's content size, borders and padding off
        log.write(Text("una línea nueva"))
        await pilot.pause(0.1)
        assert _rows_shared(log) == _rows_drawn_alone(log)
        assert "una línea nueva" in screen_text(app)


async def test_the_styled_rows_stay_bounded() -> None:
    saved = shared_rows.STYLED_ROWS.limit
    shared_rows.STYLED_ROWS.limit = 5
    try:
        async with table_app(seed=13) as (app, _):
            assert len(shared_rows.STYLED_ROWS) <= 5
            assert "Hand 1" in screen_text(app)
            for panel in _shown_panels(app):
                assert _rows_shared(panel) == _rows_drawn_alone(panel), panel.id
    finally:
        shared_rows.STYLED_ROWS.limit = saved


async def test_sessions_share_one_colour_filter_and_switch_their_own() -> None:
    async with table_app() as (first, _):
        async with table_app() as (second, pilot):
            ours = [f for f in first._filters if isinstance(f, ANSIToTruecolor)]
            assert ours and ours == [f for f in second._filters if isinstance(f, ANSIToTruecolor)]
            assert ours[0] is next(f for f in second._filters if isinstance(f, ANSIToTruecolor))
            second.ansi_color = True  # the terminal's own ANSI colours: no conversion
            await pilot.pause(0.1)
            assert ours[0].enabled  # the first session's filter was not switched off
            switched = next(f for f in second._filters if isinstance(f, ANSIToTruecolor))
            assert switched is not ours[0] and not switched.enabled


async def test_a_second_session_wraps_no_log_line_anew() -> None:
    async with table_app() as (first, _):
        wrapped = len(log_panel.WRAPPED_ROWS)
        assert wrapped > 0
        async with table_app() as (second, _):
            assert len(log_panel.WRAPPED_ROWS) == wrapped
            log = second.screen.query_one("#t-log", log_panel.LogPanel)
            assert log.lines and screen_text(second) == screen_text(first)


@pytest.mark.parametrize("css", [
    "border: round red; padding: 0 2;", "border-left: tall blue; padding: 0 0 0 1;", "padding: 0 3 0 0;",
    "tint: red 30%;", "opacity: 0.6;", "outline: solid red;", "hatch: cross red;", "text-opacity: 50%;",
    "border: round red; tint: blue 20%;",
])
async def test_rows_made_from_a_frames_caps_are_the_rows_textual_draws(css: str) -> None:
    """A content row no session styled yet is put together from its frame's borders and
    padding (``shared_rows.Caps``), or, for a frame with a tint, an opacity, an outline or a
    hatch, styled by Textual: either way as Textual draws it alone."""
    frame = await _one_panel_painted(css, "bold")
    kind = shared_rows._CAPS.get(frame.id)
    simple = not any(word in css for word in ("tint", "opacity", "outline", "hatch"))
    assert isinstance(kind, shared_rows.Caps) if simple else kind is False


async def _one_panel_painted(css: str, odd_style: str, filters: tuple[Any, ...] = ()) -> Any:
    """A panel styled by ``css`` (with ``filters`` added to the app's line filters) painted
    three times, its rows checked against Textual's own each time: its frame."""
    from textual.app import App, ComposeResult

    class OnePanel(App[None]):
        CSS = "Panel { width: 30; height: 6; " + css + " }"

        def compose(self) -> ComposeResult:
            yield Panel(id="one")

    app = OnePanel()
    app._filters.extend(filters)
    async with app.run_test(size=(40, 10)) as pilot:
        panel = app.query_one("#one", Panel)
        for n in range(3):  # the first paint, then rows changed one by one (their frame known)
            lines = [Text(f"fila {n}.{i}", style=odd_style if i % 2 else "") for i in range(4)]
            lines[1].stylize("green", 0, 4)
            panel.show_lines(lines)
            await pilot.pause()
            shared, frame = _rows_shared(panel), panel._styles_cache.frame
            assert frame is not None and shared == _rows_drawn_alone(panel), n
    return frame


class _Reversed(LineFilter):
    """A line filter that is not segment by segment (a row must be filtered whole)."""

    def apply(self, segments: list[Segment], background: Color) -> list[Segment]:
        return segments[::-1]


@pytest.mark.parametrize("extra", [(), (Monochrome(),), (DimFilter(),), (_Reversed(),), (DimFilter(), _Reversed())])
async def test_rows_made_from_caps_go_through_the_line_filters_as_textual_filters_them(extra: tuple[Any, ...]) -> None:
    """Where every line filter maps segment by segment (Textual's do), a new row is the caps
    filtered once around its content filtered on its own; with any other filter, the row is
    filtered whole. Either way the row Textual draws."""
    frame = await _one_panel_painted("border: round red; padding: 0 1;", "dim", extra)
    caps = shared_rows._CAPS.get(frame.id)
    assert isinstance(caps, shared_rows.Caps)
    assert (caps.filtered is None) == any(isinstance(f, _Reversed) for f in extra)
