"""The cursor moves of a partial update come from a table (tui/textual_patches/cursor_moves.py):
every update of a game, cropped spans and all, is written exactly as Textual writes it."""
from __future__ import annotations

import random
from typing import Any

from rich.control import Control
from textual._compositor import ChopsUpdate

import engine
from tests.tui.helpers import keep_partial_updates
from tests.tui.kit import FakeLink, seated_app, table_shown, update_for
from tui.textual_patches import cursor_moves


def test_a_move_is_richs() -> None:
    for x, y in ((0, 0), (79, 23), (5, 199), (499, 3)):
        assert cursor_moves.move_to(x, y) == Control.move_to(x, y).segment.text


async def test_every_update_of_a_game_is_written_as_textual_writes_it(monkeypatch: Any) -> None:
    assert ChopsUpdate.render_segments is cursor_moves.render_segments
    rng = random.Random(8)
    state, events = engine.new_match(engine.get_ruleset("argentino", flor=True), 2, rng)
    link = FakeLink()
    app = await seated_app(link, 0)
    updates = keep_partial_updates(monkeypatch)
    async with table_shown(app, link, update_for(state, 0, 3, events), size=(80, 24)) as pilot:
        for seq in range(4, 30):
            actions = engine.all_legal_actions(state)
            if not actions:
                break
            state, events = engine.advance(state, rng.choice(actions), rng)
            link.push(update_for(state, 0, seq, events))
            await pilot.pause(0.05)
        await pilot.resize_terminal(61, 20)  # other widths: spans that cut across strips
        await pilot.pause(0.1)
        app.notify("una nota")
        await pilot.pause(0.1)
    assert len(updates) > 10
    for update in updates:
        assert update.render_segments(app.console) == cursor_moves.TEXTUAL_RENDER_SEGMENTS(update, app.console)
