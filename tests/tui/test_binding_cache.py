"""The table's active bindings are built again only when a key's answer changes (the key
bar asks on every update): asked again with the same answers they cost none of Textual's
per-binding lookups, and anything that changes what ``check_action`` answers (a new
update, the chat focused) is seen at once."""
from __future__ import annotations

from typing import Any

import engine
from tui.screens.table import TABLE_ACTIONS, TableScreen

from tests.tui.kit import FakeLink, OwnTurn, ShowTable, update_for


def enabled(screen: TableScreen) -> set[str]:
    return {entry.binding.action for entry in screen.active_bindings.values() if entry.enabled}


def count_lookups(app: Any) -> list[str]:
    """Textual's per-binding lookups (what building the bindings costs), as they happen."""
    asked: list[str] = []
    real = app._check_action_state

    def check(action: str, namespace: Any) -> bool | None:
        asked.append(action)
        return real(action, namespace)  # type: ignore[no-any-return]
    app._check_action_state = check
    return asked


async def test_same_state_asks_no_check_action_and_a_new_update_does(
        link: FakeLink, show_table: ShowTable, own_turn: OwnTurn) -> None:
    state, events, seat, view = own_turn
    async with show_table(state, seat, events) as pilot:
        screen = pilot.app.screen
        assert isinstance(screen, TableScreen)
        first = enabled(screen)
        assert "card(0)" in first  # my turn: the card keys work
        asked = count_lookups(pilot.app)
        assert enabled(screen) == first
        assert asked == []  # the same answers: the map kept, not built again
        # I play a card: the next update has the other seat to play, my card keys go.
        play = next(a for a in engine.legal_actions(state, seat) if a.call is engine.Call.PLAY)
        state, more = engine.apply(state, play)
        link.push(update_for(state, seat, 4, [*events, *more]))
        await pilot.pause(0.2)
        now = enabled(screen)
        assert asked  # other answers: built again
        assert "card(0)" not in now and now != first


async def test_the_chat_focused_turns_the_keys_off_and_back(
        show_table: ShowTable, own_turn: OwnTurn) -> None:
    state, events, seat, _view = own_turn
    async with show_table(state, seat, events) as pilot:
        screen = pilot.app.screen
        before = enabled(screen)
        await pilot.press("c")
        await pilot.pause(0.1)
        table_keys = {a for a in enabled(screen) if a.split("(", 1)[0] in TABLE_ACTIONS - {"leave"}}  # (the chat binds its own)
        assert table_keys == set() and "card(0)" in before  # typing: every table key is text
        await pilot.press("escape")
        await pilot.pause(0.1)
        assert enabled(screen) == before
