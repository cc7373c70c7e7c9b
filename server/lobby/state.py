"""What the lobby knows (connections, names online, tables) and how it tells people.

One ``LobbyState`` is shared by the parts of the lobby (``seats``, ``directory``,
``names``, ``sessions``, ``restore``, ``history``); only the hub's task touches it.
"""
from __future__ import annotations

import asyncio
import logging
import secrets
from collections import deque
from dataclasses import dataclass, field
from typing import Awaitable, Callable, Protocol

import protocol as p
from protocol import deal_proof
from protocol.text import name_key
from server.config import ServerConfig
from server.link import HubLink, Peer
from server.lobby.messages import LobbyMessage, Result
from server.moderation.reports import SAID_KEPT, TableLine
from server.ratelimit import Buckets, TokenBucket
from server.store import Store
from server.table import Occupant, TableActor
from server.table.occupant import rated_seats

log = logging.getLogger(__name__)

CHAT_HISTORY = 50


@dataclass
class Conn:
    peer: Peer
    link: HubLink
    commands: TokenBucket
    chat: Buckets  # its own and its address's
    name: str | None = None
    table_id: str | None = None
    seat: int | None = None  # None while watching
    bad_frames: int = 0
    last_rate_error: float = 0.0
    join_code: str = ""  # a private table's code given as the SSH username, until named
    rating: float | None = None  # their most played rating, known once they asked their stats
    origin: str = ""  # the origin of the frame being handled (cluster mode: server/origins.py)
    # A new name's slow chat (``ServerConfig.new_player_minutes``): its bucket, until when
    slow_chat: TokenBucket | None = None
    slow_until: float = 0.0  # time.monotonic()
    reports: int = 0  # reports of other players this session made
    ignoring: dict[str, str] = field(default_factory=dict)  # name key -> the name, as written
    hear: str = "everyone"  # whose chat they hear (protocol/moderation.py HEAR)

    @property
    def key(self) -> str | None:
        return name_key(self.name) if self.name else None


@dataclass
class Table:
    table_id: str
    title: str
    variant: str
    owner: str
    seats: list[Occupant | None]
    options: dict[str, p.OptionValue]
    private: bool
    code: str
    turn_timer: int = 0
    spectators: set[int] = field(default_factory=set)
    invited: set[int] = field(default_factory=set)  # conns that used the code
    actor: TableActor | None = None  # the running game, once every seat is filled
    last_info: p.TableInfo | None = None
    demo: bool = False  # a bot-only table the operator asked for (--demo-bot-tables)
    # A waiting room: the owner starts the game (StartTable) once every seat is taken, so
    # friends can choose partners first. Tables of two, quick play and demo tables start
    # the moment the last seat is taken.
    owner_starts: bool = False
    quick: bool = False  # opened by quick play: bots take its free seats after a wait for people
    # Chosen when the table opens: its first match's commitment is in the lobby's list before
    # anyone sits (protocol/deal_proof.py), so a joiner's entropy comes after it
    seed: str = field(default_factory=lambda: secrets.token_hex(16))
    stored: bool = False  # a waiting room in the store (Seats.save_room)
    # The latest chat lines said at the table, for players' reports (server/moderation/reports.py)
    said: deque[TableLine] = field(default_factory=lambda: deque(maxlen=SAID_KEPT))

    def humans(self) -> list[int]:
        return [o.conn_id for o in self.seats if o is not None and o.conn_id is not None]

    def people(self) -> list[Occupant]:
        """Seats a person holds, connected or away (not yet given to a bot for good)."""
        return [o for o in self.seats if o is not None and not o.bot]


class LobbyLists(Protocol):
    """Where the lobby's lists live in cluster mode (``LobbyState.lists``)."""

    def table(self, info: p.TableInfo) -> None: ...

    def table_removed(self, table_id: str) -> None: ...

    def entered(self, conn: Conn, chat: tuple[p.ChatLine, ...]) -> None:
        """``conn`` is in the lobby: its front end sends it the lists, then their news."""

    def left(self, conn: Conn) -> None:
        """``conn`` sits at or watches a table: no more lobby news for it."""

    def chat(self, line: p.ChatLine) -> None:
        """A lobby chat line: once for every front end, which gives it to its named sessions."""


