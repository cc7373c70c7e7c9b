"""Reading what a running test App draws, in one place.

Textual 8.2.8 has no public way to read the lines a screen draws without a terminal
(``App.export_screenshot`` gives an SVG; ``pytest-textual-snapshot`` compares those), so
this module is the only place tests read it (through ``tui.textual_private.screen_rows``),
and the only one that records the compositor's partial updates (``keep_partial_updates``: the
private ``Compositor`` of the pinned Textual, see tui/textual_patches/).
"""
from __future__ import annotations

import time
from typing import Any, Callable

from textual._compositor import ChopsUpdate, Compositor
from textual.app import App
from textual.strip import Strip
from textual.widgets import OptionList, Select

from tui import textual_private
from tui.screens.help import HelpScreen
from tui.screens.table import TableScreen


def screen_strips(app: App[Any]) -> list[Strip]:
    """The rows of the terminal as the app's screen draws them now, top to bottom."""
    return textual_private.screen_rows(app.screen)


def screen_text(app: App[Any]) -> str:
    """What the terminal shows, as plain text, one line per row."""
    return "\n".join(strip.text for strip in screen_strips(app))


def region_text(app: App[Any], widget_id: str) -> list[str]:
    """The lines of the screen inside one widget."""
    region = app.screen.query_one(widget_id).region
    lines = screen_text(app).split("\n")
    return [line[region.x:region.right] for line in lines[region.y:region.bottom]]


def toasts(app: App[Any]) -> list[str]:
    """The notifications the screen shows now (Textual's Toast widgets), oldest first."""
    return [str(toast.render()) for toast in app.screen.query("Toast")]


def select_prompts(select: Select[Any]) -> list[str]:
    """What a drop-down offers: the prompts of the option list it opens."""
    options = select.query_one(OptionList)
    return [str(options.get_option_at_index(i).prompt) for i in range(options.option_count)]


def keep_partial_updates(monkeypatch: Any) -> list[ChopsUpdate]:
    """From now on (until ``monkeypatch`` is undone), every partial screen update the
    compositor makes is also put in the list returned (to write them to a terminal later,
    or compare them)."""
    updates: list[ChopsUpdate] = []
    textual_partial = Compositor.render_partial_update

    def partial(compositor: Compositor) -> ChopsUpdate | None:
        update = textual_partial(compositor)
        if update is not None:
            updates.append(update)
        return update

    monkeypatch.setattr(Compositor, "render_partial_update", partial)
    return updates


async def until(pilot: Any, ready: Callable[[], bool], what: str, timeout: float = 15.0,
                seen: Callable[[], str] | None = None) -> None:
    """Let the app run until ``ready()``, within a generous deadline (no fixed sleep: a loaded
    machine draws later, and a check made after a fixed pause would miss it). ``seen`` says
    what there was instead, for the failure's message."""
    deadline = time.monotonic() + timeout
    while not ready():
        assert time.monotonic() < deadline, f"never happened: {what}" + (f"; seen: {seen()}" if seen else "")
        await pilot.pause(0.01)  # time passes too: scrolling and timers move on


async def keys_before_taken(pilot: Any, app: Any) -> None:
    """The keys pressed at the table before were handled (keys are taken in order): ? opens
    the help after them, Esc closes it again."""
    await pilot.press("question_mark")
    await until(pilot, lambda: isinstance(app.screen, HelpScreen), "the help, after the keys before it",
                seen=lambda: type(app.screen).__name__)
    await pilot.press("escape")
    await until(pilot, lambda: isinstance(app.screen, TableScreen), "the table again")


async def picker_keys_taken(pilot: Any, app: Any) -> None:
    """The keys pressed in the seat list before were handled (keys are taken in order): Down
    moves its cursor after them, Up brings it back."""
    choices = app.screen.query_one("#seat-choices", OptionList)
    was = choices.highlighted
    await pilot.press("down")
    await until(pilot, lambda: choices.highlighted != was, "the cursor moved, after the keys before it")
    await pilot.press("up")
    await until(pilot, lambda: choices.highlighted == was, "the cursor back")
