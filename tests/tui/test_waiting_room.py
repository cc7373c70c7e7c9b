"""Pilot tests of the waiting room of a table with partners: who sits where and in which
team, the creator's Enter that starts the game once every seat is taken, and the seat
chosen from a list when joining from the lobby."""
from __future__ import annotations

import dataclasses

import pytest

import protocol as p
from tui.app import TrucoApp
from tui.screens.lobby import LobbyScreen
from tui.screens.seat_picker import SeatPickerScreen
from tui.screens.table import TableScreen

from tests.tui.helpers import keys_before_taken, picker_keys_taken, screen_text, toasts, until
from tests.tui.kit import FakeLink, lobby_with

SIZES = [(60, 20), (80, 24), (200, 50)]


def room(seats: tuple[str | None, ...], owner: str = "ana", owner_starts: bool = True,
         bots: tuple[bool, ...] = ()) -> p.TableInfo:
    return p.TableInfo(table_id="t1", title="los jueves", variant="argentino", owner=owner, seats=seats,
                       options={}, status="waiting", bots=bots or (False,) * len(seats),
                       owner_starts=owner_starts)


def seated_app(info: p.TableInfo, seat: int, lang: str = "en") -> tuple[TrucoApp, FakeLink]:
    return lobby_with(info, lang=lang, then=(p.Seated(table_id="t1", seat=seat),))


def said(app: TrucoApp) -> str:
    """What the screen says, its lines joined (a sentence may wrap)."""
    return " ".join(line.strip() for line in screen_text(app).splitlines())




def starts(link: FakeLink) -> list[p.Message]:
    return [m for m in link.sent if isinstance(m, p.StartTable)]


@pytest.mark.parametrize("size", SIZES)
async def test_the_creator_starts_a_full_waiting_room_with_enter(size: tuple[int, int]) -> None:
    app, link = seated_app(room(("ana", None, "beto", None)), 0)
    async with app.run_test(size=size) as pilot:
        await until(pilot, lambda: "Waiting for 2 more players" in said(app), "the waiting room")
        text = screen_text(app)
        assert "Waiting for 2 more players, or add bots (b). Then you start the game with Enter." in " ".join(
            line.strip() for line in text.splitlines())
        assert "Enter Start" not in text  # seats still free: no start yet
        await pilot.press("enter")
        await keys_before_taken(pilot, app)
        assert starts(link) == []
        link.push(p.TableUpdated(table=room(("ana", "Bot 1", "beto", "carla"), bots=(False, True, False, False))))
        await until(pilot, lambda: "press Enter to start" in said(app) and "m Seats" in screen_text(app), "the full room")
        text = screen_text(app)
        assert "Enter Start" in text and "m Seats" in text
        assert "press Enter to start" in text
        assert "2. Bot 1 (bot)  Team 2" in text and "4. carla  Team 2" in text  # who sits where
        await pilot.press("enter")
        await until(pilot, lambda: bool(starts(link)), "the start sent")
        assert starts(link) == [p.StartTable(table_id="t1")]


@pytest.mark.parametrize("size", SIZES)
async def test_the_others_see_who_starts_and_have_no_start_key(size: tuple[int, int]) -> None:
    app, link = seated_app(room(("beto", "ana", "carla", "Bot 1"), owner="beto",
                                bots=(False, False, False, True)), 1)
    async with app.run_test(size=size, notifications=True) as pilot:
        await until(pilot, lambda: "Every seat is taken" in said(app), "the full room")
        text = " ".join(line.strip() for line in screen_text(app).splitlines())
        assert "Every seat is taken. beto starts the game (and can still swap seats)." in text
        assert "Enter Start" not in text and "m Seats" not in text  # no free seat to move to
        await pilot.press("enter")
        await keys_before_taken(pilot, app)
        assert starts(link) == []
        # beto left: the table is ana's now, and so is its start
        link.push(p.TableUpdated(table=room((None, "ana", "carla", "Bot 1"), owner="ana",
                                            bots=(False, False, False, True))))
        await until(pilot, lambda: "Waiting for 1 more player" in said(app) and "m Seats" in screen_text(app) and bool(toasts(app)),
                    "the room, now ana's, and the news")
        assert "Waiting for 1 more player, or add a bot (b)" in " ".join(
            line.strip() for line in screen_text(app).splitlines())
        assert "m Seats" in screen_text(app)
        assert toasts(app) == ["beto left: the table is yours now. You add bots, move seats and start the game."]


