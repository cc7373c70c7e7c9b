"""Seats: sitting down, starting a full table, leaving, and the seats held for people away.

A seated player whose connection closes is marked away and the seat is held
(``ServerConfig.seat_hold``) for the same person, recognised by the key that signed (key
holders) or by the seat's resume code (guests). When the hold runs out a bot plays the
seat for good. This holds at a table whose match is over too: that is the rematch window.
"""
from __future__ import annotations

import asyncio
import itertools
import logging
import secrets
from typing import Callable

import protocol as p
from server.lobby.messages import HoldExpired, TableChanged
from server.lobby.leavers import Leavers
from server.lobby.state import Conn, LobbyState, Table
from server.store import TableRecord
from server.table import Occupant, Pace, TableActor
from server.table import messages as tm
from server.table.actor import Send
from server.table.moves import game_record

log = logging.getLogger(__name__)

CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"  # no 0/O, 1/I look-alikes


def new_code(taken: set[str]) -> str:
    """A fresh code (a private table's, or a guest's resume code) not in ``taken``."""
    while True:
        code = "".join(secrets.choice(CODE_ALPHABET) for _ in range(p.CODE_LEN))
        if code not in taken:
            return code


# Makes a table's actor (``TableActor``'s arguments): in cluster mode, a proxy for the process
# that runs the table (server/cluster/proxy.py)
ActorFactory = Callable[..., TableActor]


