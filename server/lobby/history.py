"""History: a player's finished games and the replay of their hands, read off the loop."""
from __future__ import annotations

import asyncio
import logging

import engine
import protocol as p
from server.lobby.messages import Result
from server.lobby.state import Conn, LobbyState
from server.store import GameRecord

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


class History:
    def __init__(self, state: LobbyState) -> None:
        self._state = state

    def _later(self, conn: Conn, work: "asyncio.Future[p.Message | None]") -> None:
        """Run a store query off the loop; its answer goes to ``conn`` through the inbox."""
        conn_id = conn.peer.conn_id
        inbox = self._state.inbox

        async def run() -> None:
            try:
                message = await work
            except Exception:
                log.exception("store query failed")
                message = p.Error(code="storage", message="the game history is not available")
            if message is not None:
                inbox.put_nowait(Result(conn_id, message))

        task = asyncio.get_running_loop().create_task(run())
        self._state.persist(task)

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

    def on_replay_hand(self, conn: Conn, msg: p.ReplayHand) -> None:
        store = self._state.store
        if store is None:
            self._state.error(conn, "no_game", "no such game")
            return
        fp, key = conn.peer.fingerprint, conn.key or ""

        async def query() -> p.Message:
            found = await store.game_log(msg.table_id, msg.match_no, fp, key)
            if found is None:
                return p.Error(code="no_game", message="no such game among yours")
            game, events = found
            hands = split_hands(events)
            if not 1 <= msg.hand <= len(hands):
                return p.Error(code="no_hand", message=f"that game has {len(hands)} hands")
            notation = engine.get_ruleset(game.variant).card_notation
            return p.ReplayStep(game=summary(game), hand=msg.hand, events=tuple(hands[msg.hand - 1]),
                                hands=len(hands), card_notation=notation)

        self._later(conn, asyncio.ensure_future(query()))
