"""A chat line written to a log of a fixed size lays nothing out again, and the screen is the
one a layout draws (lines, scrollbar); a log sized by its lines still asks for its layout;
likewise a table opening in the lobby's list of tables (tui/textual_patches/quiet_log_size.py)."""
from __future__ import annotations

from typing import Any

import pytest
from textual.app import App, ComposeResult
from textual.pilot import Pilot
from textual.widgets import DataTable, RichLog

import protocol as p
from tests.tui.conftest import layout_requests
from tests.tui.helpers import screen_text, until
from tests.tui.kit import Lobby, ScreensApp
from tui.screens.lobby import LobbyScreen


async def assert_drawn_as_a_layout_draws(app: App[Any], pilot: Pilot[Any]) -> None:
    """The screen is what Textual's own layout of the whole screen draws."""
    drawn = screen_text(app)
    app.screen.refresh(layout=True)
    await pilot.pause()
    await pilot.pause()
    assert screen_text(app) == drawn


def said(n: int) -> p.Chat:
    return p.Chat(line=p.ChatLine(sender="beto", text=f"linea {n} " + "bla " * (n % 7), ts=1))


@pytest.mark.parametrize("size", [(60, 20), (80, 24)])
async def test_chat_lines_lay_nothing_out_and_draw_what_a_layout_draws(
        lobby: Lobby, monkeypatch: pytest.MonkeyPatch, size: tuple[int, int]) -> None:
    app, link = lobby
    async with app.run_test(size=size) as pilot:
        await until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby")
        log = app.screen.query_one("#chat-log", RichLog)
        link.push(*(said(n) for n in range(12)))  # more than the log shows: its scrollbar is up
        await until(pilot, lambda: "linea 11" in screen_text(app), "the first lines")
        assert log.show_vertical_scrollbar
        asking = layout_requests(monkeypatch, RichLog)
        for n in range(12, 20):
            link.push(said(n))
            await until(pilot, lambda n=n: f"linea {n}" in screen_text(app), f"line {n}")  # type: ignore[misc]
        assert asking == []
        assert log.scroll_y == log.max_scroll_y  # the newest line in sight
        await assert_drawn_as_a_layout_draws(app, pilot)


class FixedLog(ScreensApp):
    CSS = "RichLog { height: 5; overflow-y: auto; scrollbar-size: 1 1; }"  # (RichLog's own: scroll, always shown)

    def compose(self) -> ComposeResult:
        yield RichLog(min_width=1)


async def test_the_first_line_past_the_bottom_brings_the_scrollbar() -> None:
    app = FixedLog()
    async with app.run_test(size=(40, 10)) as pilot:
        await pilot.pause()
        log = app.query_one(RichLog)
        n = 0
        while not log.show_vertical_scrollbar:
            assert n < 10, "the log never filled"
            log.write(f"linea {n}")
            n += 1
            await until(pilot, lambda n=n: f"linea {n - 1}" in screen_text(app), f"line {n - 1}")  # type: ignore[misc]
        assert n == 6  # five lines fit
        await assert_drawn_as_a_layout_draws(app, pilot)


class GrowingLog(ScreensApp):
    CSS = "RichLog { height: auto; }"

    def compose(self) -> ComposeResult:
        yield RichLog()


async def test_a_log_sized_by_its_lines_still_asks_for_its_layout(monkeypatch: pytest.MonkeyPatch) -> None:
    app = GrowingLog()
    async with app.run_test(size=(60, 10)) as pilot:
        await pilot.pause()
        asking: list[Any] = layout_requests(monkeypatch, RichLog)
        app.query_one(RichLog).write("crece")
        await pilot.pause()
        assert asking  # its height follows its lines
        assert "crece" in screen_text(app)


# -- the lobby's list of tables (a DataTable of a fixed size) ------------------------------

def opened(n: int) -> p.TableUpdated:
    return p.TableUpdated(table=p.TableInfo(
        table_id=f"t{n}", title=f"mesa{n:02d}", variant="argentino", owner=f"dueno{n}",
        seats=(f"dueno{n}", None), options={"target": 30}, status="waiting"))


@pytest.mark.parametrize("size", [(60, 20), (80, 24)])
async def test_tables_opening_lay_nothing_out_and_draw_what_a_layout_draws(
        lobby: Lobby, monkeypatch: pytest.MonkeyPatch, size: tuple[int, int]) -> None:
    app, link = lobby
    async with app.run_test(size=size) as pilot:
        await until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby")
        tables = app.screen.query_one("#tables", DataTable)
        asking = layout_requests(monkeypatch, DataTable)
        link.push(opened(1))
        await until(pilot, lambda: tables.row_count == 1, "the first table")
        assert asking == []  # (Textual's DataTable asked for a layout of the lobby for each)
        for n in range(2, 16):  # past the pane's height: its scrollbar comes, once
            link.push(opened(n))
            await until(pilot, lambda n=n: tables.row_count == n, f"table {n}")  # type: ignore[misc]
        assert tables.show_vertical_scrollbar and len(asking) <= 1
        asking.clear()
        for n in range(16, 22):
            link.push(opened(n))
            await until(pilot, lambda n=n: tables.row_count == n, f"table {n}")  # type: ignore[misc]
        assert asking == []
        await pilot.pause()
        assert "mesa01" in screen_text(app)
        await assert_drawn_as_a_layout_draws(app, pilot)