async def test_a_table_that_starts_by_itself_shows_no_start_key() -> None:
    app, link = seated_app(room(("ana", "beto", "carla", "dani"), owner_starts=False), 0)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, TableScreen) and "? Help" in screen_text(app), "the waiting room")
        assert "Enter Start" not in screen_text(app)
        await pilot.press("enter")
        await keys_before_taken(pilot, app)
        assert starts(link) == []


@pytest.mark.parametrize("lang, words", [("es", "apretá Enter para arrancar"), ("pt", "aperte Enter para começar")])
async def test_the_start_is_said_in_each_language(lang: str, words: str) -> None:
    app, _ = seated_app(room(("ana", "beto", "carla", "dani")), 0, lang)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: words in said(app), "the waiting room")
        assert words in " ".join(line.strip() for line in screen_text(app).splitlines())


# ---------------------------------------------------------------- joining from the lobby


def lobby_app(*tables: p.TableInfo, lang: str = "en") -> tuple[TrucoApp, FakeLink]:
    return lobby_with(*tables, lang=lang)


def joins(link: FakeLink) -> list[p.Message]:
    return [m for m in link.sent if isinstance(m, p.JoinTable)]


@pytest.mark.parametrize("size", SIZES)
async def test_j_at_a_table_with_partners_chooses_the_seat_and_so_the_partner(size: tuple[int, int]) -> None:
    app, link = lobby_app(room(("beto", None, "Bot 1", None, "carla", None), owner="beto",
                               bots=(False, False, True, False, False, False)))
    async with app.run_test(size=size) as pilot:
        await until(pilot, lambda: isinstance(app.screen, LobbyScreen) and "los jueves" in screen_text(app), "the lobby and its table")
        assert isinstance(app.screen, LobbyScreen)
        await pilot.press("j")
        await until(pilot, lambda: isinstance(app.screen, SeatPickerScreen) and "5. carla  Team 1" in screen_text(app), "the seat list")
        assert isinstance(app.screen, SeatPickerScreen)
        text = screen_text(app)
        assert "Choose your seat at los jueves" in " ".join(line.strip() for line in text.splitlines())
        for row in ("1. beto  Team 1", "2. free seat  Team 2", "3. Bot 1 (bot)  Team 1", "5. carla  Team 1"):
            assert row in text, row
        await pilot.press("3")  # the bot's seat: not free, the list stays
        await picker_keys_taken(pilot, app)
        assert isinstance(app.screen, SeatPickerScreen) and joins(link) == []
        await pilot.press("down", "enter")  # from seat 2 to seat 4: beto's, carla's and the bot's partner
        await until(pilot, lambda: bool(joins(link)), "the join sent")
        assert joins(link) == [p.JoinTable(table_id="t1", seat=3)]


async def test_the_seat_list_follows_the_table_while_it_is_open() -> None:
    """Someone sits (or a bot is added) while the list is open: the list shows them and the
    seat is no longer offered; the last free seat taken, the list closes and says why."""
    table = room(("beto", None, None, None), owner="beto")
    app, link = lobby_app(table)
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby")
        await pilot.press("j")
        await until(pilot, lambda: isinstance(app.screen, SeatPickerScreen), "the seat list")
        link.push(p.TableUpdated(table=dataclasses.replace(table, seats=("beto", "Bot 1", None, None),
                                                           bots=(False, True, False, False))))
        await until(pilot, lambda: "2. Bot 1 (bot)  Team 2" in screen_text(app), "the bot in the list")
        await pilot.press("2")  # taken meanwhile: not offered any more
        await pilot.press("4")
        await until(pilot, lambda: joins(link) == [p.JoinTable(table_id="t1", seat=3)], "seat 4 chosen")
        await pilot.press("j")
        await until(pilot, lambda: isinstance(app.screen, SeatPickerScreen), "the seat list again")
        link.push(p.TableUpdated(table=dataclasses.replace(table, seats=("beto", "Bot 1", "carla", "dani"),
                                                           status="full")))
        await until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the list closed")
        await until(pilot, lambda: any("seats at los jueves were taken" in " ".join(t.split()) for t in toasts(app)),
                    "the reason", seen=lambda: str(toasts(app)))


