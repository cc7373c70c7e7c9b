"""A screen shown for the first time keeps the styles its mount applied; a screen
resumed after a suspend has them applied again (tui/textual_patches/first_resume.py)."""
from __future__ import annotations

from textual import events
from textual.app import ComposeResult
from textual.color import Color
from textual.dom import DOMNode
from textual.screen import Screen
from textual.widgets import Static

from tests.tui.kit import ScreensApp


class Shade(Static):
    DEFAULT_CSS = "Shade { color: red; }"


class Shaded(Screen[None]):
    def compose(self) -> ComposeResult:
        yield Shade("hola")


class Other(Screen[None]):
    def compose(self) -> ComposeResult:
        yield Static("otra")


async def test_a_new_screen_is_not_restyled_and_shows_its_styles(restyled: list[DOMNode]) -> None:
    app = ScreensApp()
    async with app.run_test() as pilot:
        shaded = Shaded()
        await app.push_screen(shaded)
        await pilot.pause()
        assert app.screen is shaded
        assert shaded not in restyled
        assert shaded.query_one(Shade).styles.color == Color.parse("red")


async def test_a_screen_resumed_after_a_suspend_is_restyled(restyled: list[DOMNode]) -> None:
    app = ScreensApp()
    async with app.run_test() as pilot:
        shaded = Shaded()
        await app.push_screen(shaded)
        await pilot.pause()
        await app.push_screen(Other())
        await pilot.pause()
        restyled.clear()
        shaded.post_message(events.ScreenResume())  # as Textual posts it when a screen comes back
        await pilot.pause()
        assert shaded in restyled
        assert shaded.query_one(Shade).styles.color == Color.parse("red")
