"""Lite mode (and a vt100) draws the screen's lines in ASCII."""
from __future__ import annotations

from tests.tui.helpers import screen_text
from tests.tui.kit import lobby_app


async def test_lite_lobby_lines_are_ascii_and_toggle_back() -> None:
    app, _link = await lobby_app()
    app.lite = True  # as the session sets it for a vt100 or `serve --lite`
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause(0.3)
        text = screen_text(app)
        assert "+- Players" in text and "|" in text
        assert not any(ch in text for ch in "╭╮╰╯│─")
        app.toggle_lite()  # `L`: back to the full look
        await pilot.pause(0.3)
        assert "╭─ Players" in screen_text(app)
