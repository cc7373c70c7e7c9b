"""A panel line drawn by Rich (tui/widgets/panels.py ``rich_line_strip``) is what Textual's
own drawing of it gives: the same cells, the same colours and attributes once written to a
terminal, each piece marked with its column; a line too wide, selected or with a base
style is Textual's."""
from __future__ import annotations

from typing import Any

import pytest
from rich.segment import Segment
from rich.text import Text
from textual.app import App, ComposeResult
from textual.strip import Strip
from textual.visual import Visual, visualize

from tui.widgets.panels import Panel, rich_line_strip


class _OnePanel(App[None]):
    CSS = "#p { color: $text; background: $surface; height: 3; }"

    def compose(self) -> ComposeResult:
        yield Panel(id="p")


def _lines() -> list[Text]:
    seat = Text("▶ ana * Us   ■      ")
    seat.append("Falta envido", style="bold yellow")
    keys = Text()
    keys.append("1-3", style="reverse bold")
    keys.append(" Card  ")
    keys.append("c", style="reverse bold")
    keys.append(" Chat")
    card = Text("│7   O│ ")
    card.stylize("bold red on white")
    dim = Text("Next hand coming…")
    dim.stylize("dim italic", 0, 9)
    mixed = Text("Us +2 (truco) · ")
    mixed.stylize("green")
    mixed.append("Them +1 (envido)", style="underline magenta")
    return [seat, keys, card, dim, mixed, Text(""), Text("ñandú ♠ 😀 wide")]


def _written(strip: Strip) -> list[tuple[str, str]]:
    """Each cell's character with the escape codes a truecolor terminal gets for it."""
    cells = []
    for segment in strip:
        for char in segment.text:
            style = segment.style
            cells.append((char, style.render("x", color_system="truecolor") if style else "x"))
    return cells


def _columns(strip: Strip) -> list[int]:
    out = []
    for segment in strip:
        meta = segment.style.meta if segment.style else {}
        if segment.text.strip():
            out.append(meta["offset"][0])
    return out


@pytest.mark.parametrize("index", range(7))
async def test_a_line_drawn_by_rich_is_what_textual_draws(index: int) -> None:
    app = _OnePanel()
    async with app.run_test(size=(60, 10)):
        panel = app.query_one(Panel)
        style = panel.visual_style
        line = _lines()[index]
        line.no_wrap = True
        textual = Visual.to_strips(panel, visualize(panel, line), 40, 1, style, pad=True)[0]
        rich = rich_line_strip(line, 40, style.rich_style, app.console)
        assert rich.cell_length == textual.cell_length == 40
        assert _written(rich) == _written(textual)
        assert _columns(rich) == _columns(textual)  # where a mouse selection would start


async def test_a_line_too_wide_or_with_a_base_style_is_drawn_by_textual(monkeypatch: Any) -> None:
    app = _OnePanel()
    async with app.run_test(size=(60, 10)) as pilot:
        panel = app.query_one(Panel)
        drawn: list[Text] = []
        monkeypatch.setattr("tui.widgets.panels.rich_line_strip",
                            lambda line, *a: drawn.append(line) or Strip([Segment("?")], 1))
        panel._show_split([Text("x" * 100, overflow="ellipsis"), Text("short"), Text("based", style="red")], Text("three lines"))
        await pilot.pause(0.1)
        assert [t.plain for t in drawn] == ["short"]  # the others went to Textual
        assert panel.render_line(0).cell_length == 60  # cut to the panel
        assert panel.render_line(2).text.startswith("based")


@pytest.mark.parametrize("size", [(60, 20), (80, 24), (200, 50)])
async def test_each_panel_draws_its_lines_to_its_content_size(size: tuple[int, int]) -> None:
    """Panels draw and lay out their lines at their outer size less their borders and
    padding: for every panel shown on the table screen (a hidden one draws nothing), that
    is Textual's content size."""
    import random

    import engine
    from tests.tui.kit import FakeLink, seated_app, table_shown, update_for

    state, events = engine.new_match(engine.get_ruleset("argentino", flor=False), 2, random.Random(3))
    link = FakeLink()
    app = await seated_app(link, 0)
    async with table_shown(app, link, update_for(state, 0, 1, list(events)), size=size) as pilot:
        await pilot.pause(0.2)
        panels = [panel for panel in app.screen.query(Panel) if panel.region]  # not the hidden ones
        assert len(panels) > 5
        for panel in panels:
            assert panel._inner_size() == panel.size, panel.id
