"""Shared set-ups of the TUI tests: a fake link to the hub, the lobby's first messages, a
seated app, real engine games turned into the TableUpdates the server would send.

The fixtures in tests/tui/conftest.py are built from these; test modules import from here
(or from tests/tui/helpers.py for reading the screen), never from one another.
"""
from __future__ import annotations

import asyncio
import contextlib
import random
from typing import Any, AsyncIterator, Callable, Sequence

from textual.app import App, ComposeResult
from textual.screen import Screen
from textual.widgets import Static

import engine
import protocol as p
from server.table.log_events import log_event, log_events
from server.table.table_view import table_view
from server.variants import variant_infos
from tui.app import TrucoApp
from tui.event_text import log_lines
from tui.i18n import Translator
from tui.table_model import TableModel


class FakeLink:
    """The app's byte pipe to the hub: what the app sends is decoded into ``sent``;
    ``push`` hands it messages as the hub would."""

    def __init__(self) -> None:
        self.incoming: asyncio.Queue[bytes | None] = asyncio.Queue()
        self.sent: list[p.Message] = []

    def send(self, data: bytes) -> None:
        self.sent.append(p.decode(data))

    async def receive(self) -> bytes | None:
        return await self.incoming.get()

    def close(self) -> None:
        pass

    @property
    def queued(self) -> int:
        return self.incoming.qsize()

    def push(self, *messages: p.Message) -> None:
        for m in messages:
            self.incoming.put_nowait(p.encode(m))


VARIANTS = (
    p.VariantInfo(
        name="argentino", title="Truco argentino", player_counts=(2, 4, 6),
        options=(
            p.OptionInfo(name="target", label="Points", kind="choice", default=30, choices=(30, 15)),
            p.OptionInfo(name="flor", label="Flor", kind="bool", default=True, choices=(False, True)),
        ),
    ),
    p.VariantInfo(
        name="invented", title="Invented game", player_counts=(3, 5),
        options=(p.OptionInfo(name="made_up", label="A brand new option", kind="choice",
                              default="b", choices=("a", "b", "c")),),
    ),
    p.VariantInfo(name="venezolano", title="Truco venezolano", player_counts=(2, 4), implemented=False),
)


def welcome(name: str = "ana") -> list[p.Message]:
    """What the hub sends a session whose name it accepted: the welcome and the lobby."""
    return [
        p.Welcome(name=name, guest=True, variants=VARIANTS),
        p.LobbySnapshot(players=(p.PlayerInfo(name=name),), tables=(), chat=()),
    ]


Lobby = tuple[TrucoApp, FakeLink]  # the lobby fixture: an app and its link


async def lobby_app(pilot_size=(80, 24), lang: str = "en"):  # type: ignore[no-untyped-def]
    """An app (not started yet) whose link holds the welcome: it opens in the lobby."""
    link = FakeLink()
    app = TrucoApp(link, "ana", lang)
    link.push(*welcome())
    return app, link


def lobby_with(*tables: p.TableInfo, lang: str = "en", variants: Sequence[p.VariantInfo] | None = None,
               then: Sequence[p.Message] = ()) -> Lobby:
    """An app (not started) that opens in the lobby of the real variant catalog (or of
    ``variants``) listing ``tables``; ``then`` is what the hub sends next (e.g. ``Seated``)."""
    link = FakeLink()
    app = TrucoApp(link, "ana", lang)
    link.push(p.Welcome(name="ana", guest=True, variants=tuple(variant_infos() if variants is None else variants)),
              p.LobbySnapshot(players=(p.PlayerInfo(name="ana"),), tables=tables, chat=()), *then)
    return app, link


def old_table(variant: str = "uruguayo") -> p.TableInfo:
    """A table "t0" of ``variant`` with a free seat, listed in the lobby (for ``lobby_with``)."""
    return p.TableInfo(table_id="t0", title="old", variant=variant, owner="x", seats=("ana", None), options={})


async def seated_at_old_table(pilot: Any, app: TrucoApp, link: FakeLink) -> None:
    """From the lobby (once it shows) to the screen of ``old_table``, seated."""
    from tests.tui.helpers import until
    from tui.screens.lobby import LobbyScreen
    from tui.screens.table import TableScreen

    await until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby")
    link.push(p.Seated(table_id="t0", seat=0))
    await until(pilot, lambda: isinstance(app.screen, TableScreen), "the table")


async def left_old_table(pilot: Any, app: TrucoApp, link: FakeLink) -> None:
    """Seated at ``old_table``, then back in the lobby: the game I last sat at is its game."""
    from tests.tui.helpers import until
    from tui.screens.lobby import LobbyScreen

    await seated_at_old_table(pilot, app, link)
    link.push(p.Seated())
    await until(pilot, lambda: isinstance(app.screen, LobbyScreen) and not app.model.table_id, "the lobby again")


def lobby_last_at(last: str | None, lang: str) -> tuple[TrucoApp, FakeLink]:
    """A lobby in ``lang`` listing ``old_table(last)`` (None: no table) for ``in_lobby_after``."""
    return lobby_with(*(() if last is None else (old_table(last),)), lang=lang)


async def in_lobby_after(pilot: Any, app: TrucoApp, link: FakeLink, last: str | None) -> None:
    """The lobby showing; if ``last`` is a game, after sitting at its table and leaving it."""
    from tests.tui.helpers import until
    from tui.screens.lobby import LobbyScreen

    await until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby")
    if last is not None:
        await left_old_table(pilot, app, link)


# ---------------------------------------------------------------- at a table

TABLE = p.TableInfo(table_id="t1", title="la mesa", variant="argentino", owner="ana",
                    seats=("ana", "beto"), options={"target": 30, "flor": False}, status="playing")
