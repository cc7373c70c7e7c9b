"""Keys that must not surprise (issue 32): the lobby chat stays open until Esc, and quitting
(q in the lobby, Ctrl+Q anywhere, Ctrl+C in the host's own terminal) asks first."""
from __future__ import annotations

import pytest
from textual.widgets import DataTable, Input

import protocol as p
from tui.app import TrucoApp
from tui.i18n import Translator
from tui.screens.confirm import ConfirmScreen
from tui.screens.lobby import LobbyScreen

from tests.tui.helpers import screen_text, until
from tests.tui.kit import FakeLink, lobby_with, welcome
from tests.tui.test_keys import one_packet

SIZES = [(60, 20), (80, 24), (200, 50)]


def chat_sent(link: FakeLink) -> list[str]:
    return [m.text for m in link.sent if isinstance(m, p.SendChat)]


@pytest.mark.parametrize("size", SIZES)
async def test_lobby_chat_stays_open_line_after_line(size: tuple[int, int]) -> None:
    """"que tal" twice: two lines reach the others, its q quits nothing, no screen opens."""
    app, link = lobby_with()
    async with app.run_test(size=size) as pilot:
        await until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby")
        await pilot.press("c", *"que tal", "enter", *"que tal", "enter")
        await until(pilot, lambda: len(chat_sent(link)) == 2, "both lines sent")
        assert chat_sent(link) == ["que tal", "que tal"]
        assert app.is_running and isinstance(app.screen, LobbyScreen)
        assert isinstance(app.focused, Input) and app.focused.value == ""
        await pilot.press("escape")
        assert isinstance(app.focused, DataTable)


async def test_lobby_chat_lines_in_one_packet_stay_in_the_chat() -> None:
    """A slow link: both lines and their Enters arrive together."""
    app, link = lobby_with()
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby")
        one_packet(app, "cque tal\rque tal\r")
        await until(pilot, lambda: len(chat_sent(link)) == 2, "both lines sent")
        assert chat_sent(link) == ["que tal", "que tal"]
        assert app.is_running and isinstance(app.screen, LobbyScreen)
        assert isinstance(app.focused, Input)


@pytest.mark.parametrize("lang", ["en", "es", "pt"])
@pytest.mark.parametrize("size", SIZES)
async def test_q_in_the_lobby_asks_first(lang: str, size: tuple[int, int]) -> None:
    app, link = lobby_with(lang=lang)
    tr = Translator(lang)
    async with app.run_test(size=size) as pilot:
        await until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby")
        await pilot.press("q")
        await until(pilot, lambda: isinstance(app.screen, ConfirmScreen) and tr("form.yes") in screen_text(app), "the question")
        assert app.is_running and isinstance(app.screen, ConfirmScreen)
        text = " ".join(screen_text(app).split())
        assert " ".join(tr("quit.confirm").split()[:3]) in text
        # The yes key as the language says yes: y (yes), s (sí, sim); q again says it too.
        yes_key = {"en": "y", "es": "s", "pt": "s"}[lang]
        assert f"{yes_key} q {tr('form.yes')}" in text, text
        await pilot.press("n")
        await until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby again")
        assert app.is_running and isinstance(app.screen, LobbyScreen)
        await pilot.press("q", "q")  # q twice quits
        await until(pilot, lambda: not app.is_running, "the app ended")
        assert not app.is_running


async def test_ctrl_q_asks_first_and_twice_quits() -> None:
    app, link = lobby_with()
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby")
        await pilot.press("ctrl+q")
        await until(pilot, lambda: isinstance(app.screen, ConfirmScreen), "the question")
        assert app.is_running and isinstance(app.screen, ConfirmScreen)
        await pilot.press("escape")
        await until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby again")
        assert app.is_running and isinstance(app.screen, LobbyScreen)
        await pilot.press("ctrl+q", "ctrl+q")
        await until(pilot, lambda: not app.is_running, "the app ended")
        assert not app.is_running


@pytest.mark.parametrize("key", ["ctrl+q", "ctrl+c"])
async def test_the_host_is_asked_before_ending_the_table_for_everyone(key: str) -> None:
    link = FakeLink()
    link.push(*welcome())
    app = TrucoApp(link, "ana", "en", local=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby")
        await pilot.press(key)
        await until(pilot, lambda: isinstance(app.screen, ConfirmScreen) and "server" in " ".join(screen_text(app).split()),
                    "the question")
        assert app.is_running and isinstance(app.screen, ConfirmScreen)
        assert "server" in " ".join(screen_text(app).split())
        await pilot.press("n")
        await until(pilot, lambda: not isinstance(app.screen, ConfirmScreen), "the question closed")
        assert app.is_running
        await pilot.press(key, "y")
        await until(pilot, lambda: not app.is_running, "the app ended")
        assert not app.is_running