class Seats:
    def __init__(self, state: LobbyState, pace: Pace, send_frame: Send,
                 actor_factory: ActorFactory = TableActor) -> None:
        self._state = state
        self.pace = pace
        self._send_frame = send_frame  # how table actors reach a connection
        self._new_actor = actor_factory
        self._holds: dict[int, int] = {}  # id(occupant) -> the token of its latest hold
        self.leavers = Leavers()  # who left rated matches lately (and must wait)
        self._tokens = itertools.count(1)

    # -- sitting down and starting ------------------------------------------------------
    def sit(self, conn: Conn, table: Table, seat: int, entropy: str = "") -> None:
        """``entropy``: the person's random bytes (hex, checked) for the table's next match."""
        if conn.table_id is not None:
            self.leave_table(conn)
        occupant = Occupant(name=conn.name or "", conn_id=conn.peer.conn_id, fingerprint=conn.peer.fingerprint,
                            entropy=entropy)
        if occupant.fingerprint is None and self._stored_room(table):
            # A guest's code for a waiting room's seat: a new lobby host gives the seat back
            # to it (cluster mode: its front end keeps it, server/lobby/reattach.py); it is
            # their code for the game too
            occupant.resume = self._new_resume_code()
        table.seats[seat] = occupant
        conn.table_id, conn.seat = table.table_id, seat
        log.info("table %s seat %s: %s sits", table.table_id, seat, occupant.name,
                 extra={"session": conn.peer.conn_id, "table": table.table_id})
        self._state.send(conn, p.Seated(table_id=table.table_id, seat=seat, code=table.code))
        self._state.table_changed(table)
        self._state.player_moved(conn)
        self.save_room(table)
        self.maybe_start(table)

    def maybe_start(self, table: Table, by_owner: bool = False) -> bool:
        """Start the game of a full table: at once, or (a waiting room, ``owner_starts``)
        when its owner says so. The table's record goes to the store before the actor's
        first events, and the actor logs those before anyone sees them. True: started."""
        if table.actor is not None or any(s is None for s in table.seats):
            return False
        if table.owner_starts and not by_owner:
            return False
        seats = [s for s in table.seats if s is not None]
        for occupant in seats:
            if occupant.conn_id is not None:
                conn = self._state.conns.get(occupant.conn_id)
                occupant.fingerprint = conn.peer.fingerprint if conn is not None else None
                if occupant.fingerprint is None and not occupant.resume:
                    occupant.resume = self._new_resume_code()
                    if conn is not None and self._state.presence is not None:
                        self._state.presence(conn)  # cluster mode: its front end learns the code
        actor = self.new_actor(table, seed=table.seed)
        table.actor = actor
        log.info("table %s: %s for %d starts", table.table_id, table.variant, len(table.seats),
                 extra={"table": table.table_id})
        store = self._state.store
        if store is not None and table.stored:  # a waiting room, in the store since it opened
            self._state.persist(store.update_seats(table.table_id, [o.to_record() for o in seats]))
        elif store is not None:  # queued before the actor's first append
            self._state.persist(store.create_table(self._record(table, actor.seed)))
        for watcher in table.spectators:
            actor.viewers[watcher] = None
        actor.start()
        self._state.table_changed(table)
        return True

    def _record(self, table: Table, seed: str) -> TableRecord:
        """The table's row in the store; a free seat of a waiting room is ``{}``."""
        return TableRecord(
            table_id=table.table_id, title=table.title, variant=table.variant,
            options=dict(table.options), owner=table.owner, private=table.private,
            code=table.code, turn_timer=table.turn_timer,
            seats=[o.to_record() if o is not None else {} for o in table.seats], seed=seed, demo=table.demo,
            owner_starts=table.owner_starts, quick=table.quick,
        )

    def save_room(self, table: Table) -> None:
        """A waiting room is in the store from its first seat on, and every change of its
        seats after (its seed too: the game a restart brings back is the one it would have
        been), so a restart before its start keeps who sits where (``restore``)."""
        store = self._state.store
        if store is None or not self._stored_room(table) or table.actor is not None:
            return
        if not table.stored:
            table.stored = True
            self._state.persist(store.create_table(self._record(table, table.seed)))
        else:
            self._state.persist(store.update_seats(
                table.table_id, [o.to_record() if o is not None else {} for o in table.seats]))

    def _stored_room(self, table: Table) -> bool:
        """Whether a waiting table is in the store: a waiting room its owner starts; in
        cluster mode every one (a new lobby host gives its seats back: server/lobby/reattach.py)."""
        return (table.owner_starts or self._state.reattach_grace > 0) and not table.demo

    def new_actor(self, table: Table, seed: str | None = None) -> TableActor:
        seats = [s for s in table.seats if s is not None]
        return self._new_actor(
            table.table_id, table.variant, dict(table.options), seats, self._send_frame,
            turn_timer=table.turn_timer, pace=self.pace, seed=seed, store=self._state.store,
            title=table.title, auto_rematch=table.demo,
            on_change=lambda actor: self._state.inbox.put_nowait(TableChanged(table.table_id)),
        )

    def _new_resume_code(self) -> str:
        tables = itertools.chain(self._state.tables.values(), self._state.restoring.values())
        return new_code({o.resume for t in tables for o in t.seats if o is not None})

    def swap(self, table: Table, a: int, b: int) -> None:
        """Before the game: swap two seats (checked by the directory); everyone moved is told
        their new seat, and the table is shown again with its new partners."""
        table.seats[a], table.seats[b] = table.seats[b], table.seats[a]
        for index in (a, b):
            occupant = table.seats[index]
            moved = self._state.conns.get(occupant.conn_id) if occupant and occupant.conn_id else None
            if moved is not None and moved.table_id == table.table_id:
                moved.seat = index
                self._state.send(moved, p.Seated(table_id=table.table_id, seat=index, code=table.code))
        self._state.table_changed(table)
        self.save_room(table)

    # -- leaving ----------------------------------------------------------------------
    def leave_table(self, conn: Conn) -> None:
        state = self._state
        table = state.tables.get(conn.table_id or "")
        left_seat = conn.seat
        conn.table_id, conn.seat = None, None
        if table is None:
            return
        cid = conn.peer.conn_id
        if cid in state.conns:  # back in the lobby: its lists moved on meanwhile
            state.send_snapshot(conn)
        table.spectators.discard(cid)
        if table.actor is not None:
            for occupant in table.seats:
                if occupant is not None and occupant.conn_id == cid:
                    if (told := self.leavers.leaving(table, occupant)) is not None:
                        state.send(conn, told)
                    occupant.leave()  # a bot plays on
            table.actor.post(tm.Leave(cid))
            state.save_seats(table)
        else:
            table.seats = [None if s is not None and s.conn_id == cid else s for s in table.seats]
            if conn.name == table.owner and left_seat is not None:
                self._hand_over(table, left_seat)
            self.save_room(table)
        self.drop_if_empty(table)
        if conn.name is not None and cid in state.conns:
            state.player_moved(conn)

    def _hand_over(self, table: Table, left_seat: int) -> None:
        """The creator left the waiting room: the next person round the table (after the
        creator's seat, in the order of play) becomes its owner, who adds bots, moves
        seats and starts the game. Nobody left: the table goes (``drop_if_empty``)."""
        count = len(table.seats)
        for step in range(1, count):
            occupant = table.seats[(left_seat + step) % count]
            if occupant is not None and not occupant.bot and occupant.conn_id is not None:
                log.info("table %s: %s left the waiting room; %s is its owner now",
                         table.table_id, table.owner, occupant.name)
                table.owner = occupant.name
                return

    def drop_if_empty(self, table: Table) -> bool:
        """Remove a table nobody holds a seat at any more (True if removed)."""
        state = self._state
        if table.people() or table.demo or table.table_id not in state.tables:
            if table.table_id in state.tables:
                state.table_changed(table)
            return False
        self._remove(table, deserted=True)
        return True

    def close(self, table: Table, notice: p.Notice) -> int:
        """An operator closes ``table``: everyone at it is told (``notice``) and back in the
        lobby, and the match ends, abandoned by nobody (no one's loss). How many were told."""
        state = self._state
        at_it = [c for c in state.conns.values() if c.table_id == table.table_id]
        for conn in at_it:
            state.send(conn, notice)
            conn.table_id, conn.seat = None, None
        table.spectators.clear()
        self._remove(table, deserted=False)
        for conn in at_it:  # (the lobby's lists without the table)
            state.send_snapshot(conn)
            state.send(conn, p.Seated())
            if conn.name is not None:
                state.player_moved(conn)
        return len(at_it)

    def _remove(self, table: Table, deserted: bool) -> None:
        state = self._state
        del state.tables[table.table_id]
        if table.actor is not None:
            if deserted:
                self._deserted(table)
            table.actor.post(tm.Stop(deserted=deserted))
            state.close_in_store(table.table_id)
        elif table.stored:  # a waiting room everybody left
            state.close_in_store(table.table_id)
        for watcher in table.spectators:  # (an operator's close told them already, and cleared them)
            w = state.conns.get(watcher)
            if w is not None:
                w.table_id = None
                state.send(w, p.Notice(code="watched_table_gone"))  # not left wondering why
                state.send_snapshot(w)
                state.send(w, p.Seated())
        state.lobby_news(p.TableRemoved(table_id=table.table_id), table_id=table.table_id)

    def _deserted(self, table: Table) -> None:
        """Every person left before the match ended: abandoning a rated match is a loss,
        also when nobody stays to finish it (server/store/ratings.py says which are rated)."""
        actor, store = table.actor, self._state.store
        if actor is None or store is None or actor.finished or actor.state is None:
            return
        seats = [o for o in table.seats if o is not None]
        game, players = game_record(table.table_id, actor.match_no, table.variant, table.title,
                                    seats, actor.state, actor.chance.secret(actor.match_no).hex())
        self._state.persist(store.desert(game, players))

    # -- held seats ------------------------------------------------------------
    def away(self, conn: Conn, table: Table) -> None:
        """``conn`` dropped while seated at a running table: its seat is held for them."""
        cid = conn.peer.conn_id
        seat = conn.seat
        conn.table_id, conn.seat = None, None
        assert table.actor is not None and seat is not None
        occupant = table.seats[seat]
        if occupant is None or occupant.conn_id != cid:
            return
        occupant.drop()
        table.actor.post(tm.Away(cid))
        self.hold(table, seat, occupant)
        self._state.table_changed(table)

    def hold(self, table: Table, seat: int, occupant: Occupant, seconds: float | None = None) -> None:
        """Hold the seat for ``seconds`` (default: ``seat_hold``)."""
        token = next(self._tokens)
        self._holds[id(occupant)] = token
        loop = asyncio.get_running_loop()
        loop.call_later(self._state.config.seat_hold if seconds is None else seconds, self._state.inbox.put_nowait,
                        HoldExpired(table.table_id, seat, occupant, token))

    def hold_expired(self, expired: HoldExpired) -> None:
        table_id, seat, occupant = expired.table_id, expired.seat, expired.occupant
        table = self._state.tables.get(table_id)
        if table is None or table.seats[seat] is not occupant:
            return
        if occupant.conn_id is not None or not occupant.away or self._holds.get(id(occupant)) != expired.token:
            return  # they came back (a later drop starts its own hold)
        del self._holds[id(occupant)]
        if table.actor is None:  # a waiting room restored after a restart: the seat is free again
            log.info("table %s seat %s: %s did not come back to the waiting room", table_id, seat, occupant.name)
            self.free_room_seat(table, seat)
            return
        log.info("table %s seat %s: %s did not come back; a bot plays on", table_id, seat, occupant.name)
        self.leavers.leaving(table, occupant)  # (nobody to tell: they are gone)
        occupant.release()
        table.actor.post(tm.Release(seat))
        self._state.save_seats(table)
        self.drop_if_empty(table)

    def free_room_seat(self, table: Table, seat: int) -> None:
        """A waiting room's seat held for someone who did not come back after a restart."""
        occupant = table.seats[seat]
        table.seats[seat] = None
        if occupant is not None and occupant.name == table.owner:
            self._hand_over(table, seat)
        self.save_room(table)
        self.drop_if_empty(table)

    def held_seat(self, *, fingerprint: str | None = None, code: str | None = None
                  ) -> tuple[Table, int, Occupant] | None:
        """The seat a returning player holds: at a running table, one whose match is over
        (the rematch window: until the hold runs out), or one still being restored."""
        state = self._state
        for table in itertools.chain(state.tables.values(), state.restoring.values()):
            restoring = table.table_id in state.restoring
            for index, occupant in enumerate(table.seats):
                if occupant is None or occupant.bot:
                    continue
                if table.actor is None and not restoring and not occupant.away:
                    continue  # a waiting room's seats are held only after a restart
                if fingerprint is not None and occupant.fingerprint == fingerprint:
                    return table, index, occupant
                if code and occupant.resume == code:
                    return table, index, occupant
        return None
