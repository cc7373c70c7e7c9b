"""Fixtures of the TUI tests: the Pilot set-ups many tests share (tests/tui/kit.py has the
pieces they are made of)."""
from __future__ import annotations

import contextlib
from typing import Any, AsyncIterator, Sequence

import pytest

import engine

from tests.tui.kit import (
    TABLE, TABLE_NAMES, FakeLink, Lobby, ShowTable, TrucoCalled,
    lobby_app, seated_app, table_shown, two_player_state, update_for,
)


@pytest.fixture
def link() -> FakeLink:
    """The fake link of the app a test builds (``link.sent``: what the app sent)."""
    return FakeLink()


@pytest.fixture
async def lobby() -> Lobby:
    """An English app, not started yet, that opens in the lobby; and its link."""
    return await lobby_app()  # type: ignore[no-any-return]


@pytest.fixture
def truco_called() -> TrucoCalled:
    """A 2-player hand (seed 5) where the mano has just called truco: the state, every event
    so far, and the mano's seat (the other seat answers)."""
    _, state, events = two_player_state(seed=5)
    mano = engine.view(state, 0).mano
    truco = next(a for a in engine.legal_actions(state, mano) if a.call is engine.Call.TRUCO)
    state, more = engine.apply(state, truco)
    return state, [*events, *more], mano


@pytest.fixture
def show_table(link: FakeLink) -> ShowTable:
    """``async with show_table(state, seat, events) as pilot:`` runs an app seated at ``seat``
    (None: watching) of ``table`` and shows it that state's update (``seq``, ``size``,
    ``names``, ``waiting`` as told); the app is ``pilot.app``, what it sent is in the
    ``link`` fixture."""

    @contextlib.asynccontextmanager
    async def show(state: engine.State, seat: int | None = 0, events: Sequence[engine.Event] = (), *,
                   seq: int = 3, size: tuple[int, int] = (80, 24), table: Any = TABLE,
                   names: Sequence[str] = TABLE_NAMES, waiting: Sequence[int] | None = None) -> AsyncIterator[Any]:
        app = await seated_app(link, seat, table)
        update = update_for(state, seat, seq, events, names=names, waiting=waiting)
        async with table_shown(app, link, update, size) as pilot:
            yield pilot

    return show
