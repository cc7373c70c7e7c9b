"""A session over its input budget repaints only as its debt is paid; any other screen
repaints at once (tui/textual_patches/paced_repaint.py). What reaches the terminal is
counted at the App's ``_display`` (what Textual hands its driver). The tests wait with
asyncio, not the Pilot: ``Pilot.pause`` repaints the screen itself.)"""
from __future__ import annotations

import asyncio
from typing import Any

import pytest
from textual.app import App, ComposeResult
from textual.widgets import Static

from tui.textual_patches import paced_repaint
from tui.textual_patches.paced_repaint import REPAINT_PACE


class Counter(App[None]):
    def compose(self) -> ComposeResult:
        yield Static("frame 0", id="shown")


def count_updates(app: App[Any]) -> list[int]:
    """A list whose length is the number of screen updates sent to the terminal from now on."""
    sent: list[int] = []
    original = app._display

    def display(*args: Any) -> None:
        sent.append(1)
        original(*args)

    app._display = display  # type: ignore[method-assign]
    return sent


async def drawn(sent: list[int], before: int) -> None:
    """Until a screen update after the first ``before`` reached the terminal."""
    for _ in range(1000):
        if len(sent) > before:
            return
        await asyncio.sleep(0.01)
    raise AssertionError("never drawn")


async def test_a_screen_in_debt_puts_its_repaint_off(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(paced_repaint, "MAX_PUT_OFF", 600.0)  # (never reached in the test)
    app = Counter()
    debt = [0.0]
    setattr(app, REPAINT_PACE, lambda: debt[0])
    async with app.run_test(size=(30, 5)) as pilot:
        await pilot.pause()
        sent = count_updates(app)
        app.query_one("#shown", Static).update("frame 1")
        await drawn(sent, 0)  # within its budget: drawn as usual
        debt[0] = 10.0
        before = len(sent)
        app.query_one("#shown", Static).update("frame 2")
        # The screen went idle with the change to draw, and put its repaint off (without the
        # patch it repaints there and then, and is never put off)
        for _ in range(1000):
            if getattr(app.screen, paced_repaint._PUT_OFF, False) or len(sent) > before:
                break
            await asyncio.sleep(0.01)
        assert len(sent) == before  # put off


async def test_a_repaint_put_off_is_drawn_once_its_wait_ends(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(paced_repaint, "MAX_PUT_OFF", 0.05)
    app = Counter()
    setattr(app, REPAINT_PACE, lambda: 10.0)  # always in debt: every repaint waits its turn
    async with app.run_test(size=(30, 5)) as pilot:
        await pilot.pause()
        sent = count_updates(app)
        for n in range(1, 4):
            app.query_one("#shown", Static).update(f"frame {n}")
            await drawn(sent, len(sent))


async def test_an_app_without_a_pace_repaints_as_textual_does() -> None:
    app = Counter()
    async with app.run_test(size=(30, 5)) as pilot:
        await pilot.pause()
        sent = count_updates(app)
        app.query_one("#shown", Static).update("frame 1")
        await drawn(sent, 0)
