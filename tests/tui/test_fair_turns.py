"""A widget with a backlog of messages lets the rest of the event loop run between them
(tui/textual_patches/fair_turns.py): in the server, every session shares that loop."""
from __future__ import annotations

import asyncio

import pytest
from textual.app import App, ComposeResult
from textual.message import Message
from textual.message_pump import MessagePump
from textual.widget import Widget

from tui.textual_patches import fair_turns

BACKLOG = 20


class Busy(Widget):
    class Work(Message):
        def __init__(self, number: int) -> None:
            super().__init__()
            self.number = number

    def __init__(self) -> None:
        super().__init__()
        self.handled: list[int] = []
        self.all_handled = asyncio.Event()

    def on_busy_work(self, message: Work) -> None:
        self.handled.append(message.number)
        if len(self.handled) == BACKLOG:
            self.all_handled.set()


class BusyApp(App[None]):
    def compose(self) -> ComposeResult:
        yield Busy()


async def handled_before_the_loop_had_a_turn() -> tuple[int, list[int]]:
    """A backlog posted at once, and a callback made ready right after it: how many of the
    backlog's messages the widget had handled when the callback ran, and their order."""
    app = BusyApp()
    async with app.run_test():
        busy = app.query_one(Busy)
        await asyncio.sleep(0)
        for number in range(BACKLOG):
            busy.post_message(Busy.Work(number))
        seen: list[int] = []
        asyncio.get_running_loop().call_soon(lambda: seen.append(len(busy.handled)))
        await asyncio.wait_for(busy.all_handled.wait(), 10)
        return seen[0], busy.handled


@pytest.mark.asyncio
async def test_a_backlog_is_handled_in_turns_with_the_rest_of_the_loop(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(fair_turns, "SLICE", 0.0)  # every message past its slice: a turn each
    before_turn, order = await handled_before_the_loop_had_a_turn()
    assert before_turn < BACKLOG // 2
    assert order == list(range(BACKLOG))  # nothing lost or reordered by the turns


@pytest.mark.asyncio
async def test_without_the_patch_the_backlog_holds_the_loop(monkeypatch: pytest.MonkeyPatch) -> None:
    """What the patch is for, shown on the pinned Textual: the same backlog in one run."""
    assert fair_turns._original is not None
    monkeypatch.setattr(MessagePump, "_get_message", fair_turns._original)
    before_turn, _ = await handled_before_the_loop_had_a_turn()
    assert before_turn == BACKLOG
