"""Pilot tests of señas and the partner chat at the table: the keys, the picker, the lines."""
from __future__ import annotations

import asyncio
import random
from typing import Any

import pytest
from textual import events

import engine
import protocol as p
from server.variants import variant_infos
from tui.app import TrucoApp
from tui.cards import card_text
from tui.screens.help import HelpScreen
from tui.screens.table import TableScreen
from tui.widgets.table.senas import SenasScreen

from tests.tui.helpers import keys_before_taken, picker_keys_taken, screen_text, until
from tests.tui.kit import FakeLink, in_lobby_after, lobby_last_at, lobby_with, old_table, seated_at_old_table
from tests.tui.test_table_screen import update_for

NAMES = ("ana", "beto", "carla", "dani")  # ana (0) and carla (2) are partners


def table(players: int, senas: str = "fair") -> p.TableInfo:
    return p.TableInfo(table_id="t1", title="mesa", variant="argentino", owner="ana",
                       seats=NAMES[:players], options={"senas": senas}, status="playing")


def state(players: int, senas: str = "fair"):  # type: ignore[no-untyped-def]
    rules = engine.get_ruleset("argentino", senas=senas)
    return engine.new_match(rules, players, random.Random(4))


def app_at_table(players: int = 4, seat: int | None = 0, senas: str = "fair", lang: str = "en"
                 ) -> tuple[TrucoApp, FakeLink, p.TableUpdate]:
    link = FakeLink()
    app = TrucoApp(link, "ana", lang)
    link.push(p.Welcome(name="ana", guest=True, variants=variant_infos()),
              p.LobbySnapshot(players=(p.PlayerInfo(name="ana"),), tables=(), chat=()),
              p.TableUpdated(table=table(players, senas)), p.Seated(table_id="t1", seat=seat))
    st, events = state(players, senas)
    return app, link, update_for(st, seat, 3, events, names=NAMES)


def showing(app: TrucoApp) -> bool:
    """The table is on the screen, with the update pushed (the tests push one)."""
    return isinstance(app.screen, TableScreen) and app.screen.table.update is not None




def talk_lines(app: TrucoApp) -> list[str]:
    return [line.plain for line in app.screen.query_one("#t-chat-log").lines]


def keybar(app: TrucoApp) -> str:
    return screen_text(app).splitlines()[-1] + "\n" + screen_text(app).splitlines()[-2]


@pytest.mark.parametrize("size", [(60, 20), (80, 24), (200, 50)])
async def test_s_opens_the_picker_and_its_key_sends_the_sena(size: tuple[int, int]) -> None:
    app, link, update = app_at_table()
    async with app.run_test(size=size) as pilot:
        await until(pilot, lambda: isinstance(app.screen, TableScreen), "the table")
        link.push(update)
        await until(pilot, lambda: showing(app) and (size[1] < 24 or "C Partners" in keybar(app)), "the table drawn")
        assert isinstance(app.screen, TableScreen)
        if size[1] >= 24:  # (60x20: while a call waits, the bar gives its room to the calls)
            assert "S Seña" in keybar(app) and "C Partners" in keybar(app)
        await pilot.press("S")
        await until(pilot, lambda: isinstance(app.screen, SenasScreen) and "Your cards:" in screen_text(app)
                    and "nothing good" in screen_text(app), "the seña picker drawn")
        assert isinstance(app.screen, SenasScreen)
        text = screen_text(app)
        assert "ancho de espadas" in text and "nothing good" in text
        # Each seña with its gesture at every size, under the player's own cards (the list
        # may cover the table's on a small terminal), the whole dialog on the screen.
        assert "raises the eyebrows" in text and "closes the eyes" in text
        own = " ".join(card_text(c).plain for c in update.view.own_cards)
        assert f"Your cards: {own}" in text
        region = app.screen.query_one("#senas").region
        assert region.bottom <= size[1] and region.right <= size[0] and region.y >= 0
        assert app.screen.query_one("#senas-cards").region.y >= region.y
        await pilot.press("2")
        await until(pilot, lambda: isinstance(app.screen, TableScreen) and any(isinstance(m, p.MakeSena) for m in link.sent),
                    "the seña sent, the picker closed")
        assert isinstance(app.screen, TableScreen)
        assert [m for m in link.sent if isinstance(m, p.MakeSena)] == [p.MakeSena(table_id="t1", sena="ancho_bastos")]
        await pilot.press("S")
        await until(pilot, lambda: isinstance(app.screen, SenasScreen), "the picker again")
        await pilot.press("escape")  # Esc makes none
        await until(pilot, lambda: isinstance(app.screen, TableScreen), "the picker closed")
        await pilot.pause()  # (what it chose is handed on next)
        assert isinstance(app.screen, TableScreen)
        assert len([m for m in link.sent if isinstance(m, p.MakeSena)]) == 1


