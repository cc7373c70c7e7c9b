"""The lobby actor: one asyncio task owns all lobby state.

Sessions reach it only through their ``HubLink``: encoded command frames in, encoded
event frames out. The hub's inbox holds typed messages (``messages``), matched by class;
each protocol command has one handler, listed in ``Hub.handlers``. The jobs are parts of
their own: ``sessions`` (connections), ``names`` (names and coming back to a held seat),
``seats`` (sitting, leaving, holds), ``directory`` (the tables), ``history`` (finished
games), ``restore`` (tables of the last run); ``state`` is what they share.
"""
from __future__ import annotations

import asyncio
import itertools
import logging
import time
from typing import Any, Callable, Mapping, Protocol

import protocol as p
from protocol import moderation as m
from protocol.text import clean_text
from server.config import ServerConfig
from server.link import Closed, Frame, HubLink, Peer
from server.lobby.directory import Directory, OptionsValidator
from server.ops import action_trace
from server.lobby.early import EarlyCommands
from server.lobby.history import History
from server.lobby.messages import (Attached, FillWithBots, HoldExpired, Ignoring, LobbyMessage, Opened, RestoreDone,
                                   Restored, Restricted, Result, Shutdown, StatsLearnt, TableChanged)
from server.lobby.moderation import OperatorDesk
from server.lobby.quick import QuickPlay
from server.lobby.names import Names
from server.lobby.reattach import Reattach
from server.lobby.restore import Restorer
from server.lobby.seats import ActorFactory, Seats
from server.lobby.sessions import Sessions
from server.lobby.state import CHAT_HISTORY, Conn, LobbyLists, LobbyState, Table
from server.moderation.book import Moderation
from server.origins import Origins
from server.store import Store
from server.table import Pace, TableActor

log = logging.getLogger(__name__)

BAD_FRAMES_BEFORE_DROP = 10
# What changes who sits where: a frame sent again after a lobby host died is not acted on twice
SEATING = (p.CreateTable, p.JoinTable, p.JoinByCode, p.QuickPlay, p.SwapSeats, p.AddBot, p.StartTable)

Handler = Callable[[Conn, Any], None]  # takes the command its key in ``Hub.handlers`` names


class ChatLog(Protocol):
    """Where lobby chat lines are kept beyond this process (cluster mode: a new lobby host
    starts with them; server/cluster/chat.py). In one process the chat lives in memory."""

    def said(self, line: p.ChatLine, origin: str) -> "asyncio.Future[None]": ...

    async def history(self) -> list[tuple[p.ChatLine, str]]: ...  # each line and its origin


