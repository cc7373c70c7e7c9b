"""A mount asks for one layout of its parent however it is awaited, and none for a screen
laid out since its own mount; a mount into a screen still lays it out
(tui/textual_patches/mount_refresh_once.py)."""
from __future__ import annotations

from typing import Any

import pytest
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Static

from tests.tui.kit import ScreensApp, Shown


@pytest.fixture
def layouts_asked(monkeypatch: pytest.MonkeyPatch) -> list[Widget]:
    """Every widget that asked for a layout, in order."""
    seen: list[Widget] = []
    original = Widget.refresh

    def spy(self: Widget, *regions: Any, layout: bool = False, **kwargs: Any) -> Widget:
        if layout:
            seen.append(self)
        return original(self, *regions, layout=layout, **kwargs)

    monkeypatch.setattr(Widget, "refresh", spy)
    return seen


async def test_a_new_screen_is_laid_out_once(monkeypatch: pytest.MonkeyPatch) -> None:
    laid_out: list[Screen[Any]] = []
    original = Screen._refresh_layout

    def spy(self: Screen[Any], size: Any = None, scroll: bool = False) -> None:
        laid_out.append(self)
        original(self, size, scroll)

    monkeypatch.setattr(Screen, "_refresh_layout", spy)
    app = ScreensApp()
    async with app.run_test(size=(60, 20), notifications=True, tooltips=True) as pilot:
        shown = Shown()
        app.push_screen(shown)  # not awaited, as the app pushes its screens
        for _ in range(4):
            await pilot.pause()
        assert laid_out.count(shown) == 1  # its first layout; nothing left over from mounting it
        assert shown.query_one("#hola").region.width == 60


async def test_a_mount_lays_its_parent_out_once(layouts_asked: list[Widget]) -> None:
    app = ScreensApp()
    async with app.run_test(size=(60, 20)) as pilot:
        screen = app.screen
        await pilot.pause()
        layouts_asked.clear()
        await screen.mount(Static("nuevo", id="nuevo"))  # awaited, and scheduled by mount
        await pilot.pause()
        await pilot.pause()
        assert layouts_asked.count(screen) == 1
        assert screen.query_one("#nuevo").region.width == 60  # and that layout placed it