async def test_senas_seen_are_told_apart_mine_a_partners_and_a_caught_one() -> None:
    app, link, update = app_at_table()
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, TableScreen), "the table")
        link.push(update,
                  p.SenaSeen(table_id="t1", seat=0, sena="tres", to=(2,), deal_no=1),
                  p.SenaSeen(table_id="t1", seat=2, sena="ancho_bastos", to=(0,), deal_no=1),
                  p.SenaSeen(table_id="t1", seat=1, sena="flor", to=(3,), deal_no=1, caught=True))
        await until(pilot, lambda: isinstance(app.screen, TableScreen) and any("You caught" in line for line in talk_lines(app)),
                    "the señas in the talk")
        assert talk_lines(app)[-3:] == [
            "You signalled to carla: a 3",
            "carla signals to you: winks (ancho de bastos)",
            "You caught a seña! beto signals to dani: puffs the cheeks (flor)",
        ]


async def test_senas_read_in_spanish() -> None:
    app, link, update = app_at_table(lang="es")
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, TableScreen), "the table")
        link.push(update, p.SenaSeen(table_id="t1", seat=1, sena="siete_oros", to=(3,), deal_no=1, caught=True))
        await until(pilot, lambda: isinstance(app.screen, TableScreen) and any("Pescaste" in line for line in talk_lines(app)),
                    "the seña in the talk")
        assert talk_lines(app)[-1] == "¡Pescaste una seña! beto le hace una seña a dani: tuerce la boca para la izquierda (siete de oro)"


async def test_capital_c_talks_to_the_partners_only_and_c_to_the_table() -> None:
    app, link, update = app_at_table()
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, TableScreen), "the table")
        link.push(update)
        await until(pilot, lambda: showing(app), "the table with its update")
        await pilot.press("C", *"tengo", "enter")
        await pilot.press("c", *"hola", "enter")
        await until(pilot, lambda: len([m for m in link.sent if isinstance(m, p.TableChat)]) >= 2, "both lines sent")
        chats = [(m.text, m.partners) for m in link.sent if isinstance(m, p.TableChat)]
        assert chats == [("tengo", True), ("hola", False)]
        link.push(p.Chat(line=p.ChatLine(sender="carla", text="vamos", ts=1, table_id="t1", partners=True)),
                  p.Chat(line=p.ChatLine(sender="beto", text="hola", ts=1, table_id="t1")))
        await until(pilot, lambda: "beto: hola" in talk_lines(app), "the lines in the talk")
        assert talk_lines(app)[-2:] == ["[to partners] carla: vamos", "beto: hola"]


@pytest.mark.parametrize("players, seat, senas", [(2, 0, "fair"), (4, None, "fair"), (4, 0, "off")])
async def test_no_sena_key_without_a_partner_for_a_spectator_or_with_senas_off(
        players: int, seat: int | None, senas: str) -> None:
    app, link, update = app_at_table(players, seat, senas)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, TableScreen), "the table")
        link.push(update)
        await until(pilot, lambda: showing(app) and "? Help" in keybar(app), "the table and its keys drawn")
        assert "S Seña" not in keybar(app)
        await pilot.press("S")
        await keys_before_taken(pilot, app)
        assert isinstance(app.screen, TableScreen)
        assert not [m for m in link.sent if isinstance(m, p.MakeSena)]
        # The partner chat needs a partner, not señas.
        assert ("C Partners" in keybar(app)) == (players == 4 and seat is not None)


async def test_the_help_lists_each_sena_with_its_gesture() -> None:
    app, link, update = app_at_table()
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, TableScreen), "the table")
        link.push(update)
        await until(pilot, lambda: showing(app), "the table with its update")
        await pilot.press("question_mark")
        await until(pilot, lambda: isinstance(app.screen, HelpScreen), "the help")
        assert isinstance(app.screen, HelpScreen)
        body = app.screen.body or ""
        assert "ancho de espadas: raises the eyebrows" in body
        assert "a false ace, of oros or copas: opens the mouth a little" in body
        assert "Opponents may catch a seña now and then." in body


# ---------------------------------------------------------------- seats in the waiting room


