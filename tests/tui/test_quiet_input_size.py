"""Typing into a field of a fixed size lays nothing out again; a field sized by its text
still asks for its layout; a line longer than the field scrolls to the cursor
(tui/textual_patches/quiet_input_size.py)."""
from __future__ import annotations

from typing import Any

import pytest
from textual.app import ComposeResult
from textual.widget import Widget
from textual.widgets import Input

from tests.tui.conftest import layout_requests
from tests.tui.helpers import screen_text, until
from tests.tui.kit import Lobby, ScreensApp
from tui.screens.lobby import LobbyScreen


async def test_keys_typed_into_the_lobby_chat_lay_nothing_out(lobby: Lobby, monkeypatch: pytest.MonkeyPatch) -> None:
    app, _link = lobby
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby")
        await pilot.press("c")
        await pilot.pause()
        asking = layout_requests(monkeypatch, Widget)
        await pilot.press(*"hola que tal")
        await pilot.pause()
        assert app.screen.query_one("#chat-input", Input).value == "hola que tal"
        assert "hola que tal" in screen_text(app)
        assert asking == []


async def test_a_line_longer_than_the_field_shows_its_end(lobby: Lobby) -> None:
    app, _link = lobby
    async with app.run_test(size=(60, 20)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby")
        await pilot.press("c")
        line = "abcdefghij" * 7 + "FIN"  # wider than the field at 60 columns
        await pilot.press(*line)
        await pilot.pause()
        field = app.screen.query_one("#chat-input", Input)
        assert field.value == line
        assert field.scroll_x > 0
        await until(pilot, lambda: "FIN" in screen_text(app), "the end of the line in sight")


class AutoWidth(ScreensApp):
    CSS = "Input { width: auto; }"

    def compose(self) -> ComposeResult:
        yield Input()


async def test_a_field_sized_by_its_text_still_asks_for_its_layout(monkeypatch: pytest.MonkeyPatch) -> None:
    app = AutoWidth()
    async with app.run_test(size=(60, 10)) as pilot:
        await pilot.pause()
        asking: list[Any] = layout_requests(monkeypatch, Input)
        await pilot.press(*"crece")
        await pilot.pause()
        assert app.query_one(Input).value == "crece"
        assert asking  # its width follows its text
