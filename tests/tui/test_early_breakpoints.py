"""A screen with breakpoints is styled once, with its breakpoint classes already set; a
change of size still moves them (tui/textual_patches/early_breakpoints.py)."""
from __future__ import annotations

from textual.app import ComposeResult
from textual.color import Color
from textual.dom import DOMNode
from textual.screen import Screen
from textual.widgets import Static

from tests.tui.kit import ScreensApp


class Sized(Screen[None]):
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (80, "-wide")]
    DEFAULT_CSS = "Sized.-narrow Static { color: red; } Sized.-wide Static { color: blue; }"

    def compose(self) -> ComposeResult:
        yield Static("hola")


async def test_a_new_screen_has_its_classes_before_it_is_styled(restyled: list[DOMNode]) -> None:
    app = ScreensApp()
    async with app.run_test(size=(60, 20)) as pilot:
        sized = Sized()
        await app.push_screen(sized)
        await pilot.pause()
        assert sized.has_class("-narrow") and not sized.has_class("-wide")
        assert sized not in restyled
        assert sized.query_one(Static).styles.color == Color.parse("red")


async def test_a_new_size_moves_the_classes(restyled: list[DOMNode]) -> None:
    app = ScreensApp()
    async with app.run_test(size=(60, 20)) as pilot:
        sized = Sized()
        await app.push_screen(sized)
        await pilot.pause()
        await pilot.resize_terminal(100, 20)
        await pilot.pause()
        assert sized.has_class("-wide") and not sized.has_class("-narrow")
        assert sized in restyled
        assert sized.query_one(Static).styles.color == Color.parse("blue")
