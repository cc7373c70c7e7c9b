"""A widget's component styles are worked out on the same virtual nodes at every styling,
and still follow its state (tui/textual_patches/component_nodes.py)."""
from __future__ import annotations

import gc

from textual.app import App, ComposeResult
from textual.widgets import Input, OptionList

from tests.tui.helpers import until

HIGHLIGHT = "option-list--option-highlighted"


class Form(App[None]):
    def compose(self) -> ComposeResult:
        yield Input(id="name")
        yield OptionList("uno", "dos", "tres", id="list")


def _unreachable_after(restyle: int, app: Form) -> int:
    """What the garbage collector finds after the screen is styled ``restyle`` times."""
    gc.collect()
    for _ in range(restyle):
        app.update_styles(app.screen, animate=False)  # every node of the screen, at once
    return gc.collect()


async def test_restyling_a_screen_leaves_no_garbage_cycles() -> None:
    app = Form()
    async with app.run_test() as pilot:
        await until(pilot, lambda: app.query_one(OptionList).region.height > 0, "the form")
        found = _unreachable_after(30, app)
        # Unpatched: a cycle of ~25 objects per component class of each widget at every
        # styling (the Input's four, the OptionList's six...), thousands here.
        assert found < 200, found


async def test_component_styles_still_follow_focus() -> None:
    app = Form()
    async with app.run_test() as pilot:
        options = app.query_one(OptionList)
        await until(pilot, lambda: options.region.height > 0, "the form")
        app.query_one(Input).focus()
        await until(pilot, lambda: app.focused is app.query_one(Input), "the input focused")
        blurred = options.get_component_styles(HIGHLIGHT).background
        options.focus()
        await until(pilot, lambda: app.focused is options, "the list focused")
        await until(pilot, lambda: options.get_component_styles(HIGHLIGHT).background != blurred,
                    "the highlight's focused colour", seen=lambda: options.get_component_styles(HIGHLIGHT).background)
        focused = options.get_component_styles(HIGHLIGHT).background
        app.query_one(Input).focus()
        await until(pilot, lambda: options.get_component_styles(HIGHLIGHT).background == blurred,
                    "the highlight's blurred colour again", seen=lambda: options.get_component_styles(HIGHLIGHT).background)
        assert focused != blurred
