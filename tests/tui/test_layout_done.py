"""A full layout of a screen takes care of the layout it had asked for; a request made while
it runs still gets its own (tui/textual_patches/layout_done.py)."""
from __future__ import annotations

from typing import Any

import pytest
from textual.app import App
from textual.geometry import Size
from textual.widgets import Static


class Plain(App[None]):
    pass


async def test_a_full_layout_fulfils_the_request_made_before_it() -> None:
    app = Plain()
    async with app.run_test(size=(40, 10)) as pilot:
        await pilot.pause()
        screen = app.screen
        screen.refresh(layout=True)
        assert screen._layout_required
        screen._refresh_layout(Size(40, 10))
        assert not screen._layout_required  # no second layout on the next timer tick


async def test_a_request_made_during_the_layout_is_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    app = Plain()
    async with app.run_test(size=(40, 10)) as pilot:
        await pilot.pause()
        screen = app.screen
        original = screen._compositor.reflow

        def reflow(*args: Any) -> Any:
            result = original(*args)
            screen.refresh(layout=True)  # as a widget told its new size may ask
            return result

        monkeypatch.setattr(screen._compositor, "reflow", reflow)
        screen._refresh_layout(Size(40, 10))
        assert screen._layout_required
        monkeypatch.undo()
        await screen.mount(Static("hola", id="hola"))
        await pilot.pause()
        assert screen.query_one("#hola").region.width == 40


async def test_a_widget_request_older_than_the_layout_is_dropped_and_a_newer_one_kept() -> None:
    from textual import messages

    app = Plain()
    async with app.run_test(size=(40, 10)) as pilot:
        screen = app.screen
        await screen.mount(Static("hola", id="hola"))
        await pilot.pause()
        hola = screen.query_one("#hola")
        older = messages.Layout(hola)  # asked for before the layout below
        screen._refresh_layout(Size(40, 10))
        later: list[Any] = []
        full = screen._refresh_layout

        def counted(size: Size | None = None, scroll: bool = False) -> None:
            later.append(size)
            full(size, scroll)

        screen._refresh_layout = counted  # type: ignore[method-assign]
        screen.post_message(older)
        await pilot.pause()
        await pilot.pause()
        assert later == []  # that layout saw it
        screen.post_message(messages.Layout(hola))
        await pilot.pause()
        await pilot.pause()
        assert len(later) == 1
