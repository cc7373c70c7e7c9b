"""A table update is drawn as soon as the app has handled it (tui/draw_now.py), not at the
screen's next update tick; frames that came together are drawn once, after the last."""
from __future__ import annotations

import asyncio
import random
import time
from typing import Any

import pytest

import engine
from tests.tui.helpers import screen_text
from tests.tui.kit import FakeLink, seated_app, table_shown, two_player_state, update_for
from textual.screen import Screen
from tui import app as app_module
from tui.screens.table import TableScreen


@pytest.fixture
def draws(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, int]]:
    """Every draw of a dirty table screen: who drew it ("now": the app, "tick": Textual's
    update timer) and how many widgets were dirty. The lobby below draws its own changes
    (a loaded machine can bring them late, into the frames' window) and they do not repaint
    the table above it (tui/textual_patches/covered_screens.py: without it, a lobby widget
    refreshed after the frames gave ``[('now', 8), ('tick', 0)]``, as CI once did)."""
    seen: list[tuple[str, int]] = []
    drawing_now = [False]
    timer_update = Screen._on_timer_update
    real_draw_now = app_module.draw_now

    def on_timer_update(screen: Screen[Any]) -> None:
        if isinstance(screen, TableScreen) and (
                screen._dirty_widgets or screen._repaint_required or screen._layout_required):
            seen.append(("now" if drawing_now[0] else "tick", len(screen._dirty_widgets)))
        timer_update(screen)

    def draw_now(app: Any) -> None:
        drawing_now[0] = True
        try:
            real_draw_now(app)
        finally:
            drawing_now[0] = False

    monkeypatch.setattr(Screen, "_on_timer_update", on_timer_update)
    monkeypatch.setattr(app_module, "draw_now", draw_now)
    return seen


def _moves(count: int) -> list[tuple[engine.State, list[engine.Event]]]:
    """A 2-player game played on by its first legal actions (cards and answers)."""
    _, state, events = two_player_state(seed=3)
    out = [(state, list(events))]
    rng = random.Random(1)
    for _ in range(count):
        state, events = engine.advance(state, engine.all_legal_actions(state)[0], rng)
        out.append((state, list(events)))
    return out


async def test_an_update_is_drawn_by_the_app_as_soon_as_it_is_handled(draws: list[tuple[str, int]]) -> None:
    moves = _moves(3)
    link = FakeLink()
    app = await seated_app(link, seat=0)
    async with table_shown(app, link, update_for(moves[0][0], 0, 1, moves[0][1])) as pilot:
        assert isinstance(app.screen, TableScreen)
        for seq, (state, events) in enumerate(moves[1:], start=2):
            draws.clear()
            before = screen_text(app)
            link.push(update_for(state, 0, seq, events))
            await pilot.pause(0.1)  # long enough for the update timer to have ticked too
            assert screen_text(app) != before  # the move is on the screen
            assert draws and draws[0][0] == "now", draws  # drawn by the app, not at a tick
            assert all(who == "now" for who, _ in draws), draws  # the timer found nothing left


async def test_frames_that_come_together_are_drawn_once_after_the_last(
        draws: list[tuple[str, int]], monkeypatch: pytest.MonkeyPatch) -> None:
    moves = _moves(3)

    async def shown_after_all() -> str:
        link = FakeLink()
        app = await seated_app(link, seat=0)
        async with table_shown(app, link, update_for(moves[0][0], 0, 1, moves[0][1])) as pilot:
            draws.clear()
            link.push(*(update_for(state, 0, seq, events) for seq, (state, events) in enumerate(moves[1:], start=2)))
            await pilot.pause(0.1)
            return screen_text(app)

    drawn_at_once = await shown_after_all()
    assert [who for who, _ in draws] == ["now"], draws
    # What Textual's update timer alone draws of the same frames is the same screen.
    monkeypatch.setattr(app_module, "draw_now", lambda app: None)
    assert await shown_after_all() == drawn_at_once
    assert draws and all(who == "tick" for who, _ in draws), draws


async def test_an_update_wakes_no_message_loop_of_the_screen(monkeypatch: pytest.MonkeyPatch) -> None:
    """The panels a frame repaints do not prompt the screen's message loop (a Prompt, a task
    switch and an idle pass per update of every seat): the app draws them itself."""
    moves = _moves(3)
    link = FakeLink()
    app = await seated_app(link, seat=0)
    async with table_shown(app, link, update_for(moves[0][0], 0, 1, moves[0][1])):
        screen = app.screen
        assert isinstance(screen, TableScreen)
        posted: list[str] = []
        real_post = Screen.post_message

        def post_message(self: Screen[Any], message: Any) -> bool:
            if self is screen:
                posted.append(type(message).__name__)
            return real_post(self, message)

        monkeypatch.setattr(Screen, "post_message", post_message)
        for seq, (state, events) in enumerate(moves[1:], start=2):
            before = screen_text(app)
            link.push(update_for(state, 0, seq, events))
            # Until the move is drawn: the app handles the frame, draws and prompts whatever is
            # left to draw in one go (tui/app.py), so whatever it posts is posted by then.
            # (Looked at with asyncio.sleep: the pilot's pause posts to the screen itself.)
            deadline = time.monotonic() + 15
            while screen_text(app) == before:
                assert time.monotonic() < deadline, "the move was never drawn"
                await asyncio.sleep(0.01)
        assert posted == [], posted
