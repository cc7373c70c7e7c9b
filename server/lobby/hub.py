"""The lobby actor: who is online, the lobby chat and the open tables.

One asyncio task owns all lobby state. Sessions reach it only through their
``HubLink``: encoded command frames in, encoded event frames out.

Seats survive dropped connections and restarts: a seated player whose connection
closes is marked away and the seat is held (``ServerConfig.seat_hold``) for the
same person, recognised by the key that signed (key holders) or by the seat's
resume code (guests: typed in the lobby, or given as the SSH username). When the
hold runs out a bot plays the seat for good. This holds at a table whose match is
over too: that is the rematch window, and a player whose match ended while away
(the bots and the deals play on) comes back to the final score and may ask for one.

Restarts: running tables, and tables whose match ended before a rematch, are restored
from the store's event log. ``load`` reads only the list of open tables, so the server
listens at once; the games are rebuilt in the background (``restored`` is set when all
are back). A player whose table is not back yet is seated at once and sees it restoring,
then the table.
"""
from __future__ import annotations

import asyncio
import itertools
import logging
import secrets
import time
from collections import deque
from dataclasses import dataclass, field
from typing import Callable

import engine
import protocol as p
from protocol.text import RESERVED_KEYS, clean_text, name_key, name_stem, usable_name, valid_name
from server.config import ServerConfig
from server.link import HubLink, Peer
from server.ratelimit import TokenBucket
from server.store import GameRecord, Store, TableRecord
from server.table import messages as tm
from server.table import Occupant, Pace, StaleSnapshot, TableActor, state_digest

log = logging.getLogger(__name__)

CHAT_HISTORY = 50
BAD_FRAMES_BEFORE_DROP = 10
DEFAULT_PUBLIC_TURN_TIMER = 30  # seconds
CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"  # no 0/O, 1/I look-alikes
RESTORE_CHUNK = 25  # tables read and rebuilt per step of the restore (the loop runs between)
ALIVE_EVERY = 1.0  # seconds between "still running" marks (what a turn timer used up at a crash)

OptionsValidator = Callable[[str, int, dict[str, p.OptionValue]], dict[str, p.OptionValue]]


@dataclass
class _Conn:
    peer: Peer
    link: HubLink
    commands: TokenBucket
    chat: TokenBucket
    name: str | None = None
    table_id: str | None = None
    seat: int | None = None  # None while watching
    bad_frames: int = 0
    last_rate_error: float = 0.0

    @property
    def key(self) -> str | None:
        return name_key(self.name) if self.name else None


@dataclass
class _Table:
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

    def humans(self) -> list[int]:
        return [o.conn_id for o in self.seats if o is not None and o.conn_id is not None]

    def people(self) -> list[Occupant]:
        """Seats a person holds, connected or away (not yet given to a bot for good)."""
        return [o for o in self.seats if o is not None and not o.bot]


