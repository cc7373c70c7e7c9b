"""WrapPanel (the status and bets lines): the same text again is not wrapped again to count
its rows; a new text is, and after a resize the shown text takes the rows its new width needs."""
from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.app import App, ComposeResult

from tui.widgets.panels import WrapPanel

LONG = "Truco, retruco y vale cuatro: la mano vale cuatro piedras y espera respuesta"


class OneLine(App[None]):
    CSS = "WrapPanel { height: auto; }"

    def compose(self) -> ComposeResult:
        yield WrapPanel(id="line")


async def test_the_same_text_is_not_wrapped_again_and_a_resize_rewraps(monkeypatch: Any) -> None:
    wrapped: list[str] = []
    rich_wrap = Text.wrap

    def counted(text: Text, *args: Any, **kwargs: Any) -> Any:
        wrapped.append(text.plain)
        return rich_wrap(text, *args, **kwargs)

    monkeypatch.setattr(Text, "wrap", counted)
    app = OneLine()
    async with app.run_test(size=(100, 10)) as pilot:
        line = app.query_one(WrapPanel)
        line.show(Text(LONG))
        await pilot.pause()
        assert line.size.height == 1
        before = len(wrapped)
        line.show(Text(LONG))  # an equal text, a new object: as shown
        assert len(wrapped) == before
        line.show(Text(LONG + "."))  # changed: wrapped to count its rows
        assert len(wrapped) > before
        await pilot.resize_terminal(40, 10)
        await pilot.pause()
        await pilot.pause()
        assert line.size.height == 2  # the same text, at the new width
