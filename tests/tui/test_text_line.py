"""A TextLine repaints only for a new text, and asks for a layout only where its height can
follow the text (tui/widgets/text_line.py)."""
from __future__ import annotations

from typing import Any

import pytest
from rich.text import Text
from textual.app import App, ComposeResult
from textual.widget import Widget

from tui.widgets.text_line import TextLine


class Lines(App[None]):
    CSS = "#fixed { height: 1; } #grows { height: auto; }"

    def compose(self) -> ComposeResult:
        yield TextLine(id="fixed")
        yield TextLine(id="grows")


@pytest.fixture
def refreshes(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str | None, bool]]:
    """Every refresh of a TextLine: its id and whether it asked for a layout."""
    seen: list[tuple[str | None, bool]] = []
    original = Widget.refresh

    def spy(self: Widget, *regions: Any, layout: bool = False, **kwargs: Any) -> Widget:
        if isinstance(self, TextLine):
            seen.append((self.id, layout))
        return original(self, *regions, layout=layout, **kwargs)

    monkeypatch.setattr(Widget, "refresh", spy)
    return seen


async def test_the_same_text_again_costs_nothing(refreshes: list[tuple[str | None, bool]]) -> None:
    app = Lines()
    async with app.run_test() as pilot:
        line = app.query_one("#fixed", TextLine)
        line.show(Text("hola", style="bold"))
        await pilot.pause()
        refreshes.clear()
        line.show(Text("hola", style="bold"))
        assert refreshes == []
        line.show(Text("hola"))  # the same letters in another style are a new text
        assert refreshes == [("fixed", False)]
        await pilot.pause()
        assert app.screen.get_widget_at(0, 0)[0] is line
        assert "hola" in str(line.render())


async def test_a_fixed_line_is_repainted_and_a_growing_one_laid_out(refreshes: list[tuple[str | None, bool]]) -> None:
    app = Lines()
    async with app.run_test(size=(20, 10)) as pilot:
        app.query_one("#fixed", TextLine).show(Text("uno"))
        grows = app.query_one("#grows", TextLine)
        grows.show(Text("una línea que no cabe en veinte columnas"))
        assert refreshes == [("fixed", False), ("grows", True)]
        await pilot.pause()
        assert grows.size.height > 1  # its height followed its text
