"""History: a player's finished games and the replay of their hands, their stats and
ratings, and the leaderboards; all read off the loop."""
from __future__ import annotations

import asyncio
import logging
from typing import Any, Callable

import engine
import protocol as p
from server.lobby.messages import StatsLearnt
from server.lobby.state import Conn, LobbyState
from server.store import EventRow, GameRecord
from server.table.log_events import log_event
from server.table.proof import deals_proof

log = logging.getLogger(__name__)


def summary(game: GameRecord) -> p.GameSummary:
    return p.GameSummary(
        table_id=game.table_id, match_no=game.match_no, variant=game.variant,
        title=game.title[: p.TITLE_MAX], seats=tuple(n[: p.NAME_MAX + 8] for n in game.seats),
        scores=tuple(game.scores), winner=game.winner, hands=game.hands,
        finished_at=game.finished_at,
    )


def split_hands(events: list[dict[str, object]]) -> list[list[dict[str, object]]]:
    """A match's events cut into hands: each starts at a deal (the match start joins hand 1)."""
    hands: list[list[dict[str, object]]] = []
    lead: list[dict[str, object]] = []
    for event in events:
        if event.get("type") == "hand_dealt":
            hands.append(lead + [event])
            lead = []
        elif hands:
            hands[-1].append(event)
        else:
            lead.append(event)
    return hands


def replay_records(hand: list[dict[str, object]], notation: str) -> list[p.LogEvent]:
    """One logged hand's events (the store's wire form, every card shown) as the log's records.
    A row the engine cannot read (a damaged store) is left out, and said in the server log."""
    out = []
    for row in hand:
        try:
            out.append(log_event(engine.event_from_wire(row, notation)))
        except ValueError as exc:
            log.warning("replay: a logged event left out (%s)", exc)
    return out