class Hub:
    def __init__(
        self,
        config: ServerConfig,
        variants: tuple[p.VariantInfo, ...],
        validate_options: OptionsValidator,
        store: Store | None = None,
        pace: Pace = Pace(),
    ) -> None:
        self.pace = pace
        self.config = config
        self.variants = {v.name: v for v in variants}
        self._variant_list = variants
        self._validate_options = validate_options
        self._store = store
        self._inbox: asyncio.Queue[tuple[str, int, object]] = asyncio.Queue()
        self._conns: dict[int, _Conn] = {}
        self._online: dict[str, int] = {}  # name key -> conn id
        self._reservations: dict[str, str] = {}  # name key -> fingerprint
        self._tables: dict[str, _Table] = {}
        self._chat: deque[p.ChatLine] = deque(maxlen=CHAT_HISTORY)
        self._ids = itertools.count(1)
        self._writes: set[asyncio.Future[None]] = set()
        self._lagging: set[int] = set()  # conns to drop once the current step is done
        self._holds: dict[int, int] = {}  # id(occupant) -> the token of its latest hold
        self._restoring: dict[str, _Table] = {}  # open tables whose game is not rebuilt yet
        self._records: list[TableRecord] = []  # their rows, until the restore starts
        self._stopped_at: float | None = None  # when the last run was last seen alive
        self._checked: asyncio.Future[None] | None = None  # the database check, if running
        self._background: list[asyncio.Task[None]] = []  # the restore, the "alive" marks
        self.restored = asyncio.Event()  # every table of the last run is back

    # -- wiring ----------------------------------------------------------------
    async def load(self, checked: "asyncio.Future[None] | None" = None, restore: bool = True) -> None:
        """What the server needs before it listens; the tables' games restore after
        (``restore=False``: when ``restore_tables`` is called, e.g. once the server listens).

        ``checked``: the database's integrity check, if still running: tables are rebuilt
        meanwhile but none plays (or writes) before it passed.
        """
        if self._store is None:
            self.restored.set()
        else:
            for r in await self._store.reservations():
                self._reservations[r.name_key] = r.fingerprint
            self._stopped_at = await self._store.last_alive()
            self._records = await self._store.table_index()
            for record in self._records:
                self._restoring[record.table_id] = self._table_from_record(record)
            self._checked = checked
            if restore:
                self.restore_tables()
        self._start_demo_tables()

    def restore_tables(self) -> None:
        """Start rebuilding the open tables in the background (after ``load``)."""
        if self._store is None or self._background:
            return
        loop = asyncio.get_running_loop()
        records, self._records = self._records, []
        self._background = [
            loop.create_task(self._restore_all(records, self._stopped_at, self._checked), name="restore"),
            loop.create_task(self._keep_alive(self._store), name="alive"),
        ]

    async def _keep_alive(self, store: Store) -> None:
        while True:
            try:
                self._persist(store.mark_alive())
            except RuntimeError:  # the store was closed (a test that stops only the hub)
                return
            await asyncio.sleep(ALIVE_EVERY)

    @staticmethod
    def _table_from_record(record: TableRecord) -> _Table:
        return _Table(
            table_id=record.table_id, title=record.title, variant=record.variant,
            owner=record.owner, seats=[Occupant.from_record(d) for d in record.seats],
            options=dict(record.options), private=record.private, code=record.code,
            turn_timer=record.turn_timer, demo=record.demo,
        )

    async def _restore_all(self, records: list[TableRecord], stopped_at: float | None,
                           checked: "asyncio.Future[None] | None") -> None:
        """Rebuild the open tables a few at a time; each goes to the hub as soon as it is back
        (and the database check passed).

        The next few tables are read from the store (writer thread) while these are replayed.
        """
        assert self._store is not None
        began = time.monotonic()
        ready: list[tuple[str, TableActor | None]] = []
        chunks = [records[i:i + RESTORE_CHUNK] for i in range(0, len(records), RESTORE_CHUNK)]
        loading = asyncio.ensure_future(self._store.load_matches(chunks[0])) if chunks else None
        for number, chunk in enumerate(chunks):
            assert loading is not None
            try:
                await loading
            except Exception:  # reported; their players are told, the log is left as it is
                log.exception("cannot read the logs of %d tables", len(chunk))
                ready.extend((record.table_id, None) for record in chunk)
                chunk = []
            if number + 1 < len(chunks):
                loading = asyncio.ensure_future(self._store.load_matches(chunks[number + 1]))
            for record in chunk:
                ready.append((record.table_id, await self._rebuild(record, stopped_at)))
                record.events = []  # read once; the actor holds what it needs
            if checked is None or checked.done():
                if not self._release(ready, checked):
                    return
            await asyncio.sleep(0)  # connections and restored tables get their turn
        if checked is not None:
            await asyncio.wait([checked])
        if self._release(ready, checked):
            self._inbox.put_nowait(("restore_done", 0, (len(records), time.monotonic() - began)))

    def _release(self, ready: list[tuple[str, TableActor | None]],
                 checked: "asyncio.Future[None] | None") -> bool:
        """Hand the rebuilt tables to the hub, unless the database check failed."""
        if checked is not None and (checked.cancelled() or checked.exception() is not None):
            log.error("the database check failed: no table is restored")
            return False
        for item in ready:
            self._inbox.put_nowait(("restored", 0, item))
        ready.clear()
        return True

    async def _rebuild(self, record: TableRecord, stopped_at: float | None) -> TableActor | None:
        """A table's actor at the state its log replays to (None: reported, left for the operator)."""
        assert self._store is not None
        table = self._restoring.get(record.table_id)
        if table is None:
            return None
        actor = self._new_actor(table, seed=record.seed)
        try:
            try:
                actor.restore(record.events, record.snapshot, stopped_at)
            except StaleSnapshot as exc:
                log.warning("table %s: %s; replaying its match from the start", record.table_id, exc)
                assert record.snapshot is not None
                rows = await self._store.match_events(record.table_id, record.snapshot.match_no)
                actor = self._new_actor(table, seed=record.seed)
                actor.restore(rows, None, stopped_at)
        except Exception as exc:  # one bad log must not keep the other tables from coming back
            # Reported, and the log is left as it is for the operator: never overwritten.
            log.error("table %s cannot be restored from its log: %r", record.table_id, exc)
            return None
        return actor

    def _install(self, table_id: str, actor: TableActor | None) -> None:
        """A restored table joins the lobby; whoever came back for it meanwhile sits down."""
        table = self._restoring.pop(table_id, None)
        if table is None:
            return
        waiting = [
            (index, o) for index, o in enumerate(table.seats)
            if o is not None and o.conn_id is not None and self._waits_here(o.conn_id, table_id, index)
        ]
        if actor is None or actor.state is None or not (table.people() or table.demo):
            if actor is not None:
                self._close_in_store(table_id)
            for _, occupant in waiting:
                conn = self._conns[occupant.conn_id]  # type: ignore[index]
                conn.table_id, conn.seat = None, None
                self._send(conn, self._snapshot())
                self._send(conn, p.Seated())
                self._error(conn, "no_table", "that table could not be restored")
            return
        table.actor = actor
        self._tables[table_id] = table
        if self.config.log_digests:  # every view rendered and hashed: a millisecond a table
            log.info("restored table %s match %s seq %s digest %s", table_id, actor.match_no,
                     actor.seq, state_digest(actor.state, len(table.seats)))
        else:
            log.info("restored table %s match %s seq %s", table_id, actor.match_no, actor.seq)
        back = {id(o) for _, o in waiting}
        for index, seated in enumerate(table.seats):
            assert seated is not None
            if id(seated) in back:
                actor.post(tm.Rejoin(seated.conn_id, index))
                continue
            if seated.conn_id is not None:  # came back for it, then left before it was back
                actor.viewers.pop(seated.conn_id, None)
                seated.conn_id, seated.away = None, True
            if seated.away:
                self._hold(table, index, seated)
        actor.start()
        self._table_changed(table)

    def _waits_here(self, conn_id: int, table_id: str, seat: int) -> bool:
        conn = self._conns.get(conn_id)
        return conn is not None and conn.table_id == table_id and conn.seat == seat

    def _start_demo_tables(self) -> None:
        tables = itertools.chain(self._tables.values(), self._restoring.values())
        wanted = self.config.demo_bot_tables - sum(1 for t in tables if t.demo)
        for i in range(max(0, wanted)):
            players = (2, 4, 6)[i % 3]
            options = self._validate_options("argentino", players, {"target": 15, "match_games": 1})
            table = _Table(
                table_id=self._new_table_id(), title=f"Demo {i + 1}", variant="argentino",
                owner="demo", seats=[Occupant(f"Bot {n + 1}", None, bot=True) for n in range(players)],
                options=options, private=False, code="", demo=True,
            )
            self._tables[table.table_id] = table
            self._maybe_start(table)

    def connect(self, ip: str, username: str, fingerprint: str | None) -> HubLink:
        """Open a connection for a verified SSH peer; called by the SSH layer only."""
        conn_id = next(self._ids)
        link = HubLink(self._inbox, conn_id)
        peer = Peer(conn_id, ip, username, fingerprint)
        self._inbox.put_nowait(("open", conn_id, (peer, link)))
        return link

    def reserved_fingerprint(self, key: str) -> str | None:
        """The fingerprint a name (by ``name_key``) is reserved for, if any."""
        return self._reservations.get(key)

    @property
    def online_count(self) -> int:
        return len(self._conns)

    async def run(self) -> None:
        while True:
            kind, conn_id, payload = await self._inbox.get()
            try:
                if kind == "open":
                    peer, link = payload  # type: ignore[misc]
                    self._open(peer, link)
                elif kind == "frame":
                    self._frame(conn_id, payload)  # type: ignore[arg-type]
                elif kind == "close":
                    self._close(conn_id)
                elif kind == "hold_expired":
                    self._hold_expired(*payload)  # type: ignore[misc]
                elif kind == "restored":
                    self._install(*payload)  # type: ignore[misc]
                elif kind == "restore_done":
                    count, seconds = payload  # type: ignore[misc]
                    log.info("all %d open tables restored in %.2f s", count, seconds)
                    self.restored.set()
                elif kind == "result":
                    conn = self._conns.get(conn_id)
                    if conn is not None:
                        self._send(conn, payload)  # type: ignore[arg-type]
                elif kind == "shutdown":
                    self._shutdown(payload)  # type: ignore[arg-type]
                    return
            except Exception:  # one bad command must not stop the lobby for everyone
                log.exception("hub failed on %s from conn %s", kind, conn_id)
            self._drop_lagging()

    def _drop_lagging(self) -> None:
        # Dropped after the step, not inside a broadcast: closing broadcasts
        # PlayerLeft, which must not recurse into the broadcast being sent.
        while self._lagging:
            conn_id = self._lagging.pop()
            conn = self._conns.get(conn_id)
            if conn is not None:
                log.warning("conn %s (%s) is not reading its events: dropped", conn_id, conn.name)
                self._close(conn_id)

    def request_shutdown(self, notice: str = "shutdown") -> None:
        self._inbox.put_nowait(("shutdown", 0, notice))

    async def drain_writes(self) -> None:
        if self._writes:
            await asyncio.gather(*self._writes, return_exceptions=True)

    async def stop_tables(self) -> None:
        """Stop every table actor (their last events are appended first); for shutdown."""
        for task in self._background:
            task.cancel()
        await asyncio.gather(*self._background, return_exceptions=True)
        actors = [t.actor for t in self._tables.values() if t.actor is not None]
        await asyncio.gather(*(a.stop() for a in actors), return_exceptions=True)
        if self._store is not None and self._background:
            self._persist(self._store.mark_alive())  # the timers stopped now

    def _persist(self, future: "asyncio.Future[None] | None") -> None:
        if future is None:
            return
        self._writes.add(future)

        def done(f: "asyncio.Future[None]") -> None:
            self._writes.discard(f)
            if not f.cancelled() and f.exception() is not None:
                log.error("store write failed: %s", f.exception())

        future.add_done_callback(done)

    def _close_in_store(self, table_id: str) -> None:
        if self._store is not None:
            self._persist(self._store.close_table(table_id))

    def _save_seats(self, table: _Table) -> None:
        if self._store is not None and table.actor is not None:
            records = [o.to_record() for o in table.seats if o is not None]
            self._persist(self._store.update_seats(table.table_id, records))

    # -- connection lifecycle --------------------------------------------------
    def _open(self, peer: Peer, link: HubLink) -> None:
        cfg = self.config
        self._conns[peer.conn_id] = _Conn(
            peer,
            link,
            commands=TokenBucket(cfg.commands_per_second, cfg.commands_burst),
            chat=TokenBucket(cfg.chat_per_second, cfg.chat_burst),
        )

    def _close(self, conn_id: int) -> None:
        conn = self._conns.pop(conn_id, None)
        self._lagging.discard(conn_id)
        if conn is None:
            return
        conn.link.hang_up()
        if conn.name is None:
            return
        table = self._tables.get(conn.table_id or "")
        if table is not None and table.actor is not None and conn.seat is not None:
            self._away(conn, table)  # the seat is held for them (also for a rematch)
        else:
            self._leave_table(conn)
        if self._online.get(conn.key or "") == conn_id:
            del self._online[conn.key or ""]
        self._lobby_news(p.PlayerLeft(name=conn.name))

    def _shutdown(self, notice: str) -> None:
        frame = p.encode(p.Notice(code=notice))
        for conn in list(self._conns.values()):
            conn.link.deliver(frame)
            conn.link.hang_up()
        self._conns.clear()
        self._online.clear()

    # -- held seats ------------------------------------------------------------
    def _away(self, conn: _Conn, table: _Table) -> None:
        cid = conn.peer.conn_id
        seat = conn.seat
        conn.table_id, conn.seat = None, None
        assert table.actor is not None and seat is not None
        occupant = table.seats[seat]
        if occupant is None or occupant.conn_id != cid:
            return
        occupant.conn_id, occupant.away = None, True
        table.actor.post(tm.Away(cid))
        self._hold(table, seat, occupant)
        self._table_changed(table)

    def _hold(self, table: _Table, seat: int, occupant: Occupant) -> None:
        token = next(self._ids)
        self._holds[id(occupant)] = token
        loop = asyncio.get_running_loop()
        loop.call_later(self.config.seat_hold, self._inbox.put_nowait,
                        ("hold_expired", 0, (table.table_id, seat, occupant, token)))

    def _hold_expired(self, table_id: str, seat: int, occupant: Occupant, token: int) -> None:
        table = self._tables.get(table_id)
        if table is None or table.actor is None or table.seats[seat] is not occupant:
            return
        if occupant.conn_id is not None or not occupant.away or self._holds.get(id(occupant)) != token:
            return  # they came back (a later drop starts its own hold)
        del self._holds[id(occupant)]
        log.info("table %s seat %s: %s did not come back; a bot plays on", table_id, seat, occupant.name)
        occupant.away, occupant.bot = False, True
        table.actor.post(tm.Release(seat))
        self._save_seats(table)
        self._drop_if_empty(table)

    def _drop_if_empty(self, table: _Table) -> bool:
        """Remove a table nobody holds a seat at any more (True if removed)."""
        if table.people() or table.demo or table.table_id not in self._tables:
            if table.table_id in self._tables:
                self._table_changed(table)
            return False
        del self._tables[table.table_id]
        if table.actor is not None:
            table.actor.post(tm.Stop())
            self._close_in_store(table.table_id)
        for watcher in table.spectators:
            w = self._conns.get(watcher)
            if w is not None:
                w.table_id = None
                self._send(w, self._snapshot())
                self._send(w, p.Seated())
        self._lobby_news(p.TableRemoved(table_id=table.table_id), table_id=table.table_id)
        return True

    def _held_seat(self, *, fingerprint: str | None = None, code: str | None = None
                   ) -> tuple[_Table, int, Occupant] | None:
        """The seat a returning player holds: at a running table, one whose match is over
        (the rematch window: until the hold runs out), or one still being restored."""
        for table in itertools.chain(self._tables.values(), self._restoring.values()):
            if table.actor is None and table.table_id not in self._restoring:
                continue  # not started: nobody holds a seat there yet
            for index, occupant in enumerate(table.seats):
                if occupant is None or occupant.bot:
                    continue
                if fingerprint is not None and occupant.fingerprint == fingerprint:
                    return table, index, occupant
                if code and occupant.resume == code:
                    return table, index, occupant
        return None

    def _reclaim(self, conn: _Conn, table: _Table, seat: int, occupant: Occupant) -> None:
        """Put a returning player straight back into their seat."""
        if occupant.conn_id is not None and occupant.conn_id != conn.peer.conn_id:
            old = self._conns.get(occupant.conn_id)  # a second login: the new session wins
            if old is not None:
                self._send(old, p.Notice(code="replaced"))
                self._close(occupant.conn_id)
        if conn.table_id is not None:
            self._leave_table(conn)
        occupant.conn_id, occupant.away = conn.peer.conn_id, False
        conn.table_id, conn.seat = table.table_id, seat
        self._send(conn, p.Seated(table_id=table.table_id, seat=seat))
        if table.actor is not None:
            table.actor.post(tm.Rejoin(conn.peer.conn_id, seat))
            self._table_changed(table)
        else:  # still being restored: the table screen says so until it is back (_install)
            self._send(conn, p.TableUpdated(table=self._table_info(table)))
        self._lobby_news(p.PlayerUpdated(player=self._player_info(conn)))

    @staticmethod
    def _as_code(text: str) -> str:
        code = clean_text(text, 16).upper().replace(" ", "").replace("-", "")
        return code if len(code) == p.CODE_LEN and all(c in CODE_ALPHABET for c in code) else ""

    def _on_resume(self, conn: _Conn, msg: p.ResumeSeat) -> None:
        code = self._as_code(msg.code)
        found = self._held_seat(code=code) if code else None
        if found is None:
            self._error(conn, "bad_resume", "no seat is held with that code")
            return
        self._reclaim(conn, *found)

    # -- history -----------------------------------------------------------------
    def _later(self, conn: _Conn, work: "asyncio.Future[p.Message | None]") -> None:
        """Run a store query off the loop; its answer goes to ``conn`` through the inbox."""
        conn_id = conn.peer.conn_id

        async def run() -> None:
            try:
                message = await work
            except Exception:
                log.exception("store query failed")
                message = p.Error(code="storage", message="the game history is not available")
            if message is not None:
                self._inbox.put_nowait(("result", conn_id, message))

        task = asyncio.get_running_loop().create_task(run())
        self._persist(task)

    def _on_my_games(self, conn: _Conn, msg: p.MyGames) -> None:
        if self._store is None:
            self._send(conn, p.GamesList())
            return
        store, fp, key = self._store, conn.peer.fingerprint, conn.key or ""

        async def query() -> p.Message:
            games = await store.my_games(fp, key, limit=100)
            return p.GamesList(games=tuple(_summary(g) for g in games))

        self._later(conn, asyncio.ensure_future(query()))

    def _on_replay_hand(self, conn: _Conn, msg: p.ReplayHand) -> None:
        if self._store is None:
            self._error(conn, "no_game", "no such game")
            return
        store, fp, key = self._store, conn.peer.fingerprint, conn.key or ""

        async def query() -> p.Message:
            found = await store.game_log(msg.table_id, msg.match_no, fp, key)
            if found is None:
                return p.Error(code="no_game", message="no such game among yours")
            game, events = found
            hands = split_hands(events)
            if not 1 <= msg.hand <= len(hands):
                return p.Error(code="no_hand", message=f"that game has {len(hands)} hands")
            notation = engine.get_ruleset(game.variant).card_notation
            return p.ReplayStep(game=_summary(game), hand=msg.hand, events=tuple(hands[msg.hand - 1]),
                                hands=len(hands), card_notation=notation)

        self._later(conn, asyncio.ensure_future(query()))

    # -- sending ---------------------------------------------------------------
    def _send(self, conn: _Conn, message: p.Message) -> None:
        self._deliver(conn, p.encode(message))

    def _deliver(self, conn: _Conn, frame: bytes) -> None:
        conn_id = conn.peer.conn_id
        if conn_id not in self._lagging and not conn.link.deliver(frame):
            self._lagging.add(conn_id)

    def _send_frame(self, conn_id: int, frame: bytes) -> None:
        """How table actors reach a connection (frames are already encoded)."""
        conn = self._conns.get(conn_id)
        if conn is not None:
            self._deliver(conn, frame)
            if self._lagging:
                asyncio.get_running_loop().call_soon(self._drop_lagging)

    def _broadcast(self, message: p.Message, exclude: int | None = None,
                   reaches: Callable[[_Conn], bool] | None = None) -> None:
        frame = p.encode(message)  # once for everybody
        for conn in list(self._conns.values()):
            if (conn.name is not None and conn.peer.conn_id != exclude
                    and (reaches is None or reaches(conn))):
                self._deliver(conn, frame)

    def _lobby_news(self, message: p.Message, exclude: int | None = None,
                    table_id: str | None = None) -> None:
        """Lobby lists reach the players in the lobby (and, for one table's news, the people
        at that table); whoever is at a table gets a fresh snapshot on the way back. Sending
        every arrival and every seat change to every session made setting up many tables
        cost the server time in proportion to the square of the players."""
        self._broadcast(message, exclude, lambda conn: conn.table_id in (None, table_id))

    def _error(self, conn: _Conn, code: str, message: str) -> None:
        self._send(conn, p.Error(code=code, message=message[:400]))

    # -- commands --------------------------------------------------------------
    def _frame(self, conn_id: int, data: bytes) -> None:
        conn = self._conns.get(conn_id)
        if conn is None:
            return
        try:
            message = p.decode(data)
        except p.ProtocolError as exc:
            conn.bad_frames += 1
            self._error(conn, "bad_frame", str(exc))
            if conn.bad_frames >= BAD_FRAMES_BEFORE_DROP:
                self._close(conn_id)
            return
        if not isinstance(message, p.Command):
            self._error(conn, "bad_frame", f"{message.TYPE} is not a command")
            return
        if not conn.commands.take():
            log.debug("conn %s (%s): command rate limited", conn.peer.conn_id, conn.name)
            now = time.monotonic()
            if now - conn.last_rate_error > 1.0:  # one error a second, not one per command
                conn.last_rate_error = now
                self._error(conn, "rate_limited", "too many commands; slow down")
            return
        if conn.name is None and not isinstance(message, (p.ClaimName, p.Ping)):
            self._error(conn, "no_name", "choose a name first")
            return
        handler = getattr(self, "_on_" + message.TYPE)  # every Command type has one
        handler(conn, message)

    def _on_ping(self, conn: _Conn, msg: p.Ping) -> None:
        self._send(conn, p.Pong(n=msg.n))

    def _on_claim_name(self, conn: _Conn, msg: p.ClaimName) -> None:
        if conn.name is not None:
            self._error(conn, "has_name", "you already have a name")
            return
        name = msg.name
        fp = conn.peer.fingerprint
        resuming = self._held_seat(code=self._as_code(name)) if fp is None else None
        if resuming is not None:  # `ssh CODE@host`: the guest's seat, under their old name
            occupant = resuming[2]
            if occupant.conn_id is not None:
                old = self._conns.get(occupant.conn_id)
                if old is not None:
                    self._send(old, p.Notice(code="replaced"))
                    self._close(occupant.conn_id)
            name = occupant.name if not self._name_refusal(occupant.name, None) else self._suggest(occupant.name, None)
        refusal = self._name_refusal(name, fp)
        if refusal:
            self._send(
                conn, p.NameRefused(name=name[:64], reason=refusal, suggestion=self._suggest(name, fp))
            )
            return
        key = name_key(name)
        previous = self._online.get(key)
        if previous is not None:  # same key-holder logging in again: the new session wins
            old = self._conns.get(previous)
            if old is not None:
                self._send(old, p.Notice(code="replaced"))
                self._close(previous)
        conn.name = name
        self._online[key] = conn.peer.conn_id
        if fp is not None and key not in self._reservations:
            self._reservations[key] = fp
            self._persist_reservation(key, name, fp)
        self._send(
            conn,
            p.Welcome(
                name=name, guest=fp is None, variants=self._variant_list,
                chat_max=self.config.chat_max_len,
            ),
        )
        self._send(conn, self._snapshot())
        self._lobby_news(p.PlayerUpdated(player=self._player_info(conn)), exclude=conn.peer.conn_id)
        if resuming is None and fp is not None:
            resuming = self._held_seat(fingerprint=fp)
        if resuming is not None:
            self._reclaim(conn, *resuming)

    def _name_refusal(self, name: str, fp: str | None) -> str:
        if not valid_name(name):
            return "invalid"
        key = name_key(name)
        if key in RESERVED_KEYS:
            return "reserved_word"
        owner = self._reservations.get(key)
        if owner is not None and owner != fp:
            return "reserved_key"
        online = self._online.get(key)
        if online is not None:
            holder = self._conns.get(online)
            if fp is None or holder is None or holder.peer.fingerprint != fp:
                return "taken"
        return ""

    def _suggest(self, name: str, fp: str | None) -> str:
        stem = name_stem(name) or "player"
        if usable_name(stem) and not self._name_refusal(stem, fp):
            return stem
        stem = stem[:13]
        for n in itertools.chain(range(2, 100), (secrets.randbelow(900) + 100 for _ in range(50))):
            candidate = f"{stem}{n}"
            if not self._name_refusal(candidate, fp):
                return candidate
        return ""

    def _persist_reservation(self, key: str, name: str, fp: str) -> None:
        if self._store is None:
            return
        task = asyncio.get_running_loop().create_task(self._store.reserve(key, name, fp))
        self._writes.add(task)
        task.add_done_callback(self._writes.discard)

    def _on_send_chat(self, conn: _Conn, msg: p.SendChat) -> None:
        text = clean_text(msg.text, self.config.chat_max_len)
        if not text:
            return
        if not conn.chat.take():
            self._error(conn, "chat_rate", "you are chatting too fast")
            return
        line = p.ChatLine(sender=conn.name or "", text=text, ts=int(time.time()))
        self._chat.append(line)
        self._broadcast(p.Chat(line=line))

    def _on_create_table(self, conn: _Conn, msg: p.CreateTable) -> None:
        variant = self.variants.get(msg.variant)
        if variant is None:
            self._error(conn, "bad_table", f"unknown variant {msg.variant!r:.30}")
            return
        if not variant.implemented:
            self._error(conn, "not_playable", f"{variant.title}: coming soon, not playable yet")
            return
        if msg.players not in variant.player_counts:
            self._error(conn, "bad_table", f"{variant.title} is not played by {msg.players}")
            return
        try:
            options = self._validate_options(msg.variant, msg.players, dict(msg.options))
        except ValueError as exc:
            self._error(conn, "bad_table", str(exc))
            return
        self._leave_table(conn)
        title = clean_text(msg.title, p.TITLE_MAX) or f"{conn.name}"
        table_id = self._new_table_id()
        code = self._new_code() if msg.private else ""
        timer = msg.turn_timer
        if timer is None:  # strangers wait for nobody; friends at a private table need no clock
            timer = 0 if msg.private else DEFAULT_PUBLIC_TURN_TIMER
        table = _Table(
            table_id=table_id, title=title, variant=msg.variant, owner=conn.name or "",
            seats=[None] * msg.players, options=options, private=msg.private, code=code,
            turn_timer=timer,
        )
        self._tables[table_id] = table
        self._send(conn, p.TableCreated(table_id=table_id, code=code))
        self._sit(conn, table, 0)

    def _on_join_table(self, conn: _Conn, msg: p.JoinTable) -> None:
        table = self._tables.get(msg.table_id)
        if table is None:
            self._error(conn, "no_table", "that table is gone")
            return
        if table.private and conn.peer.conn_id not in table.invited and not self._is_at(conn, table):
            self._error(conn, "private", "this table is private: join it with its code")
            return
        if table.actor is not None:
            self._error(conn, "playing", "the game has started: watch it instead")
            return
        seat = msg.seat
        if seat is None:
            seat = next((i for i, s in enumerate(table.seats) if s is None), None)
            if seat is None:
                self._error(conn, "table_full", "no free seat at that table")
                return
        if seat >= len(table.seats):
            self._error(conn, "bad_seat", "no such seat")
            return
        if table.seats[seat] is not None:
            self._error(conn, "seat_taken", "that seat is taken")
            return
        self._sit(conn, table, seat)

    def _on_join_code(self, conn: _Conn, msg: p.JoinByCode) -> None:
        code = clean_text(msg.code, 16).upper().replace(" ", "")
        table = next((t for t in self._tables.values() if t.code and t.code == code), None)
        if table is None:
            self._error(conn, "bad_code", "no table has that code")
            return
        table.invited.add(conn.peer.conn_id)
        self._on_join_table(conn, p.JoinTable(table_id=table.table_id))

    def _on_leave_table(self, conn: _Conn, msg: p.LeaveTable) -> None:
        if conn.table_id != msg.table_id:
            self._error(conn, "not_at_table", "you are not at that table")
            return
        self._leave_table(conn)
        self._send(conn, p.Seated())

    def _on_watch_table(self, conn: _Conn, msg: p.WatchTable) -> None:
        table = self._tables.get(msg.table_id)
        if table is None:
            self._error(conn, "no_table", "that table is gone")
            return
        if table.private and conn.peer.conn_id not in table.invited:
            self._error(conn, "private", "this table is private: join it with its code")
            return
        if conn.table_id == table.table_id and conn.seat is None:
            return
        self._leave_table(conn)
        table.spectators.add(conn.peer.conn_id)
        conn.table_id, conn.seat = table.table_id, None
        self._send(conn, p.Seated(table_id=table.table_id, code=table.code))
        if table.actor is not None:
            table.actor.post(tm.Watch(conn.peer.conn_id))
        self._table_changed(table)
        self._lobby_news(p.PlayerUpdated(player=self._player_info(conn)))

    # -- tables ----------------------------------------------------------------
    def _is_at(self, conn: _Conn, table: _Table) -> bool:
        return conn.table_id == table.table_id

    def _sit(self, conn: _Conn, table: _Table, seat: int) -> None:
        if conn.table_id is not None:
            self._leave_table(conn)
        table.seats[seat] = Occupant(name=conn.name or "", conn_id=conn.peer.conn_id)
        conn.table_id, conn.seat = table.table_id, seat
        self._send(conn, p.Seated(table_id=table.table_id, seat=seat, code=table.code))
        self._table_changed(table)
        self._lobby_news(p.PlayerUpdated(player=self._player_info(conn)))
        self._maybe_start(table)

    def _maybe_start(self, table: _Table) -> None:
        if table.actor is not None or any(s is None for s in table.seats):
            return
        seats = [s for s in table.seats if s is not None]
        for occupant in seats:
            if occupant.conn_id is not None:
                conn = self._conns.get(occupant.conn_id)
                occupant.fingerprint = conn.peer.fingerprint if conn is not None else None
                if occupant.fingerprint is None:
                    occupant.resume = self._new_resume_code()
        actor = self._new_actor(table)
        table.actor = actor
        if self._store is not None:  # queued before the actor's first append
            self._persist(self._store.create_table(TableRecord(
                table_id=table.table_id, title=table.title, variant=table.variant,
                options=dict(table.options), owner=table.owner, private=table.private,
                code=table.code, turn_timer=table.turn_timer,
                seats=[o.to_record() for o in seats], seed=actor.seed, demo=table.demo,
            )))
        for watcher in table.spectators:
            actor.viewers[watcher] = None
        actor.start()
        self._table_changed(table)

    def _new_actor(self, table: _Table, seed: str | None = None) -> TableActor:
        seats = [s for s in table.seats if s is not None]
        return TableActor(
            table.table_id, table.variant, dict(table.options), seats, self._send_frame,
            turn_timer=table.turn_timer, pace=self.pace, seed=seed, store=self._store,
            title=table.title, auto_rematch=table.demo,
            on_change=lambda actor: self._table_changed(table),
        )

    def _new_resume_code(self) -> str:
        tables = itertools.chain(self._tables.values(), self._restoring.values())
        taken = {o.resume for t in tables for o in t.seats if o is not None}
        while True:
            code = "".join(secrets.choice(CODE_ALPHABET) for _ in range(p.CODE_LEN))
            if code not in taken:
                return code

    def _leave_table(self, conn: _Conn) -> None:
        table = self._tables.get(conn.table_id or "")
        conn.table_id, conn.seat = None, None
        if table is None:
            return
        cid = conn.peer.conn_id
        if cid in self._conns:  # back in the lobby: its lists moved on meanwhile
            self._send(conn, self._snapshot())
        table.spectators.discard(cid)
        if table.actor is not None:
            for occupant in table.seats:
                if occupant is not None and occupant.conn_id == cid:
                    occupant.conn_id, occupant.bot, occupant.away = None, True, False  # a bot plays on
            table.actor.post(tm.Leave(cid))
            self._save_seats(table)
        else:
            table.seats = [None if s is not None and s.conn_id == cid else s for s in table.seats]
        self._drop_if_empty(table)
        if conn.name is not None and cid in self._conns:
            self._lobby_news(p.PlayerUpdated(player=self._player_info(conn)))

    def _table_changed(self, table: _Table) -> None:
        if table.table_id not in self._tables:
            return
        info = self._table_info(table)
        if info != table.last_info:  # actors report every move; the lobby sees only changes
            table.last_info = info
            self._lobby_news(p.TableUpdated(table=info), table_id=table.table_id)

    def _table_info(self, table: _Table) -> p.TableInfo:
        if table.table_id in self._restoring:
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
        )

    # -- at the table ------------------------------------------------------------------
    def _my_table(self, conn: _Conn, table_id: str) -> _Table | None:
        table = self._tables.get(table_id)
        if table is None or conn.table_id != table_id:
            self._error(conn, "not_at_table", "you are not at that table")
            return None
        return table

    def _on_add_bot(self, conn: _Conn, msg: p.AddBot) -> None:
        table = self._my_table(conn, msg.table_id)
        if table is None:
            return
        if table.owner != conn.name:
            self._error(conn, "not_owner", "only the table's creator can add bots")
            return
        if table.actor is not None:
            self._error(conn, "playing", "the game has already started")
            return
        free = [i for i, s in enumerate(table.seats) if s is None]
        seat = msg.seat if msg.seat is not None else (free[0] if free else None)
        if seat is None or seat not in free:
            self._error(conn, "seat_taken", "no free seat for a bot")
            return
        number = sum(1 for s in table.seats if s is not None and s.bot) + 1
        table.seats[seat] = Occupant(name=f"Bot {number}", conn_id=None, bot=True)
        self._table_changed(table)
        self._maybe_start(table)

    def _on_act(self, conn: _Conn, msg: p.TableAction) -> None:
        table = self._my_table(conn, msg.table_id)
        if table is None:
            return
        if table.actor is None:
            self._error(conn, "not_started", "the game has not started yet")
            return
        table.actor.post(tm.Act(conn.peer.conn_id, msg))

    def _on_table_chat(self, conn: _Conn, msg: p.TableChat) -> None:
        table = self._my_table(conn, msg.table_id)
        if table is None or table.actor is None:
            return
        if not conn.chat.take():
            self._error(conn, "chat_rate", "you are chatting too fast")
            return
        table.actor.post(tm.Chat(conn.peer.conn_id, conn.name or "", msg.text))

    def _on_rematch(self, conn: _Conn, msg: p.Rematch) -> None:
        table = self._my_table(conn, msg.table_id)
        if table is None or table.actor is None:
            return
        table.actor.post(tm.Rematch(conn.peer.conn_id))

    def _new_table_id(self) -> str:
        while True:
            table_id = "t" + secrets.token_hex(3)
            if table_id not in self._tables:
                return table_id

    def _new_code(self) -> str:
        taken = {t.code for t in self._tables.values()}
        while True:
            code = "".join(secrets.choice(CODE_ALPHABET) for _ in range(p.CODE_LEN))
            if code not in taken:
                return code

    # -- snapshots ---------------------------------------------------------------
    def _player_info(self, conn: _Conn) -> p.PlayerInfo:
        return p.PlayerInfo(name=conn.name or "", guest=conn.peer.fingerprint is None, table_id=conn.table_id)

    def _snapshot(self) -> p.LobbySnapshot:
        return p.LobbySnapshot(
            players=tuple(self._player_info(c) for c in self._conns.values() if c.name),
            tables=tuple(self._table_info(t) for t in self._tables.values()),
            chat=tuple(self._chat),
        )


def _summary(game: GameRecord) -> p.GameSummary:
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