VENEZOLANO = p.TableInfo(table_id="t1", title="mesa", variant="venezolano", owner="ana",
                         seats=("p0", "p1"), options={}, status="playing")
TABLE_NAMES = ("ana", "beto", "carla", "dani", "eva", "fede")
# The show_table fixture (tests/tui/conftest.py): show_table(state, seat, events, ...) -> async
# context manager yielding the Pilot.
ShowTable = Callable[..., contextlib.AbstractAsyncContextManager[Any]]
TrucoCalled = tuple[engine.State, list[engine.Event], int]  # the truco_called fixture
OwnTurn = tuple[engine.State, list[engine.Event], int, engine.View]  # the own_turn fixture
PuntosOffered = tuple[engine.State, list[engine.Event], int]  # the puntos_offered fixture


def two_player_state(seed: int = 3, **options):  # type: ignore[no-untyped-def]
    """rules, state, events of a new 2-player Argentine match without flor."""
    rules = engine.get_ruleset("argentino", flor=False, **options)
    return rules, *engine.new_match(rules, 2, random.Random(seed))


def update_for(state: engine.State, seat: int | None, seq: int, events: Sequence[engine.Event] = (),
               names: Sequence[str] = TABLE_NAMES, waiting: Sequence[int] | None = None) -> p.TableUpdate:
    """The TableUpdate the server sends ``seat`` (None: a spectator) for this state, with
    ``events`` as that seat may see them."""
    view = engine.view(state, seat)
    return p.TableUpdate(
        table_id="t1", seq=seq, seat=seat,
        seats=tuple(p.SeatInfo(name=n) for n in names[: state.n]),
        view=table_view(view), events=tuple(log_events(list(events), seat)),
        waiting=tuple(view.awaiting if waiting is None else waiting),
    )


async def seated_app(link: FakeLink, seat: int | None = 0, table: p.TableInfo = TABLE) -> TrucoApp:
    """An app in the lobby that has just sat down (or, seat None, started watching) at ``table``."""
    app = TrucoApp(link, "ana", "en")
    link.push(*welcome(), p.TableUpdated(table=table), p.Seated(table_id="t1", seat=seat))
    return app


@contextlib.asynccontextmanager
async def table_shown(app: TrucoApp, link: FakeLink, update: p.TableUpdate,
                      size: tuple[int, int] = (80, 24), notifications: bool = False) -> AsyncIterator[Any]:
    """Run the app (at 80x24 unless told) and show it one table update; yields the Pilot.
    ``notifications``: draw toasts (Textual's test runs leave them out unless asked)."""
    from tui.screens.table import TableScreen

    from tests.tui.helpers import until

    async with app.run_test(size=size, notifications=notifications) as pilot:
        await until(pilot, lambda: isinstance(app.screen, TableScreen), "the table screen",
                    seen=lambda: type(app.screen).__name__)
        link.push(update)
        await until(pilot, lambda: app.table_model(update.table_id).update == update, "the update applied")
        await pilot.pause()  # (what it changed is drawn)
        yield pilot


@contextlib.asynccontextmanager
async def venezolano_shown(state: engine.State, seat: int, events: list[engine.Event]
                           ) -> AsyncIterator[tuple[TrucoApp, FakeLink, Any]]:
    """A 2-player Venezuelan table (p0, p1) shown to ``seat`` at 80x24: app, link, pilot."""
    link = FakeLink()
    app = await seated_app(link, seat, table=VENEZOLANO)
    async with table_shown(app, link, update_for(state, seat, 3, events, names=("p0", "p1"))) as pilot:
        yield app, link, pilot


# ---------------------------------------------------------------- the words, without an app

NAMES = ("Ana", "Bot 1", "Beto", "Bot 3", "Carla", "Bot 5")
EN, ES, PT = Translator("en"), Translator("es"), Translator("pt")


def model_for(state: engine.State, seat: int | None, events: Sequence[engine.Event] = ()) -> TableModel:
    """What a session at ``seat`` (None: a spectator) holds after this update (players NAMES)."""
    model = TableModel("t1")
    model.apply(update_for(state, seat, 1, events, names=NAMES))
    return model


def log_text(tr: Translator, state: engine.State, seat: int | None, events: Sequence[engine.Event]) -> list[str]:
    """The log lines ``seat`` reads for these events (as they are, not projected), as plain text."""
    model = model_for(state, seat)
    records = [log_event(e) for e in events]
    return [line.plain for line in log_lines(tr, model, records, french=state.rules.card_notation == "french")]


# ---------------------------------------------------------------- a table of any variant

def variant_info(variant: str, **options: Any) -> p.TableInfo:
    """A 2-seat table (ana, beto) of ``variant`` with these options."""
    return p.TableInfo(table_id="t1", title="mesa", variant=variant, owner="ana",
                       seats=("ana", "beto", "carla", "dani")[:2], options=options, status="playing")


async def variant_app(state: engine.State, seat: int | None, variant: str, lang: str = "en", lite: bool = False,
                      **options: Any) -> tuple[TrucoApp, FakeLink]:
    """An app seated at ``seat`` of a ``variant`` table, in ``lang`` (lite: ASCII cards), and
    its link; show it a state with ``table_shown``."""
    link = FakeLink()
    app = await seated_app(link, seat, table=variant_info(variant, **options))
    app.tr = type(app.tr)(lang)
    app.lite = lite
    return app, link


# For the Textual patch tests: a plain app, and a screen with one line of text.
class Shown(Screen[None]):
    def compose(self) -> ComposeResult:
        yield Static("hola", id="hola")


class ScreensApp(App[None]):
    pass
