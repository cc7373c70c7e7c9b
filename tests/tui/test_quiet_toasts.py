"""A new screen's hidden, empty notification rack asks for no layout; a notification still
shows, and goes (tui/textual_patches/quiet_toasts.py)."""
from __future__ import annotations

from textual.screen import Screen
from textual.widget import Widget
from textual.widgets._toast import ToastRack

from tests.tui.helpers import toasts
from tests.tui.kit import ScreensApp


async def test_no_notifications_leave_the_rack_alone(racks_laid_out: list[Widget]) -> None:
    app = ScreensApp()
    async with app.run_test(notifications=True) as pilot:
        await pilot.pause()
        racks_laid_out.clear()
        new = Screen[None]()
        app.push_screen(new)  # shown: Textual tells its rack there is nothing to show
        await pilot.pause()
        await pilot.pause()
        assert racks_laid_out == [] and not new.query_one(ToastRack).display


async def test_a_notification_shows_and_goes(racks_laid_out: list[Widget]) -> None:
    app = ScreensApp()
    async with app.run_test(notifications=True) as pilot:
        app.notify("hola", timeout=30)
        await pilot.pause()
        assert toasts(app) == ["hola"]
        assert app.screen.query_one(ToastRack).display
        app.clear_notifications()
        await pilot.pause()
        await pilot.pause()
        assert toasts(app) == []
        assert not app.screen.query_one(ToastRack).display
