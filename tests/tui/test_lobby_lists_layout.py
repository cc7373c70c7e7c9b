"""Someone arriving or leaving redraws the lobby's list of players without a layout of the screen
(tui/widgets/fixed_lists.py): every lobby on the server redraws then, and a layout each was
most of an arrival's cost with a full lobby. A list whose scrollbar must appear still gets
the layout that shows it."""
from __future__ import annotations

from typing import Any

import pytest
from textual.screen import Screen

import protocol as p
from tests.tui.helpers import screen_text, until
from tests.tui.kit import FakeLink
from tui.app import TrucoApp
from tui.screens import lobby as lobby_screen
from tui.lobby_pace import players_delay, spread
from tui.screens.lobby import LobbyScreen
from textual.widgets import DataTable

from tui.widgets.fixed_lists import PlayerList

NAMES = [f"jugador{n:02d}" for n in range(30)]


def table(n: int) -> p.TableInfo:
    return p.TableInfo(table_id=f"t{n}", title=f"mesa {n}", variant="argentino", owner="ana",
                       seats=("ana", None), options={"target": 15})


def lobby(players: list[str], tables: int) -> tuple[TrucoApp, FakeLink]:
    link = FakeLink()
    app = TrucoApp(link, "ana", "en")
    link.push(p.Welcome(name="ana", guest=True, variants=()),
              p.LobbySnapshot(players=tuple(p.PlayerInfo(name=n) for n in ["ana", *players]),
                              tables=tuple(table(n) for n in range(tables)), chat=()))
    return app, link


class Layouts:
    """Counts the screen's layouts from now on (a repaint alone is not one)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.count = 0
        textual = Screen._refresh_layout

        def counted(screen: Screen[Any], *args: Any, **kwargs: Any) -> None:
            if not kwargs.get("scroll"):
                self.count += 1
            textual(screen, *args, **kwargs)

        monkeypatch.setattr(Screen, "_refresh_layout", counted)


@pytest.mark.parametrize("crowded", [False, True], ids=["fits", "scrolls"])
async def test_arrivals_and_departures_redraw_the_players_without_a_layout(
        monkeypatch: pytest.MonkeyPatch, crowded: bool) -> None:
    players = NAMES[:25] if crowded else NAMES[:3]
    app, link = lobby(players, tables=20 if crowded else 2)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, LobbyScreen) and "jugador02" in screen_text(app),
                    "the lobby", seen=lambda: screen_text(app))
        player_list = app.screen.query_one("#players", PlayerList)
        table_list = app.screen.query_one("#tables", DataTable)
        await until(pilot, lambda: table_list.row_count == (20 if crowded else 2), "the tables listed")
        await until(pilot, lambda: player_list.show_vertical_scrollbar is crowded
                    and table_list.show_vertical_scrollbar is crowded, "the scrollbars as they belong")
        await pilot.pause()  # (the layout that showed them done)
        layouts = Layouts(monkeypatch)
        link.push(p.PlayerUpdated(player=p.PlayerInfo(name="aaron")))  # one more line
        await until(pilot, lambda: "aaron" in screen_text(app), "the new player", seen=lambda: screen_text(app))
        link.push(p.PlayerLeft(name="jugador01"), p.PlayerLeft(name="jugador00"))  # two fewer
        await until(pilot, lambda: "jugador01" not in screen_text(app), "the player who left gone",
                    seen=lambda: screen_text(app))
        assert layouts.count == 0
        assert player_list.option_count == len(players)  # ana, the others, the newcomer, less two
        assert player_list.show_vertical_scrollbar is crowded  # (and still as it was)


async def test_a_list_that_comes_to_overflow_gets_its_scrollbar(monkeypatch: pytest.MonkeyPatch) -> None:
    app, link = lobby(NAMES[:3], tables=0)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: "jugador02" in screen_text(app), "the lobby")
        player_list = app.screen.query_one("#players", PlayerList)
        assert not player_list.show_vertical_scrollbar
        layouts = Layouts(monkeypatch)
        link.push(*(p.PlayerUpdated(player=p.PlayerInfo(name=n)) for n in NAMES[3:]))
        await until(pilot, lambda: player_list.option_count == len(NAMES) + 1, "everyone listed")
        await until(pilot, lambda: player_list.show_vertical_scrollbar, "the scrollbar")
        await until(pilot, lambda: layouts.count >= 1, "the layout that shows the scrollbar")
        assert player_list.max_scroll_y == player_list.option_count - player_list.scrollable_content_region.height


def test_a_crowded_lobby_gathers_arrivals_longer_in_proportion_to_its_size() -> None:
    assert players_delay(3) == players_delay(10) == 0.1
    assert players_delay(60) == pytest.approx(0.6) and players_delay(150) == pytest.approx(1.5)
    assert players_delay(10_000) == 2.0  # a newcomer is listed within 3 s however full (spread below)
    assert spread(0.1) == 0.1  # a small lobby redraws as soon as it did
    assert all(0.6 <= spread(0.6) <= 0.9 for _ in range(100))  # the crowd's, spread over half again
    assert spread(players_delay(10_000)) <= 3.0


async def test_arrivals_wait_for_the_crowd_delay_and_a_table_change_draws_them_at_once(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The players' redraw waits (here: as if the lobby were huge), the tables' does not, and
    the tables' redraw takes the pending arrivals along: one redraw of each, not two."""
    monkeypatch.setattr(lobby_screen, "players_delay", lambda players: 3600.0)  # (as the screen calls it)
    app, link = lobby(NAMES[:3], tables=1)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: "mesa 0" in screen_text(app), "the lobby")
        draws: list[str] = []
        drawn = lobby_screen.LobbyScreen._draw_players
        monkeypatch.setattr(lobby_screen.LobbyScreen, "_draw_players",
                            lambda screen: (draws.append("players"), drawn(screen))[1])
        for name in ("aaron", "abel", "adela"):
            link.push(p.PlayerUpdated(player=p.PlayerInfo(name=name)))
            await pilot.pause()
        await until(pilot, lambda: len(app.model.players) == 7, "the arrivals in the model")  # type: ignore[attr-defined]
        assert draws == [] and "aaron" not in screen_text(app)  # gathered, not drawn yet
        link.push(p.TableUpdated(table=table(1)))
        await until(pilot, lambda: "mesa 1" in screen_text(app) and "adela" in screen_text(app),
                    "the new table and the arrivals", seen=lambda: screen_text(app))
        assert draws == ["players"]
