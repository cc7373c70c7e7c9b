"""The leaderboard (t) opens on the game and table size the player plays: most of their last
matches (key holders, rated or not), else the last table they sat at in this session."""
from __future__ import annotations

import protocol as p
from tui.app import TrucoApp
from tui.model import LobbyModel
from tui.screens.stats import LeaderboardScreen

from server.variants import variant_infos
from tests.tui.kit import FakeLink


def line(variant: str, players: int, rated: bool = False) -> p.MatchLine:
    return p.MatchLine(variant=variant, players=players, rated=rated, finished_at=1_700_000_000)


def test_most_of_my_last_matches_beat_my_only_rating() -> None:
    model = LobbyModel()
    model.apply(p.StatsReport(  # rated only at 2 (humans only), but plays 4 with bots
        ratings=(p.RatingLine(variant="argentino", players=2, rating=3.0, games=1, wins=1),),
        recent=(line("uruguayo", 4), line("argentino", 2, rated=True), line("uruguayo", 4), line("argentino", 6))))
    assert model.board_choice() == ("uruguayo", 4)
    model.apply(p.StatsReport(recent=(line("argentino", 6), line("uruguayo", 4))))  # a tie: the latest
    assert model.board_choice() == ("argentino", 6)
    model.apply(p.StatsReport(ratings=(p.RatingLine(variant="paulista", players=4, rating=1.0),)))
    assert model.board_choice() == ("paulista", 4)  # no matches listed: the rating's board


async def test_a_guest_who_sat_at_a_table_of_four_gets_its_board() -> None:
    link = FakeLink()
    app = TrucoApp(link, "ana", "en")
    table = p.TableInfo(table_id="t1", title="mesa", variant="uruguayo", owner="beto",
                        seats=("beto", None, None, None), options={}, status="waiting")
    link.push(p.Welcome(name="ana", guest=True, variants=variant_infos()),
              p.LobbySnapshot(players=(p.PlayerInfo(name="ana"),), tables=(table,), chat=()))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause(0.3)
        link.push(p.Seated(table_id="t1", seat=1))
        await pilot.pause(0.3)
        link.push(p.Seated())  # back in the lobby
        await pilot.pause(0.3)
        await pilot.press("t")
        await pilot.pause(0.2)
        assert isinstance(app.screen, LeaderboardScreen)
        assert [m for m in link.sent if isinstance(m, p.Leaderboard)] == [p.Leaderboard(variant="uruguayo", players=4)]
