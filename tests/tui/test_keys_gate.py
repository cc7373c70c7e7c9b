"""The table's key bar is asked again only when what it shows may have changed
(tui/screens/table_keys.py): an update that changes none of the keys' answers leaves it,
one that gives this seat its turn redraws it, and it always matches Textual's answers; a
state seen before is drawn from the bar kept for it, without asking Textual again."""
from __future__ import annotations

import random
from typing import Any

import engine
import protocol as p
from tests.tui.kit import TABLE_NAMES, FakeLink, seated_app, table_shown, update_for
from tests.tui.test_keys import key_bar
from tui.screens.table import TableScreen
from tui.widgets.keybar import KeyBar, binding_pairs

FOUR = p.TableInfo(table_id="t1", title="la mesa", variant="argentino", owner="ana",
                   seats=TABLE_NAMES[:4], options={"target": 30}, status="playing")


def _moves() -> list[tuple[engine.State, list[engine.Event]]]:
    """A 4-player hand, card by card, from its deal."""
    rules = engine.get_ruleset("argentino", flor=False)
    rng = random.Random(7)
    state, events = engine.new_match(rules, 4, rng)
    out = [(state, list(events))]
    while not state.needs_deal and len(out) < 9:
        plays = [a for a in engine.all_legal_actions(state) if a.card is not None]
        state, events = engine.apply(state, plays[0])
        out.append((state, list(events)))
    return out


async def test_the_key_bar_is_redrawn_only_when_its_keys_change(monkeypatch: Any) -> None:
    moves = _moves()
    seat = 2
    link = FakeLink()
    app = await seated_app(link, seat, table=FOUR)
    async with table_shown(app, link, update_for(moves[0][0], seat, 1, moves[0][1])) as pilot:
        screen = app.screen
        assert isinstance(screen, TableScreen)
        drawn: list[int] = []
        asked: list[int] = []
        show, ask = KeyBar.show, KeyBar.draw_bindings

        def counted_show(self: KeyBar, pairs: list[tuple[str, str]]) -> None:
            drawn.append(1)
            show(self, pairs)

        def counted_ask(self: KeyBar, on: Any) -> None:
            asked.append(1)
            ask(self, on)

        monkeypatch.setattr(KeyBar, "show", counted_show)
        monkeypatch.setattr(KeyBar, "draw_bindings", counted_ask)
        turns = []
        for seq, (state, events) in enumerate(moves[1:], start=2):
            before = len(drawn)
            link.push(update_for(state, seat, seq, events))
            await pilot.pause(0.1)
            mine = any(a.card is not None for a in engine.legal_actions(state, seat))  # to play
            turns.append(mine)
            # The bar says what Textual's bindings say now, whether it was redrawn or not.
            pairs = binding_pairs(screen.active_bindings, screen._binding_label)
            assert key_bar(app) == "  ".join(f"{k} {label}" for k, label in pairs)
            assert ("1-" in key_bar(app)) == mine
            drawn_now = len(drawn) > before
            if seq > 2 and mine != turns[-2]:
                assert drawn_now, f"turn {'came' if mine else 'went'} and the bar was not redrawn"
        assert True in turns and False in turns
        # Most updates (another seat's card, still not this seat's turn) leave the bar as it was.
        assert len(drawn) < len(moves) - 1
        # The turn came back at least once: that bar was drawn from what was kept.
        assert len(asked) < len(drawn)