class Hub:
    def __init__(
        self,
        config: ServerConfig,
        variants: tuple[p.VariantInfo, ...],
        validate_options: OptionsValidator,
        store: Store | None = None,
        pace: Pace = Pace(),
        actor_factory: ActorFactory = TableActor,  # cluster mode: proxies (server/cluster/proxy.py)
        chat_log: ChatLog | None = None,
        moderation: Moderation | None = None,  # the operators and the bans and mutes in force
    ) -> None:
        self.config = config
        self._chat_log = chat_log
        self._said = Origins(CHAT_HISTORY)  # the lobby chat's last lines, by origin
        self._state = state = LobbyState(config, store)
        self._ids = itertools.count(1)
        self._seats = Seats(state, pace, self._send_frame, actor_factory)
        self._sessions = Sessions(state, self._seats)
        self._directory = Directory(state, self._seats, variants, validate_options)
        moderation = moderation or Moderation()
        self._names = Names(state, self._sessions, self._seats, variants, self._directory.join_by_link,
                            operator=lambda conn: moderation.is_operator(conn.peer.fingerprint))
        self._history = History(state)
        self._quick = QuickPlay(state, self._seats, self._directory)
        self._restorer = Restorer(state, self._seats)
        self._reattach = Reattach(state, self._sessions, self._seats, self._names, self._directory.on_watch_table)
        self._early = EarlyCommands(state)  # for tables not back yet
        self._desk = OperatorDesk(state, self._sessions, self._seats, moderation)
        self.restored = self._restorer.restored  # every table of the last run is back
        self.variants = self._directory.variants
        # Every protocol command and the one method that handles it
        self.handlers: dict[type[p.Command], Handler] = {
            p.Ping: self._on_ping,
            p.ClaimName: self._names.on_claim_name,
            p.ResumeSeat: self._names.on_resume,
            p.SendChat: self._on_send_chat,
            p.CreateTable: self._directory.on_create_table,
            p.JoinTable: self._directory.on_join_table,
            p.JoinByCode: self._directory.on_join_code,
            p.LeaveTable: self._directory.on_leave_table,
            p.WatchTable: self._on_watch_table,
            p.AddBot: self._directory.on_add_bot,
            p.QuickPlay: self._quick.on_quick_play,
            p.SwapSeats: self._directory.on_swap_seats,
            p.StartTable: self._directory.on_start_table,
            p.TableAction: self._directory.on_act,
            p.TableChat: self._directory.on_table_chat,
            p.AddEntropy: self._directory.on_add_entropy,
            p.MakeSena: self._directory.on_sena,
            p.Rematch: self._directory.on_rematch,
            p.MyGames: self._history.on_my_games,
            p.ReplayHand: self._history.on_replay_hand,
            p.ProveDeals: self._history.on_prove_deals,
            p.MyStats: self._history.on_my_stats,
            p.Leaderboard: self._history.on_leaderboard,
            **self._desk.handlers,  # the operators' commands (protocol/moderation.py)
        }

    # -- wiring ----------------------------------------------------------------
    @property
    def pace(self) -> Pace:
        """The delays of the tables started from now on."""
        return self._seats.pace

    @pace.setter
    def pace(self, pace: Pace) -> None:
        self._seats.pace = pace

    @property
    def store(self) -> Store | None:
        return self._state.store

    @property
    def tables(self) -> Mapping[str, Table]:
        """The tables in the lobby (not those still being restored), by id."""
        return self._state.tables

    async def load(self, checked: "asyncio.Future[None] | None" = None, restore: bool = True) -> None:
        """What the server needs before it listens; the tables' games restore after
        (``restore=False``: when ``restore_tables`` is called, e.g. once the server listens).

        ``checked``: the database's integrity check, if still running: tables are rebuilt
        meanwhile but none plays (or writes) before it passed.
        """
        await self._restorer.load(checked)
        if self._chat_log is not None:
            for line, origin in await self._chat_log.history():
                self._state.chat.append(line)
                self._said.first_time(origin)  # said by the last host: not again if sent again
        if restore:
            self.restore_tables()
        self._directory.start_demo_tables()

    def _on_watch_table(self, conn: Conn, msg: p.WatchTable) -> None:
        if not self._reattach.watch_when_back(conn, msg.table_id):
            self._directory.on_watch_table(conn, msg)

    def restore_tables(self) -> None:
        """Start rebuilding the open tables in the background (after ``load``)."""
        self._restorer.start()

    def turning_away(self) -> str:
        return ""  # one process: its lobby is here whenever it runs

    def connect(self, ip: str, username: str, fingerprint: str | None) -> HubLink:
        """Open a connection for a verified SSH peer; called by the SSH layer only."""
        conn_id = next(self._ids)
        link = HubLink(self._state.inbox.put_nowait, conn_id)
        self._state.inbox.put_nowait(Opened(Peer(conn_id, ip, username, fingerprint), link))
        return link

    def post(self, message: LobbyMessage) -> None:
        """Into the hub's inbox: connections of other processes (cluster mode,
        server/cluster/lobby_host.py) arrive this way, with ids their front end chose."""
        self._state.inbox.put_nowait(message)

    def watch_presence(self, told: Callable[[Conn], None]) -> None:
        """``told`` learns where each named connection is, at each change (cluster mode)."""
        self._state.presence = told

    def keep_lists_elsewhere(self, lists: LobbyLists) -> None:
        """The lobby's lists go to ``lists`` (cluster mode: the front ends feed their own
        sessions from watched copies), not to each session from here."""
        self._state.lists = lists

    def expect_sessions_back(self, grace: float) -> None:
        """Cluster mode: the sessions of a host that died come back within ``grace`` seconds
        (a guest's waiting-room seat is held for them that long: ``restore``)."""
        self._state.reattach_grace = grace

    def reserved_fingerprint(self, key: str) -> str | None:
        """The fingerprint a name (by ``name_key``) is reserved for, if any."""
        return self._state.reservations.get(key)

    @property
    def online_count(self) -> int:
        return len(self._state.conns)

    async def run(self) -> None:
        while True:
            message = await self._state.inbox.get()
            try:
                if self._handle(message):
                    return
            except Exception:  # one bad command must not stop the lobby for everyone
                log.exception("hub failed on %s from conn %s", type(message).__name__,
                              getattr(message, "conn_id", None))
            self._sessions.drop_lagging()

    def _handle(self, message: LobbyMessage) -> bool:
        """One inbox message; True: the hub stops."""
        match message:
            case Opened(peer, link):
                self._sessions.open(peer, link)
            case Attached():  # cluster mode: a session of a lobby host that died
                self._reattach.attach(message)
                if (conn := self._state.conns.get(message.peer.conn_id)) is not None and conn.name is not None:
                    self._named(conn)
            case Frame(conn_id, data, origin, again):
                action_trace.mark("hub", conn_id, n=len(data))
                self._command(conn_id, data, origin, again)
            case Closed(conn_id):
                self._sessions.close(conn_id)
                self._early.forget(conn_id)
            case HoldExpired():
                self._seats.hold_expired(message)
            case FillWithBots():
                self._quick.fill(message)
            case TableChanged(table_id):
                if (table := self._state.tables.get(table_id)) is not None:
                    self._state.table_changed(table)
            case Restored():
                self._restorer.install(message)
                self._reattach.installed(message.table_id)
                for waited, command, origin in self._early.released(message.table_id):
                    waited.origin = origin
                    self.handlers[type(command)](waited, command)
            case RestoreDone(count, seconds):
                log.info("all %d open tables restored in %.2f s", count, seconds)
                self.restored.set()
            case Result(conn_id, answer):
                conn = self._state.conns.get(conn_id)
                if conn is not None:
                    self._state.send(conn, answer)
                    if isinstance(answer, p.StatsReport):
                        self._history.rating_known(conn, answer)
            case StatsLearnt(conn_id, report, leaves):
                if (conn := self._state.conns.get(conn_id)) is not None:
                    self._history.rating_known(conn, report)
                    if conn.peer.fingerprint is not None:
                        self._seats.leavers.known(conn.peer.fingerprint, leaves)
            case Restricted():
                self._desk.restricted(message)
            case Ignoring():
                self._desk.ignoring(message)
            case Shutdown(notice):
                self._sessions.shutdown(notice)
                return True
        return False

    def request_shutdown(self, notice: str = "shutdown") -> None:
        self._state.inbox.put_nowait(Shutdown(notice))

    async def drain_writes(self) -> None:
        if self._state.writes:
            await asyncio.gather(*self._state.writes, return_exceptions=True)

    async def stop_tables(self) -> None:
        """Stop every table actor (their last events are appended first); for shutdown."""
        background = self._restorer.background
        for task in background:
            task.cancel()
        await asyncio.gather(*background, return_exceptions=True)
        actors = [t.actor for t in self._state.tables.values() if t.actor is not None]
        await asyncio.gather(*(a.stop() for a in actors), return_exceptions=True)
        store = self._state.store
        if store is not None and background:
            self._state.persist(store.mark_alive())  # the timers stopped now

    def _send_frame(self, conn_id: int, frame: bytes) -> None:
        """How table actors reach a connection (frames are already encoded)."""
        conn = self._state.conns.get(conn_id)
        if conn is not None:
            self._state.deliver(conn, frame)
            if self._state.lagging:
                asyncio.get_running_loop().call_soon(self._sessions.drop_lagging)

    # -- commands --------------------------------------------------------------
    def _command(self, conn_id: int, data: bytes, origin: str = "", again: bool = False) -> None:
        state = self._state
        conn = state.conns.get(conn_id)
        if conn is None:
            return
        conn.origin = origin
        try:
            message = p.decode(data)
        except p.ProtocolError as exc:
            conn.bad_frames += 1
            state.error(conn, "bad_frame", str(exc))
            if conn.bad_frames >= BAD_FRAMES_BEFORE_DROP:
                self._sessions.close(conn_id)
            return
        if not isinstance(message, p.Command):
            state.error(conn, "bad_frame", f"{message.TYPE} is not a command")
            return
        if not conn.commands.take():
            log.debug("conn %s (%s): command rate limited", conn.peer.conn_id, conn.name)
            now = time.monotonic()
            if now - conn.last_rate_error > 1.0:  # one error a second, not one per command
                conn.last_rate_error = now
                state.error(conn, "rate_limited", "too many commands; slow down")
            return
        if again and isinstance(message, SEATING):
            # Sent again to this host after the one that may have done it died: done twice, a
            # swap would be undone, a second bot seated, a quick-play seat left. At most once:
            # the player is told to look and do it again if it was not done.
            log.info("conn %s: %s sent again after a host change: not done twice", conn_id, message.TYPE)
            state.send(conn, p.Notice(code="reattach_dropped"))
            return
        operating = isinstance(message, m.OPERATOR_COMMANDS)
        if operating and not self._desk.allows(conn):
            state.error(conn, "not_operator", "only the server's operators may do that")
            return
        # A key holder's own proof of deals needs no name (`truco-ssh verify`): the key says whose.
        keyed = isinstance(message, p.ProveDeals) and conn.peer.fingerprint is not None
        if conn.name is None and not (operating or keyed) and not isinstance(message, (p.ClaimName, p.Ping)):
            state.error(conn, "no_name", "choose a name first")
            return
        if isinstance(message, (p.SendChat, p.TableChat, p.MakeSena)) and (muted := self._desk.muted(conn)):
            # (``reason``: until when, unix seconds, 0 for good, for the client to say in its words)
            state.send(conn, p.Error(code="muted", message=f"you are {muted.told()}"[:400],
                                     reason=str(int(muted.until))))
            return
        if isinstance(message, (p.SendChat, p.TableChat)) and self._desk.slowed(conn):
            state.error(conn, "chat_slow", f"new here: a chat line every {self.config.new_player_chat_every:g} s at first")
            return
        handler = self.handlers.get(type(message))
        if handler is None:
            state.error(conn, "bad_frame", f"{message.TYPE} is not handled here")
            return
        if self._early.keep(conn, message):
            return
        unnamed = conn.name is None
        handler(conn, message)
        if unnamed and conn.name is not None:
            self._named(conn)

    def _named(self, conn: Conn) -> None:
        """``conn`` has its name (a new one, or back at a new lobby host): what its key keeps
        is read, its ignore list (which follows the welcome) and its stats."""
        self._desk.named(conn)
        self._history.learn(conn)

    def _on_ping(self, conn: Conn, msg: p.Ping) -> None:
        self._state.send(conn, p.Pong(n=msg.n))

    def _on_send_chat(self, conn: Conn, msg: p.SendChat) -> None:
        state = self._state
        text = clean_text(msg.text, self.config.chat_max_len)
        if not text or not self._said.first_time(conn.origin):
            return
        if not conn.chat.take():
            state.error(conn, "chat_rate", "you are chatting too fast")
            return
        line = p.ChatLine(sender=conn.name or "", text=text, ts=int(time.time()))
        state.chat.append(line)
        if self._chat_log is not None:
            state.persist(self._chat_log.said(line, conn.origin))
        if state.lists is not None:  # cluster mode: once on the bus for every front end
            state.lists.chat(line)
        else:
            state.broadcast(p.Chat(line=line))
