"""Pilot tests of my stats (s) and the leaderboards (t), at 60x20, 80x24 and 200x50 in
every language; the rating in the lobby's title."""
from __future__ import annotations

import pytest

import protocol as p
from tui.app import TrucoApp
from tui.i18n import Translator
from tui.screens.lobby import LobbyScreen
from tui.screens.stats import LeaderboardScreen, StatsScreen

from tests.tui.helpers import screen_text, until
from tests.tui.kit import VARIANTS, FakeLink, lobby_with

SIZES = [(60, 20), (80, 24), (200, 50)]
REPORT = p.StatsReport(
    games=7, wins=4, points_for=151, points_against=122, envidos_won=9, trucos_won=11, trucos_refused=3,
    ratings=(p.RatingLine(variant="argentino", players=4, rating=6.42, games=5, wins=3),
             p.RatingLine(variant="argentino", players=2, rating=-1.5, games=2, wins=1)),
    recent=(p.MatchLine(variant="argentino", players=4, title="los sábados", won=True, points_for=30,
                        points_against=21, rated=True, change=1.25, finished_at=1_700_000_000),
            p.MatchLine(variant="argentino", players=2, title="contra bots", won=False, points_for=9,
                        points_against=15, rated=False, finished_at=1_699_000_000),
            p.MatchLine(variant="argentino", players=4, title="me fui", abandoned=True, points_for=3,
                        points_against=10, rated=True, change=-2.0, finished_at=1_698_000_000)),
)


def keyed_app(lang: str = "en") -> tuple[TrucoApp, FakeLink]:
    link = FakeLink()
    app = TrucoApp(link, "ana", lang)
    link.push(p.Welcome(name="ana", guest=False, variants=VARIANTS),
              p.LobbySnapshot(players=(p.PlayerInfo(name="ana", guest=False),), tables=(), chat=()))
    return app, link


async def test_the_lobby_asks_for_my_rating_and_shows_it_in_the_title() -> None:
    app, link = keyed_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, LobbyScreen) and any(isinstance(m, p.MyStats) for m in link.sent),
                    "the lobby, my rating asked")
        assert isinstance(app.screen, LobbyScreen)
        assert isinstance(link.sent[-1], p.MyStats)
        link.push(REPORT)
        await until(pilot, lambda: "ana · rating 6.4" in screen_text(app).splitlines()[0], "the rating in the title")
        assert "ana · rating 6.4" in screen_text(app).splitlines()[0]
        link.push(p.PlayerUpdated(player=p.PlayerInfo(name="beto", guest=False, rating=-2.25)))
        await until(pilot, lambda: "beto -2.2" in screen_text(app) or "beto -2.3" in screen_text(app), "beto's rating listed")
        assert "beto -2.2" in screen_text(app) or "beto -2.3" in screen_text(app)  # players pane


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("lang", ["en", "es", "pt"])
async def test_my_stats_show_totals_ratings_and_last_matches(lang: str, size: tuple[int, int]) -> None:
    tr = Translator(lang)
    app, link = keyed_app(lang)
    async with app.run_test(size=size) as pilot:
        await until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby")
        await pilot.press("s")
        await until(pilot, lambda: isinstance(app.screen, StatsScreen), "my stats")
        assert isinstance(app.screen, StatsScreen)
        assert isinstance(link.sent[-1], p.MyStats)
        link.push(REPORT)
        await until(pilot, lambda: tr("stats.left") in screen_text(app) and "-2.0" in screen_text(app), "the stats drawn")
        text = screen_text(app)
        assert tr("stats.title") in text
        totals = tr("stats.totals", games=7, wins=4, pf=151, pa=122, envidos=9, trucos=11, refused=3)
        assert " ".join(totals.split()) in " ".join(text.split())  # wrapped at 60 columns
        assert "6.4" in text and "-1.5" in text  # both ratings
        assert "+1.2" in text and tr("stats.won") in text
        assert tr("stats.unrated") in text  # the match with bots
        assert tr("stats.left") in text and "-2.0" in text  # left: a loss
        bar = text.splitlines()[-1] if size[0] > 60 else "\n".join(text.splitlines()[-2:])
        assert tr("key.leaderboard") in bar and "Esc" in bar
        await pilot.press("escape")
        await until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby again")
        assert isinstance(app.screen, LobbyScreen)


