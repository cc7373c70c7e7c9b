"""The key bar never loses a key: where one line is too narrow (the lobby at 60 columns)
it breaks between keys onto a second line, and a key is never split from its words. It keeps
the rows it has needed at a width, so the screen above it does not move with the keys."""
from __future__ import annotations

import pytest
from textual.app import App, ComposeResult
from textual.widgets import Static

from tests.tui.helpers import screen_text
from tests.tui.kit import lobby_app
from tui.widgets.keybar import KeyBar, key_line


def test_key_line_breaks_between_keys_only() -> None:
    pairs = [("n", "Nueva"), ("j", "Entrar"), ("?", "Ayuda"), ("q", "Salir")]
    assert key_line(pairs).plain == "n Nueva  j Entrar  ? Ayuda  q Salir"
    assert key_line(pairs, 20).plain == "n Nueva  j Entrar\n? Ayuda  q Salir"


@pytest.mark.parametrize("lang", ["en", "es", "pt"])
async def test_the_lobby_key_bar_keeps_every_key_at_60_columns(lang: str) -> None:
    app, _link = await lobby_app(lang=lang)
    async with app.run_test(size=(60, 20)) as pilot:
        await pilot.pause(0.3)
        bar = app.screen.query_one("#lobby-keys" if app.screen.query("#lobby-keys") else "KeyBar")
        rows = screen_text(app).splitlines()[bar.region.y:bar.region.bottom]
        shown = " ".join(rows)
        for key in ("n ", "j ", "p ", "s ", "t ", "? ", "q "):
            assert key in shown, (key, rows)
        assert bar.region.height <= 3 and bar.region.bottom <= 20  # every key, on at most three rows


# -- the bar keeps the rows it has needed, so the screen above it does not move -----------

TWO_ROWS = [("q", "Quiero"), ("n", "No quiero"), ("e", "Envido"), ("r", "Real envido"),
            ("f", "Falta envido"), ("c", "Chat"), ("l", "Dejar"), ("?", "Ayuda")]
ONE_ROW = [("1-3", "Carta"), ("c", "Chat"), ("l", "Dejar"), ("?", "Ayuda")]


class _BarApp(App[None]):
    def compose(self) -> ComposeResult:
        yield Static("the table", id="above")
        yield KeyBar()


def _bar_rows(app: App[None]) -> list[str]:
    bar = app.screen.query_one(KeyBar)
    return [row.strip() for row in screen_text(app).splitlines()[bar.region.y:bar.region.bottom]]


async def test_the_bar_keeps_its_second_row_until_the_width_changes() -> None:
    app = _BarApp()
    async with app.run_test(size=(60, 12)) as pilot:
        bar = app.screen.query_one(KeyBar)
        bar.show(ONE_ROW)
        await pilot.pause()
        assert _bar_rows(app) == ["1-3 Carta  c Chat  l Dejar  ? Ayuda"]
        bar.show(TWO_ROWS)  # an envido to answer: the keys need two rows at 60 columns
        await pilot.pause()
        assert len(_bar_rows(app)) == 2 and all(_bar_rows(app))
        above = app.screen.query_one("#above").region
        bar.show(ONE_ROW)  # the cards again: one row of keys, the second kept empty
        await pilot.pause()
        assert _bar_rows(app) == ["1-3 Carta  c Chat  l Dejar  ? Ayuda", ""]
        assert app.screen.query_one("#above").region == above  # nothing above it moved
        await pilot.resize_terminal(120, 12)  # wider: the rows are worked out again
        await pilot.pause()
        assert len(_bar_rows(app)) == 1


class _EarlyBarApp(App[None]):
    """Shows its keys on mount, before any layout, as the table and lobby screens do."""

    heights: list[int] = []

    def compose(self) -> ComposeResult:
        yield Static("the table")
        yield KeyBar()

    def on_mount(self) -> None:
        bar = self.screen.query_one(KeyBar)
        bar.show(TWO_ROWS)
        assert bar.styles.height is not None
        self.heights.append(int(bar.styles.height.value))


async def test_keys_shown_before_the_first_layout_get_the_rows_of_the_terminals_width() -> None:
    # (Worked out at width 0 they took one row, and the first resize asked for a second
    # layout of the whole screen to give them two.)
    app = _EarlyBarApp()
    async with app.run_test(size=(60, 12)) as pilot:
        await pilot.pause()
        assert app.heights == [2]
        assert len(_bar_rows(app)) == 2 and all(_bar_rows(app))