def waiting_app(players: int, seat: int, owner: str = "ana") -> tuple[TrucoApp, FakeLink]:
    link = FakeLink()
    app = TrucoApp(link, "ana", "en")
    seats = ("ana", None, "beto", None, None, None)[:players] if seat == 0 else ("beto", "ana", None, None)[:players]
    info = p.TableInfo(table_id="t1", title="mesa", variant="argentino", owner=owner, seats=seats,
                       options={}, status="waiting", bots=(False,) * players)
    link.push(p.Welcome(name="ana", guest=True, variants=variant_infos()),
              p.LobbySnapshot(players=(p.PlayerInfo(name="ana"),), tables=(info,), chat=()),
              p.Seated(table_id="t1", seat=seat))
    return app, link


@pytest.mark.parametrize("size", [(60, 20), (80, 24)])
async def test_the_creator_swaps_two_seats_from_the_waiting_room(size: tuple[int, int]) -> None:
    app, link = waiting_app(4, 0)
    async with app.run_test(size=size) as pilot:
        await until(pilot, lambda: "? Help" in keybar(app) and "Team 2" in screen_text(app), "the waiting room drawn")
        assert "m Seats" in keybar(app)
        assert "Team 2" in screen_text(app)  # partners sit on alternate seats
        await pilot.press("m")
        await until(pilot, lambda: "Which seat moves?" in screen_text(app), "the seats to move")
        assert "Which seat moves?" in screen_text(app)
        await pilot.press("2")  # the free seat 2...
        await until(pilot, lambda: "with which seat?" in screen_text(app), "the seats to swap with")
        assert "Swap seat 2 (free seat) with which seat?" in screen_text(app)
        await pilot.press("down", "enter")  # ...with seat 3 (beto): the cursor starts on seat 1
        await until(pilot, lambda: any(isinstance(m, p.SwapSeats) for m in link.sent), "the swap sent")
        assert [m for m in link.sent if isinstance(m, p.SwapSeats)] == [p.SwapSeats(table_id="t1", a=1, b=2)]


async def test_a_player_moves_to_a_free_seat_picked_from_the_list() -> None:
    app, link = waiting_app(4, 1, owner="beto")
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: "? Help" in keybar(app), "the waiting room drawn")
        await pilot.press("m")
        await until(pilot, lambda: "Move to which seat?" in screen_text(app) and "4. free seat" in screen_text(app),
                    "the seats to move to")
        text = screen_text(app)
        assert "Move to which seat?" in text and "2. ana (you)" in text and "4. free seat  Team 2" in text
        await pilot.press("1")  # beto's seat: not his to take, the list stays
        await picker_keys_taken(pilot, app)
        assert "Move to which seat?" in screen_text(app)
        await pilot.press("down", "enter")  # from the first free seat (3) down to 4
        await until(pilot, lambda: any(isinstance(m, p.SwapSeats) for m in link.sent) and "Move to which seat?" not in screen_text(app),
                    "the move sent, the list closed")
        await pilot.press("m")
        await until(pilot, lambda: "Move to which seat?" in screen_text(app), "the seats to move to, again")
        await pilot.press("escape")  # changed his mind: nothing sent
        await until(pilot, lambda: "Move to which seat?" not in screen_text(app), "the list closed")
        await pilot.pause()  # (what he chose is handed on next)
        assert [m for m in link.sent if isinstance(m, p.SwapSeats)] == [p.SwapSeats(table_id="t1", a=1, b=3)]


async def test_no_seats_key_at_a_two_player_table() -> None:
    app, link = waiting_app(2, 0)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: "? Help" in keybar(app), "the waiting room drawn")
        assert "m Seats" not in keybar(app)


# ---------------------------------------------------------------- quick play from the lobby


@pytest.mark.parametrize("lang, last, expected", [("en", None, "argentino"), ("pt", None, "paulista"),
                                                  ("pt", "uruguayo", "uruguayo")])
async def test_p_in_the_lobby_offers_quick_play_in_my_game(lang: str, last: str | None, expected: str) -> None:
    from tui.screens.lobby import LobbyScreen
    from tui.screens.quick_play import QuickPlayScreen

    app, link = lobby_last_at(last, lang)
    async with app.run_test(size=(60, 20)) as pilot:
        await in_lobby_after(pilot, app, link, last)  # (I sat at a table of that game, then left)
        assert isinstance(app.screen, LobbyScreen)
        await pilot.press("p")  # the chooser opens on my game, for two
        await until(pilot, lambda: isinstance(app.screen, QuickPlayScreen), "the quick play chooser")
        await pilot.press("enter")
        await until(pilot, lambda: any(isinstance(m, p.QuickPlay) for m in link.sent) and isinstance(app.screen, LobbyScreen)
                    and {"en": "p Quick", "pt": "p Rápida"}[lang] in screen_text(app),
                    "the quick play asked, the lobby drawn again")
        assert [m for m in link.sent if isinstance(m, p.QuickPlay)] == [p.QuickPlay(variant=expected, players=2)]
        assert {"en": "p Quick", "pt": "p Rápida"}[lang] in screen_text(app)


