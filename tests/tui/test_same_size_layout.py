"""A screen is not laid out again for a Resize to the size it was just laid out at; a real
change of size lays it out again (tui/textual_patches/same_size_layout.py)."""
from __future__ import annotations

from typing import Any

import pytest
from textual.geometry import Size
from textual.screen import Screen

from tests.tui.kit import ScreensApp, Shown


@pytest.fixture
def layouts(monkeypatch: pytest.MonkeyPatch) -> list[tuple[Screen[Any], Size | None]]:
    """Every full layout of a screen, with the size it was asked for."""
    seen: list[tuple[Screen[Any], Size | None]] = []
    original = Screen._refresh_layout

    def spy(self: Screen[Any], size: Size | None = None, scroll: bool = False) -> None:
        seen.append((self, size))
        original(self, size, scroll)

    monkeypatch.setattr(Screen, "_refresh_layout", spy)
    return seen


async def test_a_new_screen_is_laid_out_once_at_its_size(layouts: list[tuple[Screen[Any], Size | None]]) -> None:
    app = ScreensApp()
    async with app.run_test(size=(60, 20)) as pilot:
        base = app.screen
        layouts.clear()
        shown = Shown()
        await app.push_screen(shown)
        await pilot.pause()
        # Its first layout, and not again for the Resize that layout sends it...
        assert [size for screen, size in layouts if screen is shown and size is not None] == [Size(60, 20)]
        assert [size for screen, size in layouts if screen is base and size is not None] == []  # nor below
        assert shown.query_one("#hola").region.width == 60


async def test_a_new_size_lays_the_screens_out_again(layouts: list[tuple[Screen[Any], Size | None]]) -> None:
    app = ScreensApp()
    async with app.run_test(size=(60, 20)) as pilot:
        base = app.screen
        shown = Shown()
        await app.push_screen(shown)
        await pilot.pause()
        layouts.clear()
        await pilot.resize_terminal(70, 22)
        await pilot.pause()
        assert (shown, Size(70, 22)) in layouts
        assert (base, Size(70, 22)) in layouts  # the screen below too, as before
        assert shown.query_one("#hola").region.width == 70
