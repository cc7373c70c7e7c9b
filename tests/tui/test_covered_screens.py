"""A screen under an opaque one draws its changes without repainting the screen on top;
under a translucent one it shows through as before (tui/textual_patches/covered_screens.py)."""
from __future__ import annotations

import asyncio
from typing import Any

import pytest
from textual.app import App, ComposeResult
from textual.screen import ModalScreen, Screen
from textual.widgets import Static

from tests.tui.helpers import screen_text, until


class Below(Screen[None]):
    def compose(self) -> ComposeResult:
        yield Static("antes", id="news")


class Opaque(Screen[None]):
    def compose(self) -> ComposeResult:
        yield Static("la mesa")


class Translucent(ModalScreen[None]):
    DEFAULT_CSS = "Translucent { background: black 50%; align: center middle; } Translucent Static { width: 12; }"

    def compose(self) -> ComposeResult:
        yield Static("¿seguro?")


class Stacked(App[None]):
    def on_mount(self) -> None:
        self.push_screen(Below())


@pytest.fixture
def displayed(monkeypatch: pytest.MonkeyPatch) -> list[Screen[Any]]:
    """Every screen the app sends an update of to the terminal, in order."""
    shown: list[Screen[Any]] = []
    real = App._display

    def display(app: App[Any], screen: Screen[Any], renderable: Any) -> None:
        shown.append(screen)
        real(app, screen, renderable)

    monkeypatch.setattr(App, "_display", display)
    return shown


@pytest.fixture
def drawn(monkeypatch: pytest.MonkeyPatch) -> list[Screen[Any]]:
    """Every screen that draws a change of its own (a compositor refresh with dirty regions)."""
    seen: list[Screen[Any]] = []
    real = Screen._compositor_refresh

    def compositor_refresh(screen: Screen[Any]) -> None:
        if screen._compositor._dirty_regions:
            seen.append(screen)
        real(screen)

    monkeypatch.setattr(Screen, "_compositor_refresh", compositor_refresh)
    return seen


async def _change_below(pilot: Any, below: Screen[Any], displayed: list[Screen[Any]],
                        drawn: list[Screen[Any]]) -> None:
    """Change the text of the covered screen and let both screens run their ticks."""
    top = pilot.app.screen
    await pilot.pause()  # the top screen's own mount and layout drawn first
    await until(pilot, lambda: not (top._dirty_widgets or top._layout_required or top._repaint_required),
                "the top screen drawn")
    displayed.clear()
    drawn.clear()
    below.query_one("#news", Static).update("después")
    await until(pilot, lambda: below in drawn, "the screen below drew its change")
    await pilot.pause()  # the top screen's next tick
    await pilot.pause()


async def _cover(app: Stacked, pilot: Any, top: Screen[Any], shown: str) -> Screen[Any]:
    """Push ``top`` over the screen below once the app is up; the screen below."""
    await pilot.pause()
    below = app.screen
    await app.push_screen(top)
    await until(pilot, lambda: shown in screen_text(app), f"the screen showing {shown}")
    return below


async def test_a_change_under_an_opaque_screen_repaints_nothing_on_top(
        displayed: list[Screen[Any]], drawn: list[Screen[Any]]) -> None:
    app = Stacked()
    async with app.run_test(size=(30, 6)) as pilot:
        top = Opaque()
        below = await _cover(app, pilot, top, "la mesa")
        assert top.styles.background.a == 1
        await _change_below(pilot, below, displayed, drawn)
        assert top not in displayed
        assert "después" not in screen_text(app) and "la mesa" in screen_text(app)
        # Nor does the covered screen draw itself again for every message it handles.
        drawn.clear()
        for _ in range(3):
            handled = asyncio.Event()
            below.call_later(handled.set)
            await handled.wait()
            await pilot.pause()
        assert below not in drawn and top not in displayed
        app.pop_screen()  # shown again, the covered screen shows what changed meanwhile
        await until(pilot, lambda: "después" in screen_text(app), "the change below, once uncovered",
                    seen=lambda: screen_text(app))


async def test_a_change_under_a_translucent_screen_shows_through(
        displayed: list[Screen[Any]], drawn: list[Screen[Any]]) -> None:
    app = Stacked()
    async with app.run_test(size=(30, 6)) as pilot:
        below = await _cover(app, pilot, Translucent(), "¿seguro?")
        await _change_below(pilot, below, displayed, drawn)
        assert app.screen in displayed
        assert "después" in screen_text(app)