@pytest.mark.parametrize("lang", ["en", "es", "pt"])
async def test_my_games_bar_offers_stats_and_the_leaderboards(lang: str) -> None:
    from tui.screens.history import HistoryScreen

    tr = Translator(lang)
    app, link = keyed_app(lang)
    async with app.run_test(size=(60, 20)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby")
        await pilot.press("h")
        await until(pilot, lambda: isinstance(app.screen, HistoryScreen)
                    and f"t {tr('key.leaderboard')}" in " ".join(screen_text(app).splitlines()[-2:]), "my games and their keys")
        assert isinstance(app.screen, HistoryScreen)
        bar = " ".join(screen_text(app).splitlines()[-2:])
        assert f"s {tr('key.stats')}" in bar and f"t {tr('key.leaderboard')}" in bar
        await pilot.press("s")
        await until(pilot, lambda: isinstance(app.screen, StatsScreen), "my stats")
        assert isinstance(app.screen, StatsScreen)
        await pilot.press("t")
        await until(pilot, lambda: isinstance(app.screen, LeaderboardScreen) and any(isinstance(m, p.Leaderboard) for m in link.sent),
                    "the leaderboard, asked for")
        assert isinstance(app.screen, LeaderboardScreen)
        assert isinstance(link.sent[-1], p.Leaderboard)


async def test_a_guest_is_told_how_to_get_stats() -> None:
    app, link = lobby_with(lang="es", variants=VARIANTS)
    async with app.run_test(size=(60, 20)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby")
        assert not any(isinstance(m, p.MyStats) for m in link.sent)  # no rating to ask for
        await pilot.press("s")
        await until(pilot, lambda: isinstance(app.screen, StatsScreen), "my stats")
        link.push(p.StatsReport(keyed=False))
        await until(pilot, lambda: "Los invitados no tienen" in screen_text(app), "the guest told")
        assert "Los invitados no tienen" in screen_text(app)


@pytest.mark.parametrize("size", [(60, 20), (80, 24)], ids=lambda s: f"{s[0]}x{s[1]}")
async def test_the_leaderboard_lists_players_and_switches_table_size(size: tuple[int, int]) -> None:
    app, link = keyed_app("pt")
    async with app.run_test(size=size) as pilot:
        await until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby")
        link.push(REPORT)
        await until(pilot, lambda: app.model.rating is not None, "my rating known")
        await pilot.press("t")
        await until(pilot, lambda: isinstance(app.screen, LeaderboardScreen) and any(isinstance(m, p.Leaderboard) for m in link.sent),
                    "the leaderboard, asked for")
        assert isinstance(app.screen, LeaderboardScreen)
        assert link.sent[-1] == p.Leaderboard(variant="argentino", players=4)  # my rating's board
        link.push(p.LeaderboardReport(variant="argentino", players=2, lines=(  # a stale answer
            p.BoardLine(name="stale", rating=1.0),)))
        link.push(p.LeaderboardReport(variant="argentino", players=4, lines=(
            p.BoardLine(name="beto", rating=9.5, games=12, wins=9),
            p.BoardLine(name="ana", rating=6.42, games=5, wins=3))))
        await until(pilot, lambda: "9.5" in screen_text(app), "the board drawn")
        text = screen_text(app)
        assert "Ranking · Argentino" in text or "Ranking · " in text
        lines = [line for line in text.splitlines() if "beto" in line or "ana" in line]
        assert "stale" not in text
        assert lines[0].split()[:3] == ["1", "beto", "9.5"] and lines[1].split()[:3] == ["2", "ana", "6.4"]
        await pilot.press("2")
        await until(pilot, lambda: p.Leaderboard(variant="argentino", players=2) in link.sent, "the other board asked for")
        assert link.sent[-1] == p.Leaderboard(variant="argentino", players=2)
        link.push(p.LeaderboardReport(variant="argentino", players=2))
        await until(pilot, lambda: Translator("pt")("stats.board_empty") in screen_text(app), "the empty board")
        assert Translator("pt")("stats.board_empty") in screen_text(app)
