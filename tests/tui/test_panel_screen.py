"""A panel keeps its screen rather than walking up to it for every row it draws: a mouse
selection in it is still drawn (that session's alone, not the shared rows), and a panel
under another screen (a dialog) still marks its own screen's rows."""
from __future__ import annotations

from rich.text import Text
from textual.app import App, ComposeResult
from textual.screen import Screen
from textual.selection import Selection

from tui.widgets.panels import Panel


class PanelApp(App[None]):
    CSS = "Panel { width: 20; height: 3; }"

    def compose(self) -> ComposeResult:
        yield Panel(id="p")


def _rows(panel: Panel) -> list[str]:
    return ["".join(segment.text for segment in strip) for strip in panel.render_lines(panel.size.region)]


def _styles(panel: Panel) -> list[object]:
    return [[segment.style for segment in strip] for strip in panel.render_lines(panel.size.region)]


async def test_a_selection_in_a_panel_is_drawn_and_goes_when_cleared() -> None:
    app = PanelApp()
    async with app.run_test(size=(40, 10)) as pilot:
        panel = app.query_one("#p", Panel)
        panel.show_lines([Text("hola"), Text("chau")])
        await pilot.pause()
        plain = _styles(panel)
        app.screen.selections = {panel: Selection(None, None)}  # the whole panel
        await pilot.pause()
        assert _rows(panel)[:2] == ["hola" + " " * 16, "chau" + " " * 16]
        assert _styles(panel) != plain  # drawn selected, not taken from the shared rows
        app.screen.selections = {}
        await pilot.pause()
        assert _styles(panel) == plain


async def test_a_panel_under_another_screen_keeps_its_own_and_shows_its_change() -> None:
    app = PanelApp()
    async with app.run_test(size=(40, 10)) as pilot:
        panel = app.query_one("#p", Panel)
        home = app.screen
        panel.show_lines([Text("uno")])
        await pilot.pause()
        await app.push_screen(Screen())  # (a dialog over the table)
        panel.show_lines([Text("dos")])  # changed meanwhile: its own screen marked, not the top one
        assert app.screen is not home
        app.pop_screen()
        await pilot.pause()
        assert _rows(panel)[0].startswith("dos")