class LobbyState:
    def __init__(self, config: ServerConfig, store: Store | None) -> None:
        self.config = config
        self.store = store
        self.inbox: asyncio.Queue[LobbyMessage] = asyncio.Queue()
        self.conns: dict[int, Conn] = {}
        self.address_chat: dict[str, TokenBucket] = {}  # the chat every connection of an address shares
        self.online: dict[str, int] = {}  # name key -> conn id
        self.reservations: dict[str, str] = {}  # name key -> fingerprint
        self.reserved_names: dict[str, str] = {}  # name key -> the name as its key holder wrote it
        self.tables: dict[str, Table] = {}
        self.restoring: dict[str, Table] = {}  # open tables whose game is not rebuilt yet
        self.chat: deque[p.ChatLine] = deque(maxlen=CHAT_HISTORY)
        self.lagging: set[int] = set()  # conns to drop once the current step is done
        self.writes: set[asyncio.Future[None]] = set()
        # Told where a named connection is now (cluster mode: the presence bucket,
        # server/cluster/lobby_host.py); nothing in one process, where the connections are the list
        self.presence: Callable[[Conn], None] | None = None
        # Cluster mode: each front end keeps the lobby's lists for its own sessions, from
        # watched copies (server/cluster/directory.py); None in one process, where they are here
        self.lists: LobbyLists | None = None
        # Cluster mode: seconds after this host starts within which the sessions of the one
        # that died come back through their front ends (server/lobby/reattach.py); 0 in one
        # process, whose sessions end with it
        self.reattach_grace = 0.0

    # -- the store: writes fired from the loop, awaited at shutdown --------------------
    def persist(self, future: "asyncio.Future[None] | None") -> None:
        if future is None:
            return
        self.writes.add(future)

        def done(f: "asyncio.Future[None]") -> None:
            self.writes.discard(f)
            if not f.cancelled() and f.exception() is not None:
                log.error("store write failed: %s", f.exception())

        future.add_done_callback(done)

    def answer_later(self, conn: Conn, work: "Awaitable[p.Message | LobbyMessage | None]", failed: str) -> None:
        """Await ``work`` (a store query) off the hub's step; what it gives comes back through
        the inbox: a protocol message as the answer to ``conn``, a lobby message as itself.
        ``failed``: what ``conn`` is told if the store fails."""
        conn_id = conn.peer.conn_id
        inbox = self.inbox

        async def run() -> None:
            try:
                answer = await work
            except Exception:
                log.exception("store query failed")
                answer = p.Error(code="storage", message=failed)
            if isinstance(answer, p.Message):
                inbox.put_nowait(Result(conn_id, answer))
            elif answer is not None:
                inbox.put_nowait(answer)

        self.persist(asyncio.get_running_loop().create_task(run()))

    def close_in_store(self, table_id: str) -> None:
        if self.store is not None:
            self.persist(self.store.close_table(table_id))

    def save_seats(self, table: Table) -> None:
        if self.store is not None and table.actor is not None:
            records = [o.to_record() for o in table.seats if o is not None]
            self.persist(self.store.update_seats(table.table_id, records))

    # -- sending ---------------------------------------------------------------
    def send(self, conn: Conn, message: p.Message) -> None:
        if self.lists is not None and type(message) is p.Seated and message.table_id is not None:
            self.lists.left(conn)  # its front end stops the lobby's news before it sits
        self.deliver(conn, p.encode(message))

    def send_snapshot(self, conn: Conn) -> None:
        """``conn`` is in the lobby (again): the lobby's lists, then their news."""
        if self.lists is not None:
            self.lists.entered(conn, tuple(self.chat))
        else:
            self.send(conn, self.snapshot())

    def deliver(self, conn: Conn, frame: bytes) -> None:
        conn_id = conn.peer.conn_id
        if conn_id not in self.lagging and not conn.link.deliver(frame):
            self.lagging.add(conn_id)

    def error(self, conn: Conn, code: str, message: str) -> None:
        self.send(conn, p.Error(code=code, message=message[:400]))

    def broadcast(self, message: p.Message, exclude: int | None = None,
                  reaches: Callable[[Conn], bool] | None = None) -> None:
        frame = p.encode(message)  # once for everybody
        for conn in list(self.conns.values()):
            if (conn.name is not None and conn.peer.conn_id != exclude
                    and (reaches is None or reaches(conn))):
                self.deliver(conn, frame)

    def lobby_news(self, message: p.Message, exclude: int | None = None,
                   table_id: str | None = None) -> None:
        """Lobby lists reach the players in the lobby (and, for one table's news, the people
        at that table); whoever is at a table gets a fresh snapshot on the way back. Sending
        every arrival and every seat change to every session made setting up many tables
        cost the server time in proportion to the square of the players.

        Cluster mode: the lobby's part goes to the watched buckets, from which each front
        end tells its own sessions in the lobby (players: the presence entries, written
        from ``presence``); only a table's own news goes from here, to the people at it, in
        order with the table's other frames."""
        lists = self.lists
        if lists is not None:
            if isinstance(message, p.TableUpdated):
                lists.table(message.table)
            elif isinstance(message, p.TableRemoved):
                lists.table_removed(message.table_id)
            if table_id is not None:
                self.broadcast(message, exclude, lambda conn: conn.table_id == table_id)
            return
        self.broadcast(message, exclude, lambda conn: conn.table_id in (None, table_id))

    # -- what the lobby shows ------------------------------------------------------
    def player_info(self, conn: Conn) -> p.PlayerInfo:
        return p.PlayerInfo(name=conn.name or "", guest=conn.peer.fingerprint is None, table_id=conn.table_id,
                            rating=conn.rating)

    def table_info(self, table: Table) -> p.TableInfo:
        if table.table_id in self.restoring:
            status = "restoring"
        elif table.actor is None:
            status = "waiting"
        else:
            status = "finished" if table.actor.finished else "playing"
        return p.TableInfo(
            table_id=table.table_id, title=table.title, variant=table.variant, owner=table.owner,
            seats=tuple(o.name if o is not None else None for o in table.seats),
            options=dict(table.options), private=table.private, status=status,
            spectators=len(table.spectators),
            bots=tuple(o is not None and o.bot for o in table.seats), turn_timer=table.turn_timer,
            bot_levels=tuple(o.level if o is not None and o.bot else "" for o in table.seats),
            owner_starts=table.owner_starts and table.actor is None,
            commitment=self._next_commitment(table), rated=rated_seats(table.seats),
        )

    @staticmethod
    def _next_commitment(table: Table) -> str:
        """The commitment of the match players may still add entropy to: the first one while
        the table waits, the next one once a match is over ("" while one is played)."""
        if table.actor is None:
            return deal_proof.commitment(deal_proof.match_secret(table.seed, 1))
        if table.actor.finished:
            return deal_proof.commitment(deal_proof.match_secret(table.seed, table.actor.match_no + 1))
        return ""

    def snapshot(self) -> p.LobbySnapshot:
        return p.LobbySnapshot(
            players=tuple(self.player_info(c) for c in self.conns.values() if c.name),
            tables=tuple(self.table_info(t) for t in self.tables.values()),
            chat=tuple(self.chat),
        )

    def table_changed(self, table: Table) -> None:
        if table.table_id not in self.tables:
            return
        info = self.table_info(table)
        if info != table.last_info:  # actors report every move; the lobby sees only changes
            table.last_info = info
            self.lobby_news(p.TableUpdated(table=info), table_id=table.table_id)

    def player_moved(self, conn: Conn) -> None:
        """Tell the lobby where ``conn`` is now."""
        self.lobby_news(p.PlayerUpdated(player=self.player_info(conn)))
        if self.presence is not None:
            self.presence(conn)
