"""Restarts: the open tables of the last run, back from the store's event log.

``load`` reads only the list of open tables, so the server listens at once; the games
are rebuilt in the background, a few at a time (``restored`` is set when all are back).
A player whose table is not back yet is seated at once and sees it restoring, then the
table. Running tables, and tables whose match ended before a rematch, come back.
"""
from __future__ import annotations

import asyncio
import logging
import time

import protocol as p
from server.ops import metrics
from server.lobby.messages import RestoreDone, Restored
from server.lobby.quick import wait_for_people
from server.lobby.seats import Seats
from server.lobby.state import LobbyState, Table
from server.store import Store, TableRecord
from server.table import Occupant, StaleSnapshot, TableActor, state_digest
from server.table import messages as tm

log = logging.getLogger(__name__)

RESTORE_CHUNK = 25  # tables read and rebuilt per step of the restore (the loop runs between)
ALIVE_EVERY = 1.0  # seconds between "still running" marks (what a turn timer used up at a crash)


def table_from_record(record: TableRecord) -> Table:
    return Table(
        table_id=record.table_id, title=record.title, variant=record.variant,
        owner=record.owner, seats=[Occupant.from_record(d) if d else None for d in record.seats],
        options=dict(record.options), private=record.private, code=record.code,
        turn_timer=record.turn_timer, demo=record.demo, owner_starts=record.owner_starts,
        quick=record.quick, seed=record.seed, stored=True,
    )


