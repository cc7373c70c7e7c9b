"""A partial screen update renders only the rows it writes (tui/textual_patches/partial_rows.py),
and the terminal, fed the partial updates, shows what a full render of the screen shows."""
from __future__ import annotations

import random
from typing import Any, Callable

import pyte
from rich.text import Text
from textual._compositor import Compositor
from textual.widget import Widget

import engine
from tests.tui.helpers import keep_partial_updates, screen_text
from tests.tui.kit import FakeLink, seated_app, table_shown, update_for
from tui.textual_patches import partial_rows
from tui.widgets.panels import Panel

COLS, ROWS = 80, 24


def _spy_on_rendering(monkeypatch: Any, asked: Callable[[Widget], None]) -> None:
    """Call ``asked`` with each widget the compositor asks for lines (panels have their own
    ``render_lines``: their styled rows are shared between sessions)."""
    for cls in (Widget, Panel):
        def render_lines(widget: Widget, crop: Any, original: Any = cls.render_lines) -> Any:
            asked(widget)
            return original(widget, crop)

        monkeypatch.setattr(cls, "render_lines", render_lines)


def _terminal_showing(text: str) -> tuple[pyte.Screen, pyte.Stream]:
    screen = pyte.Screen(COLS, ROWS)
    stream = pyte.Stream(screen)
    for y, row in enumerate(text.splitlines()):
        stream.feed(f"\x1b[{y + 1};1H{row}")
    return screen, stream


async def test_partial_updates_draw_what_a_full_render_shows(monkeypatch: Any) -> None:
    assert Compositor._render_chops is partial_rows._render_chops
    rules = engine.get_ruleset("argentino", flor=False)
    rng = random.Random(4)
    state, events = engine.new_match(rules, 2, rng)
    link = FakeLink()
    app = await seated_app(link, 0)
    asked: set[Widget] = set()
    async with table_shown(app, link, update_for(state, 0, 3, events), size=(COLS, ROWS)) as pilot:
        await pilot.pause(0.2)
        terminal, stream = _terminal_showing(screen_text(app))
        updates = keep_partial_updates(monkeypatch)
        _spy_on_rendering(monkeypatch, asked.add)
        for seq in range(4, 16):  # a dozen moves: cards, calls, answers, a new hand
            actions = engine.all_legal_actions(state)
            plays = [a for a in actions if a.card is not None]
            state, events = engine.advance(state, rng.choice(plays or actions), rng)
            link.push(update_for(state, 0, seq, events))
            await pilot.pause(0.1)
        monkeypatch.undo()
        assert updates, "no partial update was drawn"
        for update in updates:
            stream.feed(update.render_segments(app.console).replace("\n", ""))
        assert "\n".join(row.rstrip() for row in terminal.display) == \
            "\n".join(row.rstrip() for row in screen_text(app).splitlines())
        # Widgets with no row written were not rendered (Textual asked every one on screen).
        shown = set(app.screen._compositor.visible_widgets)
        assert asked < shown, sorted(type(w).__name__ for w in shown - asked)


async def test_a_pane_is_not_rendered_for_the_changes_of_the_pane_beside_it(monkeypatch: Any) -> None:
    """A line in the log rewrites the log's rows; the chat pane beside it on those rows, the
    containers behind them and the screen are not asked for them (nothing of theirs is written)."""
    rules = engine.get_ruleset("argentino", flor=False)
    state, events = engine.new_match(rules, 2, random.Random(4))
    link = FakeLink()
    app = await seated_app(link, 0)
    asked: list[str] = []
    async with table_shown(app, link, update_for(state, 0, 3, events), size=(COLS, ROWS)) as pilot:
        await pilot.pause(0.2)
        terminal, stream = _terminal_showing(screen_text(app))
        _spy_on_rendering(monkeypatch, lambda widget: asked.append(widget.id or type(widget).__name__))
        updates = keep_partial_updates(monkeypatch)
        chat = app.screen.query_one("#t-chat-log")
        assert chat.display and chat.region.width  # side by side with the log at 80x24
        app.screen.query_one("#t-log").write(Text("una línea más en el registro"))
        await pilot.pause(0.2)
        monkeypatch.undo()
        assert "t-log" in asked
        assert not {"t-chat-log", "t-talk", "TableScreen"} & set(asked), asked
        for update in updates:
            stream.feed(update.render_segments(app.console).replace("\n", ""))
        assert "\n".join(row.rstrip() for row in terminal.display) == \
            "\n".join(row.rstrip() for row in screen_text(app).splitlines())