class History:
    def __init__(self, state: LobbyState) -> None:
        self._state = state

    def _later(self, conn: Conn, work: "asyncio.Future[p.Message | None]") -> None:
        self._state.answer_later(conn, work, "the game history is not available")

    def on_my_games(self, conn: Conn, msg: p.MyGames) -> None:
        store = self._state.store
        if store is None:
            self._state.send(conn, p.GamesList())
            return
        fp, key = conn.peer.fingerprint, conn.key or ""

        async def query() -> p.Message:
            games = await store.my_games(fp, key, limit=100)
            return p.GamesList(games=tuple(summary(g) for g in games))

        self._later(conn, asyncio.ensure_future(query()))

    def _from_log(self, conn: Conn, table_id: str, match_no: int,
                  answer: Callable[[GameRecord, list[EventRow]], p.Message]) -> None:
        """``answer`` made from one of the asker's finished games and its log, off the loop."""
        store = self._state.store
        if store is None:
            self._state.error(conn, "no_game", "no such game")
            return
        fp, key = conn.peer.fingerprint, conn.key or ""

        async def query() -> p.Message:
            found = await store.game_log(table_id, match_no, fp, key)
            if found is None:
                return p.Error(code="no_game", message="no such game among yours")
            return answer(*found)

        self._later(conn, asyncio.ensure_future(query()))

    def on_replay_hand(self, conn: Conn, msg: p.ReplayHand) -> None:
        def replay(game: GameRecord, rows: list[EventRow]) -> p.Message:
            hands = split_hands([r.data for r in rows])
            if not 1 <= msg.hand <= len(hands):
                return p.Error(code="no_hand", message=f"that game has {len(hands)} hands")
            notation = engine.get_ruleset(game.variant).card_notation
            return p.ReplayStep(game=summary(game), hand=msg.hand,
                                events=tuple(replay_records(hands[msg.hand - 1], notation)),
                                hands=len(hands), card_notation=notation)

        self._from_log(conn, msg.table_id, msg.match_no, replay)

    def on_prove_deals(self, conn: Conn, msg: p.ProveDeals) -> None:
        """The proof of one's own finished match: its secret and every deal its log holds."""
        def proof(game: GameRecord, rows: list[EventRow]) -> p.Message:
            return deals_proof(game, rows) or p.Error(code="no_game", message="that game kept no proof of its deals")

        self._from_log(conn, msg.table_id, msg.match_no, proof)

    def on_my_stats(self, conn: Conn, msg: p.MyStats) -> None:
        store, fp = self._state.store, conn.peer.fingerprint
        if store is None or fp is None:  # guests have no stats: nothing to know them by
            self._state.send(conn, p.StatsReport(keyed=fp is not None))
            return

        async def query() -> p.Message:
            return stats_report(await store.player_stats(fp, p.RECENT_MAX))

        self._later(conn, asyncio.ensure_future(query()))

    def learn(self, conn: Conn) -> None:
        """``conn`` is named: its key's stats are read for the lobby itself (``StatsLearnt``)."""
        store, fp, conn_id = self._state.store, conn.peer.fingerprint, conn.peer.conn_id
        if store is None or fp is None:
            return

        async def query() -> StatsLearnt | None:
            try:
                found = await store.player_stats(fp, p.RECENT_MAX)
                return StatsLearnt(conn_id, stats_report(found), leaves(found))
            except Exception:  # (nobody asked: nobody to tell; the stats a screen asks for say it)
                log.warning("the stats of %s could not be read", fp, exc_info=True)
                return None

        self._state.answer_later(conn, query(), "")

    def rating_known(self, conn: Conn, report: p.StatsReport) -> None:
        """The lobby shows each key holder's most played rating: learnt from their stats, read
        when they are named (``learn``) and whenever their screen asks for them."""
        rating = report.ratings[0].rating if report.ratings else None
        if rating != conn.rating:
            conn.rating = rating
            self._state.player_moved(conn)

    def on_leaderboard(self, conn: Conn, msg: p.Leaderboard) -> None:
        store = self._state.store
        if store is None:
            self._state.send(conn, p.LeaderboardReport(variant=msg.variant, players=msg.players))
            return

        async def query() -> p.Message:
            board = await store.leaderboard(msg.variant, msg.players, p.BOARD_MAX)
            return p.LeaderboardReport(variant=msg.variant, players=msg.players, lines=tuple(
                p.BoardLine(name=name[: p.NAME_MAX], rating=_bounded(rating), games=games, wins=wins,
                            left=min(left, games))
                for name, rating, games, wins, left in board))

        self._later(conn, asyncio.ensure_future(query()))


def _bounded(rating: float) -> float:
    return round(max(-999.0, min(999.0, rating)), 2)


def leaves(found: dict[str, Any]) -> tuple[tuple[str, int, float], ...]:
    """(table, match, when it ended) of each recent rated match the player left before its end."""
    return tuple((table_id, match_no, float(at)) for _, _, _, _, quit_, _, _, rated, _, at, table_id, match_no
                 in found["recent"] if quit_ and rated)


def stats_report(found: dict[str, Any]) -> p.StatsReport:
    games, wins, points_for, points_against, envidos, trucos, refused = found["totals"]
    return p.StatsReport(
        games=games, wins=wins, points_for=points_for, points_against=points_against,
        envidos_won=envidos, trucos_won=trucos, trucos_refused=refused,
        ratings=tuple(p.RatingLine(variant=v, players=n, rating=_bounded(r), games=g, wins=w)
                      for v, n, r, g, w in found["ratings"][:32]),
        recent=tuple(
            p.MatchLine(variant=v, players=n, title=title[: p.TITLE_MAX], won=bool(won),
                        abandoned=bool(quit_), points_for=pf, points_against=pa, rated=bool(rated),
                        change=None if change is None else _bounded(change), finished_at=at)
            for v, n, title, won, quit_, pf, pa, rated, change, at, *_ in found["recent"]),
    )
