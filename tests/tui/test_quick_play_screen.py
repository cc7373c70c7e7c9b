"""Pilot tests of quick play's chooser (p in the lobby): the game and the table size, the
cursor on the last choice of the session, Enter asks for it, Esc asks for nothing."""
from __future__ import annotations

import pytest

import protocol as p
from tui.app import TrucoApp
from tui.screens.lobby import LobbyScreen
from tui.screens.quick_play import QuickPlayScreen
from tui.screens.table import TableScreen

from tests.tui.helpers import screen_text, until
from tests.tui.kit import FakeLink, lobby_with


def lobby(lang: str = "en", tables: tuple[p.TableInfo, ...] = ()) -> tuple[TrucoApp, FakeLink]:
    return lobby_with(*tables, lang=lang)


def asked(link: FakeLink) -> list[p.Message]:
    return [m for m in link.sent if isinstance(m, p.QuickPlay)]


@pytest.mark.parametrize("size", [(60, 20), (80, 24), (200, 50)])
async def test_quick_play_for_four_and_the_choice_is_remembered(size: tuple[int, int]) -> None:
    app, link = lobby()
    async with app.run_test(size=size) as pilot:
        await until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby")
        await pilot.press("p")
        await until(pilot, lambda: isinstance(app.screen, QuickPlayScreen) and "Uruguayan · 6 players" in screen_text(app),
                    "the chooser")
        assert isinstance(app.screen, QuickPlayScreen)
        text = screen_text(app)
        assert "Quick play: which game, and how many players?" in text
        assert "Argentine · 4 players" in text and "Uruguayan · 6 players" in text
        await pilot.press("down", "enter")  # from argentino for 2 to argentino for 4
        await until(pilot, lambda: bool(asked(link)) and isinstance(app.screen, LobbyScreen), "the quick play asked")
        assert asked(link) == [p.QuickPlay(variant="argentino", players=4)]
        assert isinstance(app.screen, LobbyScreen)
        await pilot.press("p")
        await until(pilot, lambda: isinstance(app.screen, QuickPlayScreen) and "Quick play:" in screen_text(app), "the chooser")
        await pilot.press("enter")  # the cursor is back on the last choice
        await until(pilot, lambda: len(asked(link)) >= 2, "the quick play asked again")
        assert asked(link)[-1] == p.QuickPlay(variant="argentino", players=4)
        await pilot.press("p")
        await until(pilot, lambda: isinstance(app.screen, QuickPlayScreen) and "Quick play:" in screen_text(app), "the chooser")
        await pilot.press("escape")
        await until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the chooser closed")
        await pilot.pause()  # (what it chose is handed on next)
        assert len(asked(link)) == 2 and isinstance(app.screen, LobbyScreen)


async def test_the_chooser_starts_on_the_table_i_last_sat_at_and_speaks_my_language() -> None:
    six = p.TableInfo(table_id="t0", title="seis", variant="uruguayo", owner="x",
                      seats=("ana", None, None, None, None, None), options={})
    app, link = lobby("es", (six,))
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby")
        link.push(p.Seated(table_id="t0", seat=0))
        await until(pilot, lambda: isinstance(app.screen, TableScreen), "the table")
        link.push(p.Seated())
        await until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby again")
        # Drawn again, its list of tables too, before a key is pressed on it (a 'p' pressed
        # as the lobby came back was lost once in about fifteen runs on a loaded machine).
        await until(pilot, lambda: "seis" in screen_text(app), "the lobby drawn again",
                    seen=lambda: screen_text(app))
        await pilot.press("p")
        await until(pilot, lambda: "Partida rápida" in screen_text(app), "the chooser", seen=lambda: f"{type(app.screen).__name__} focused={app.focused!r} stack={app.screen_stack}\n{screen_text(app)}")
        assert "Partida rápida: ¿qué juego y de a cuántos?" in screen_text(app)
        await pilot.press("enter")
        await until(pilot, lambda: bool(asked(link)), "the quick play asked")
        assert asked(link) == [p.QuickPlay(variant="uruguayo", players=6)]