async def test_the_chat_input_says_when_calls_said_in_it_count() -> None:
    from textual.widgets import Input

    app, link = lobby_with(then=(p.TableUpdated(table=table(2)), p.Seated(table_id="t1", seat=0)))
    rules = engine.get_ruleset("argentino", reserved_words=True)
    st, events = engine.new_match(rules, 2, random.Random(4))
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, TableScreen), "the table")
        link.push(update_for(st, 0, 3, events, names=NAMES))
        await until(pilot, lambda: showing(app) and "a call said alone counts" in app.screen.query_one("#t-chat", Input).placeholder,
                    "the table with its chat input")
        assert "a call said alone counts" in app.screen.query_one("#t-chat", Input).placeholder
        await pilot.press("C")  # to the partners: nothing is called there (and 2 players have none)
        await keys_before_taken(pilot, app)
        assert "a call said alone counts" in app.screen.query_one("#t-chat", Input).placeholder


async def at_the_leave_question(pilot: Any, app: TrucoApp, link: FakeLink) -> None:
    """Seated at ``old_table``, ``l`` pressed: its question shows."""
    from tui.screens.table import ConfirmLeaveScreen

    await seated_at_old_table(pilot, app, link)
    await pilot.press("l")
    await until(pilot, lambda: isinstance(app.screen, ConfirmLeaveScreen), "the leave question")


async def test_a_lobby_key_typed_right_after_leaving_a_table_reaches_the_lobby() -> None:
    """l, s (yes, leave) and p typed together (one packet on a slow link): p is pressed
    before the server's answer brings the lobby back, and is kept for the lobby, where it
    opens quick play; Ctrl+Q is never kept."""
    from tui.screens.quick_play import QuickPlayScreen

    app, link = lobby_with(old_table(), lang="es")
    async with app.run_test(size=(60, 20)) as pilot:
        await at_the_leave_question(pilot, app, link)
        for key in "sp":  # in one packet: both queued before the first is handled
            app.post_message(events.Key(key, key))
        await until(pilot, lambda: p.LeaveTable(table_id="t0") in link.sent, "the table left")
        assert isinstance(app.screen, TableScreen) and app.held_keys.holding  # the answer not here yet
        link.push(p.Seated())
        await until(pilot, lambda: isinstance(app.screen, QuickPlayScreen), "quick play, from the p typed ahead")
        assert not app.held_keys.holding


@pytest.mark.parametrize("later", [0, 1, 3])
async def test_a_table_left_in_the_batch_that_seated_the_player_leaves_the_lobby_working(later: int) -> None:
    """Seated at a table and out of it again before its screen was mounted (both in one
    batch of frames, or a few loop turns apart): the table's screen, popped unmounted, set
    itself up anyway and its lost widgets ended the session (NoMatches); the flake of the
    quick-play test above under load. The lobby answers its keys."""
    from tui.screens.lobby import LobbyScreen
    from tui.screens.quick_play import QuickPlayScreen

    app, link = lobby_with(old_table(), lang="pt")
    async with app.run_test(size=(60, 20)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby")
        link.push(p.Seated(table_id="t0", seat=0))
        for _ in range(later):
            await asyncio.sleep(0)
        link.push(p.Seated())
        await until(pilot, lambda: isinstance(app.screen, LobbyScreen) and not app.model.table_id, "the lobby again")
        await pilot.press("p")
        await until(pilot, lambda: isinstance(app.screen, QuickPlayScreen), "the quick play chooser")
        assert app.return_code is None  # the app runs on


async def test_keys_held_after_a_refused_leave_go_back_to_the_table_at_once() -> None:
    """The server refuses the leave (the player was no longer at that table): no lobby is
    coming, so the keys typed meanwhile are the table's again, not kept for 3 s."""

    app, link = lobby_with(old_table(), lang="en")
    async with app.run_test(size=(80, 24)) as pilot:
        await at_the_leave_question(pilot, app, link)
        await pilot.press("y", "question_mark")
        assert app.held_keys.holding
        link.push(p.Error(code="not_at_table", message="you are not at that table"))
        await until(pilot, lambda: "not at that table" in app._shown[0], "the refusal said")
        assert not app.held_keys.holding  # given back as the refusal came, not seconds later
        await until(pilot, lambda: isinstance(app.screen, HelpScreen), "the held ? shown as the table's help")
