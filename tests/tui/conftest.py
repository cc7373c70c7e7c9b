"""Fixtures of the TUI tests: the Pilot set-ups many tests share (tests/tui/kit.py has the
pieces they are made of)."""
from __future__ import annotations

import contextlib
import random
from typing import Any, AsyncIterator, Sequence

import pytest
from textual.dom import DOMNode
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets._toast import ToastRack

import engine

from tests.tui.kit import (
    TABLE, TABLE_NAMES, FakeLink, Lobby, OwnTurn, PuntosOffered, ShowTable, TrucoCalled,
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
def own_turn() -> OwnTurn:
    """A new 2-player Argentine match without flor (seed 3): the state, its events, the seat
    that plays next and that seat's engine view."""
    _, state, events = two_player_state()
    seat = engine.view(state, 0).turn
    assert seat is not None
    return state, events, seat, engine.view(state, seat)


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
def puntos_offered() -> PuntosOffered:
    """A 2-player Venezuelan game (seed 4) played by the bots until a seat may call "envido N
    puntos" (a call that asks for a number): the state, its events and that seat."""
    rules = engine.get_ruleset("venezolano")
    rng = random.Random(4)
    state, events = engine.new_match(rules, 2, rng)
    for _ in range(200):
        seat = next((s for s in range(2) if any(a.call.value == "envido_puntos"
                                                for a in engine.legal_actions(state, s))), None)
        if seat is not None:
            return state, events, seat
        mover = next(s for s in range(2) if engine.legal_actions(state, s))
        action = (engine.choose_action(engine.view(state, mover), rules, rng)
                  or engine.legal_actions(state, mover)[0])
        state, more = engine.advance(state, action, rng)
        events = events + more
    raise AssertionError("no seat could call envido N puntos in 200 moves")


@pytest.fixture
def show_table(link: FakeLink) -> ShowTable:
    """``async with show_table(state, seat, events) as pilot:`` runs an app seated at ``seat``
    (None: watching) of ``table`` and shows it that state's update (``seq``, ``size``,
    ``names``, ``waiting`` as told); the app is ``pilot.app``, what it sent is in the
    ``link`` fixture."""

    @contextlib.asynccontextmanager
    async def show(state: engine.State, seat: int | None = 0, events: Sequence[engine.Event] = (), *,
                   seq: int = 3, size: tuple[int, int] = (80, 24), table: Any = TABLE,
                   names: Sequence[str] = TABLE_NAMES, waiting: Sequence[int] | None = None,
                   ) -> AsyncIterator[Any]:
        app = await seated_app(link, seat, table)
        update = update_for(state, seat, seq, events, names=names, waiting=waiting)
        async with table_shown(app, link, update, size) as pilot:
            yield pilot

    return show


@pytest.fixture
def restyled(monkeypatch: pytest.MonkeyPatch) -> list[DOMNode]:
    """Every screen whose styles are applied again as a whole (the Textual patch tests)."""
    seen: list[DOMNode] = []
    original = DOMNode.update_node_styles

    def spy(self: DOMNode, *args: Any, **kwargs: Any) -> None:
        if isinstance(self, Screen):
            seen.append(self)
        original(self, *args, **kwargs)

    monkeypatch.setattr(DOMNode, "update_node_styles", spy)
    return seen


def layout_requests(monkeypatch: pytest.MonkeyPatch, kind: type[Widget]) -> list[Widget]:
    """Every widget of ``kind`` that asks for a layout (``refresh(layout=True)``) from now on."""
    seen: list[Widget] = []
    original = Widget.refresh

    def spy(self: Widget, *regions: Any, layout: bool = False, **kwargs: Any) -> Widget:
        if layout and isinstance(self, kind):
            seen.append(self)
        return original(self, *regions, layout=layout, **kwargs)

    monkeypatch.setattr(Widget, "refresh", spy)
    return seen


@pytest.fixture
def screens_asking(monkeypatch: pytest.MonkeyPatch) -> list[Widget]:
    """Every screen that asks for a layout of itself."""
    return layout_requests(monkeypatch, Screen)


@pytest.fixture
def racks_laid_out(monkeypatch: pytest.MonkeyPatch) -> list[Widget]:
    """Every notification rack that asks for a layout."""
    return layout_requests(monkeypatch, ToastRack)