async def test_j_sits_at_once_where_there_is_nothing_to_choose() -> None:
    two = p.TableInfo(table_id="t2", title="a dos", variant="argentino", owner="beto", seats=("beto", None),
                      options={}, status="waiting")
    app, link = lobby_app(two)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, LobbyScreen) and "a dos" in screen_text(app), "the lobby and its table")
        await pilot.press("j")
        await until(pilot, lambda: bool(joins(link)), "the join sent")
        assert joins(link) == [p.JoinTable(table_id="t2")] and isinstance(app.screen, LobbyScreen)
    app, link = lobby_app(room(("beto", "Bot 1", "carla", None), owner="beto"))  # one seat left
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, LobbyScreen) and "los jueves" in screen_text(app), "the lobby and its table")
        await pilot.press("j")
        await until(pilot, lambda: bool(joins(link)), "the join sent")
        assert joins(link) == [p.JoinTable(table_id="t1")] and isinstance(app.screen, LobbyScreen)


async def test_esc_in_the_seat_list_joins_nothing() -> None:
    app, link = lobby_app(room(("beto", None, None, None), owner="beto"))
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, LobbyScreen) and "los jueves" in screen_text(app), "the lobby and its table")
        await pilot.press("j")
        await until(pilot, lambda: isinstance(app.screen, SeatPickerScreen), "the seat list")
        await pilot.press("escape")
        await until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the list closed")
        await pilot.pause()  # (what was chosen is handed on next)
        assert joins(link) == [] and isinstance(app.screen, LobbyScreen)


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("lang", ["en", "es", "pt"])
async def test_every_seat_of_six_with_long_names_is_whole_in_the_list(lang: str, size: tuple[int, int]) -> None:
    from tests.tui.table_states import LONG_NAMES
    from tui.i18n import Translator

    tr = Translator(lang)
    names = (LONG_NAMES[1], None, LONG_NAMES[2], None, "Bot 1", None)
    info = room(names, owner=LONG_NAMES[1], bots=(False, False, False, False, True, False))
    info = dataclasses.replace(info, bot_levels=("", "", "", "", "hard", ""))
    app, link = lobby_app(info, lang=lang)
    async with app.run_test(size=size) as pilot:
        await until(pilot, lambda: isinstance(app.screen, LobbyScreen) and "los jueves" in screen_text(app), "the lobby and its table")
        await pilot.press("j")
        await until(pilot, lambda: isinstance(app.screen, SeatPickerScreen)
                    and tr("table.bot_with_level", level=tr("table.bot_hard")) in screen_text(app), "the seat list")
        assert isinstance(app.screen, SeatPickerScreen)
        text = screen_text(app)
        for seat, name in enumerate(names):
            who = name or tr("table.free_seat")
            team = tr("table.team_n", n=seat % 2 + 1)
            row = next((line for line in text.splitlines() if f"{seat + 1}. {who}" in line), "")
            assert team in row, (seat, text)
        assert tr("table.bot_with_level", level=tr("table.bot_hard")) in text


@pytest.mark.parametrize("seats", [2, 4, 6])
@pytest.mark.parametrize("size", SIZES)
async def test_the_waiting_room_opens_with_the_tables_title_and_no_blank_row(size: tuple[int, int],
                                                                            seats: int) -> None:
    # (at 60x20 a table of four or more hides its title once the game is on, for the seats'
    # rows; before the deal there is no score, and the title has that row)
    app, _ = seated_app(room(("ana",) + (None,) * (seats - 1)), 0)
    async with app.run_test(size=size) as pilot:
        await until(pilot, lambda: f"Waiting for {seats - 1} more player" in said(app), "the waiting room")
        first, second = screen_text(app).splitlines()[:2]
        assert "truco-ssh" in first and "los jueves" in first, first
        assert "1. ana" in second, second
