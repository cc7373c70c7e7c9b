"""Choosing a bot's level when adding it (issue 17), and the level shown next to its name."""
from __future__ import annotations

import dataclasses

import pytest

import protocol as p
from tui.app import TrucoApp
from tui.screens.table import BotLevelScreen, TableScreen

from tests.tui.helpers import screen_text
from tests.tui.test_screens import FakeLink, welcome
from tests.tui.test_table_screen import two_player_state, update_for

WAITING = p.TableInfo(table_id="t1", title="la mesa", variant="argentino", owner="ana",
                      seats=("ana", None, None, None), options={"target": 30}, status="waiting")


async def _waiting_room(link: FakeLink, lang: str, size: tuple[int, int]):  # type: ignore[no-untyped-def]
    app = TrucoApp(link, "ana", lang)
    link.push(*welcome(), p.TableUpdated(table=WAITING), p.Seated(table_id="t1", seat=0))
    return app


@pytest.mark.parametrize("size", [(60, 20), (80, 24), (200, 50)])
async def test_the_owner_picks_a_level_and_sees_it_beside_the_bot(size: tuple[int, int]) -> None:
    link = FakeLink()
    app = await _waiting_room(link, "en", size)
    async with app.run_test(size=size) as pilot:
        await pilot.pause(0.2)
        assert isinstance(app.screen, TableScreen)
        await pilot.press("b")
        await pilot.pause(0.1)
        assert isinstance(app.screen, BotLevelScreen)
        text = screen_text(app)
        for word in ("1 easy", "2 normal", "3 hard", "thinks the whole hand through"):
            assert word in text, (word, text)
        await pilot.press("3")
        await pilot.pause(0.1)
        assert isinstance(app.screen, TableScreen)
        assert link.sent[-1] == p.AddBot(table_id="t1", level="hard")
        # Escape adds nothing.
        sent = len(link.sent)
        await pilot.press("b")
        await pilot.pause(0.1)
        await pilot.press("escape")
        await pilot.pause(0.1)
        assert isinstance(app.screen, TableScreen) and len(link.sent) == sent
        link.push(p.TableUpdated(table=dataclasses.replace(
            WAITING, seats=("ana", "Bot 1", "Bot 2", None), bots=(False, True, True, False),
            bot_levels=("", "hard", "easy", ""))))
        await pilot.pause(0.2)
        text = screen_text(app)
        assert "Bot 1 (bot, hard)" in text and "Bot 2 (bot, easy)" in text


async def test_in_spanish_the_levels_read_facil_normal_dificil_and_the_game_shows_them() -> None:
    link = FakeLink()
    app = await _waiting_room(link, "es", (80, 24))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause(0.2)
        await pilot.press("b")
        await pilot.pause(0.1)
        text = screen_text(app)
        assert "1 fácil" in text and "3 difícil" in text
        await pilot.press("1")
        await pilot.pause(0.1)
        assert link.sent[-1] == p.AddBot(table_id="t1", level="easy")
        # The game starts: the seat row names the bot's level.
        _, state, events = two_player_state()
        update = update_for(state, 0, 3, events, names=("ana", "Bot 1"))
        update = dataclasses.replace(update, seats=(
            p.SeatInfo(name="ana"), p.SeatInfo(name="Bot 1", bot=True, level="hard")))
        link.push(update)
        await pilot.pause(0.3)
        assert "bot, difícil" in screen_text(app)