class Restorer:
    def __init__(self, state: LobbyState, seats: Seats) -> None:
        self._state = state
        self._seats = seats
        self._records: list[TableRecord] = []  # the open tables' rows, until the restore starts
        self._stopped_at: float | None = None  # when the last run was last seen alive
        self._checked: asyncio.Future[None] | None = None  # the database check, if running
        self.background: list[asyncio.Task[None]] = []  # the restore, the "alive" marks
        self.restored = asyncio.Event()  # every table of the last run is back

    async def load(self, checked: "asyncio.Future[None] | None") -> None:
        """Read the reservations and the list of open tables (their games come later)."""
        state, store = self._state, self._state.store
        if store is None:
            self.restored.set()
            return
        for r in await store.reservations():
            state.reservations[r.name_key] = r.fingerprint
            state.reserved_names[r.name_key] = r.name
        self._stopped_at = await store.last_alive()
        self._records = await store.table_index()
        for record in self._records:
            state.restoring[record.table_id] = table_from_record(record)
        self._checked = checked

    def start(self) -> None:
        """Start rebuilding the open tables in the background (after ``load``)."""
        store = self._state.store
        if store is None or self.background:
            return
        loop = asyncio.get_running_loop()
        records, self._records = self._records, []
        self.background = [
            loop.create_task(self._restore_all(store, records, self._stopped_at, self._checked),
                             name="restore"),
            loop.create_task(self._keep_alive(store), name="alive"),
        ]

    async def _keep_alive(self, store: Store) -> None:
        while True:
            try:
                self._state.persist(store.mark_alive())
            except RuntimeError:  # the store was closed (a test that stops only the hub)
                return
            await asyncio.sleep(ALIVE_EVERY)

    async def _restore_all(self, store: Store, records: list[TableRecord], stopped_at: float | None,
                           checked: "asyncio.Future[None] | None") -> None:
        """Rebuild the open tables a few at a time; each goes to the hub as soon as it is back
        (and the database check passed).

        The next few tables are read from the store (writer thread) while these are replayed.
        """
        began = time.monotonic()
        ready: list[Restored] = []
        chunks = [records[i:i + RESTORE_CHUNK] for i in range(0, len(records), RESTORE_CHUNK)]
        loading = asyncio.ensure_future(store.load_matches(chunks[0])) if chunks else None
        for number, chunk in enumerate(chunks):
            assert loading is not None
            try:
                await loading
            except Exception:  # reported; their players are told, the log is left as it is
                log.exception("cannot read the logs of %d tables", len(chunk))
                ready.extend(Restored(record.table_id, None) for record in chunk)
                chunk = []
            if number + 1 < len(chunks):
                loading = asyncio.ensure_future(store.load_matches(chunks[number + 1]))
            for record in chunk:
                ready.append(Restored(record.table_id, await self._rebuild(store, record, stopped_at)))
                record.events = []  # read once; the actor holds what it needs
            if checked is None or checked.done():
                if not self._release(ready, checked):
                    return
            await asyncio.sleep(0)  # connections and restored tables get their turn
        if checked is not None:
            await asyncio.wait([checked])
        if self._release(ready, checked):
            self._state.inbox.put_nowait(RestoreDone(len(records), time.monotonic() - began))

    def _release(self, ready: list[Restored], checked: "asyncio.Future[None] | None") -> bool:
        """Hand the rebuilt tables to the hub, unless the database check failed."""
        if checked is not None and (checked.cancelled() or checked.exception() is not None):
            log.error("the database check failed: no table is restored")
            return False
        for item in ready:
            self._state.inbox.put_nowait(item)
        ready.clear()
        return True

    async def _rebuild(self, store: Store, record: TableRecord, stopped_at: float | None) -> TableActor | None:
        """A table's actor at the state its log replays to (None: reported, left for the operator)."""
        table = self._state.restoring.get(record.table_id)
        if table is None:
            return None
        actor = self._seats.new_actor(table, seed=record.seed)
        try:
            try:
                actor.restore(record.events, record.snapshot, stopped_at, record.senas, record.chat)
            except StaleSnapshot as exc:
                log.warning("table %s: %s; replaying its match from the start", record.table_id, exc)
                assert record.snapshot is not None
                rows = await store.match_events(record.table_id, record.snapshot.match_no)
                actor = self._seats.new_actor(table, seed=record.seed)
                actor.restore(rows, None, stopped_at, record.senas, record.chat)
        except Exception as exc:  # one bad log must not keep the other tables from coming back
            # Reported, and the log is left as it is for the operator: never overwritten.
            log.error("table %s cannot be restored from its log: %r", record.table_id, exc)
            return None
        return actor

    def install(self, restored: Restored) -> None:
        """A restored table joins the lobby; whoever came back for it meanwhile sits down."""
        state, table_id, actor = self._state, restored.table_id, restored.actor
        table = state.restoring.pop(table_id, None)
        if table is None:
            return
        waiting = [
            (index, o) for index, o in enumerate(table.seats)
            if o is not None and o.conn_id is not None and self._waits_here(o.conn_id, table_id, index)
        ]
        if actor is not None and actor.state is None and not actor.events and table.people():
            self._install_room(table, actor.seed, {id(o) for _, o in waiting})
            return
        if actor is None or actor.state is None or not (table.people() or table.demo):
            if actor is not None:
                state.close_in_store(table_id)
            for _, occupant in waiting:
                conn = state.conns[occupant.conn_id]  # type: ignore[index]
                conn.table_id, conn.seat = None, None
                state.send_snapshot(conn)
                state.send(conn, p.Seated())
                state.error(conn, "no_table", "that table could not be restored")
            return
        table.actor = actor
        state.tables[table_id] = table
        if state.config.log_digests:  # every view rendered and hashed: a millisecond a table
            log.info("restored table %s match %s seq %s digest %s", table_id, actor.match_no,
                     actor.seq, state_digest(actor.state, len(table.seats)))
        else:
            log.info("restored table %s match %s seq %s", table_id, actor.match_no, actor.seq)
        metrics.RESTORES.inc()
        back = {id(o) for _, o in waiting}
        for index, seated in enumerate(table.seats):
            assert seated is not None
            if id(seated) in back:
                actor.post(tm.Rejoin(seated.conn_id, index))  # type: ignore[arg-type]
                continue
            if seated.conn_id is not None:  # came back for it, then left before it was back
                actor.viewers.pop(seated.conn_id, None)
                seated.drop()
            if seated.away:
                self._seats.hold(table, index, seated)
        actor.start()
        state.table_changed(table)

    def _install_room(self, table: Table, seed: str, back: set[int]) -> None:
        """A table whose game never started (nothing in its log): its waiting room again,
        with who sat where. A key holder's seat is held for them as at a running table. A
        guest never saw the code of their seat, so after a restart it is free again; for a
        new lobby host of a cluster their session's front end knows the code and comes back
        with it within moments (server/lobby/reattach.py), so it is held that long.
        The creator starts a full one (even a table that would have started by itself: a
        crash came between its full seats and its first deal); one that starts once full
        (cluster mode keeps those too) still does, and a quick-play one waits for people
        again, then bots take its free seats."""
        state = self._state
        table.owner_starts, table.seed, table.stored = table.owner_starts or None not in table.seats, seed, True
        for index, seated in enumerate(table.seats):
            if seated is None or seated.bot or id(seated) in back:
                continue
            if seated.conn_id is not None:  # came back for it, then left before it was back
                seated.drop()
            if seated.fingerprint is None and state.reattach_grace and seated.resume:
                self._seats.hold(table, index, seated, state.reattach_grace)
            elif seated.fingerprint is None:
                table.seats[index] = None
            else:
                self._seats.hold(table, index, seated)
        people = [o.name for o in table.people()]
        if table.owner not in people and people:  # the creator had left it: the next person's
            table.owner = people[0]
        state.tables[table.table_id] = table
        log.info("restored the waiting room of table %s", table.table_id)
        self._seats.save_room(table)
        if not self._seats.drop_if_empty(table):
            state.table_changed(table)
            if table.quick and not table.owner_starts:
                wait_for_people(state, table)

    def _waits_here(self, conn_id: int, table_id: str, seat: int) -> bool:
        conn = self._state.conns.get(conn_id)
        return conn is not None and conn.table_id == table_id and conn.seat == seat
