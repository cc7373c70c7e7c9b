"""A screen's first layout does not ask for a second one through its virtual size; a screen
whose content does not fit still gets its scrollbar (tui/textual_patches/screen_virtual_size.py)."""
from __future__ import annotations

from textual.app import ComposeResult
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Static

from tests.tui.kit import ScreensApp


class Tall(Screen[None]):
    DEFAULT_CSS = "Tall { overflow-y: auto; } Tall Static { height: 30; }"

    def compose(self) -> ComposeResult:
        yield Static("alto")


async def test_a_screen_laid_out_asks_for_no_second_layout(screens_asking: list[Widget]) -> None:
    app = ScreensApp()
    async with app.run_test(size=(40, 10)) as pilot:
        await pilot.pause()
        screen = app.screen
        screens_asking.clear()
        screen._refresh_layout(screen.size.with_width(30))  # a new size: a new virtual size
        assert screen.virtual_size.width == 30
        assert screens_asking == []


async def test_a_screen_too_short_for_its_content_shows_its_scrollbar(screens_asking: list[Widget]) -> None:
    app = ScreensApp()
    async with app.run_test(size=(40, 10)) as pilot:
        tall = Tall()
        await app.push_screen(tall)
        await pilot.pause()
        await pilot.pause()
        assert tall.virtual_size.height == 30
        assert tall.show_vertical_scrollbar
        assert tall.query_one(Static).region.width < 40  # the scrollbar took its column
