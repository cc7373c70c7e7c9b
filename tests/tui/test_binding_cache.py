"""The table's active bindings are worked out once per state (the key bar asks on every
update): asked again in the same state they cost no ``check_action``, and anything that
changes what ``check_action`` answers (a new update, the chat focused) is seen at once."""
from __future__ import annotations

from typing import Any

import engine
from tui.screens.table import TABLE_ACTIONS, TableScreen

from tests.tui.kit import FakeLink, OwnTurn, ShowTable, update_for


def enabled(screen: TableScreen) -> set[str]:
    return {entry.binding.action for entry in screen.active_bindings.values() if entry.enabled}


def count_checks(screen: Any) -> list[str]:
    asked: list[str] = []
    real = screen.check_action

    def check(action: str, parameters: tuple[object, ...]) -> bool | None:
        asked.append(action)
        return real(action, parameters)  # type: ignore[no-any-return]
    screen.check_action = check
    return asked


async def test_same_state_asks_no_check_action_and_a_new_update_does(
        link: FakeLink, show_table: ShowTable, own_turn: OwnTurn) -> None:
    state, events, seat, view = own_turn
    async with show_table(state, seat, events) as pilot:
        screen = pilot.app.screen
        assert isinstance(screen, TableScreen)
        first = enabled(screen)
        assert "card(0)" in first  # my turn: the card keys work
        asked = count_checks(screen)
        assert enabled(screen) == first
        assert asked == []  # the same state: the answer kept
        # I play a card: the next update has the other seat to play, my card keys go.
        play = next(a for a in engine.legal_actions(state, seat) if a.call is engine.Call.PLAY)
        state, more = engine.apply(state, play)
        link.push(update_for(state, seat, 4, [*events, *more]))
        await pilot.pause(0.2)
        now = enabled(screen)
        assert asked  # a new update: asked again
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
