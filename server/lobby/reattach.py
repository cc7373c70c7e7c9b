"""Sessions that outlive their lobby host (cluster mode), attached again to the new one.

When the lobby host dies, the sessions held by the other processes stay connected: their
front end sends each one to the new host (``Attached``) with what it was there: its name,
where it was, a guest's resume code. The front end could be wrong or lying, so the new host
believes only what its own state confirms, by the rules a returning player meets anyway:

- the name is taken back only if this connection may use it now (``Names.refusal``: a
  name another key reserved, or that someone else took meanwhile, is refused and the
  session asked for another, as at a ``ClaimName``);
- a seat is given back only to the key, or the guest's resume code, the table knows
  (``Seats.held_seat``, as when a player reconnects); never from the table id it names;
- a spectator watches again a public table, or a private one whose code it gives (the code
  it was told when it came to watch: as if it typed it again);
- anything else: back in the lobby, with its lists.

No ``Welcome`` is sent: the session's screens stay where they are and get what changed
(the lobby's lists, or its table again from the table's owner). A table still being
restored is watched again once it is back (``installed``).

A session not given back its place is away at its table's owner at once (a seat stays held,
as the lobby's is), or as soon as a table still being restored is back: until then the
owner keeps its place for it and sends it the table's frames (server/cluster/owner.py).
"""
from __future__ import annotations

import asyncio
import logging
from typing import Callable

import protocol as p
from protocol.text import name_key
from server.lobby.messages import Attached
from server.lobby.names import Names
from server.lobby.seats import Seats
from server.lobby.sessions import Sessions
from server.lobby.state import Conn, LobbyState, Table
from server.table import messages as tm

log = logging.getLogger(__name__)

Watch = Callable[[Conn, p.WatchTable], None]  # the directory's: start watching a table


class Reattach:
    def __init__(self, state: LobbyState, sessions: Sessions, seats: Seats, names: Names,
                 watch: Watch) -> None:
        self._state = state
        self._sessions = sessions
        self._seats = seats
        self._names = names
        self._watch = watch
        # Sessions whose table is still being restored: conn id -> table id (one each, so
        # these are bounded by the connections); spectators to watch it again...
        self._watch_later: dict[int, str] = {}
        # ...and sessions not given back their place, to be away at its owner
        self._away_later: dict[int, str] = {}

    def attach(self, message: Attached) -> None:
        state, peer = self._state, message.peer
        if peer.conn_id in state.conns:  # the gateway refuses known ids; never replace one here
            return
        self._sessions.open(peer, message.link)
        conn = state.conns[peer.conn_id]
        if not self._name(conn, message.name):
            self._away(conn.peer.conn_id, message.table_id)
            return
        if state.presence is not None:
            state.presence(conn)
        state.lobby_news(p.PlayerUpdated(player=state.player_info(conn)), exclude=peer.conn_id)
        self._place(conn, message)
        log.info("conn %s (%s) attached again: %s", peer.conn_id, conn.name,
                 f"table {conn.table_id} seat {conn.seat}" if conn.table_id else
                 f"waits for table {self._watch_later[peer.conn_id]}" if peer.conn_id in self._watch_later
                 else "lobby")

    def _name(self, conn: Conn, name: str) -> bool:
        """Take the name back if this connection may use it (False: it was told otherwise)."""
        state, fp = self._state, conn.peer.fingerprint
        refusal = self._names.refusal(name, fp)
        holder = state.conns.get(state.online.get(name_key(name), 0)) if not refusal else None
        if holder is not None and fp is not None and holder.peer.fingerprint == fp:
            # The same key came back meanwhile through a new session: that one won
            state.send(conn, p.Notice(code="replaced"))
            self._sessions.close(conn.peer.conn_id)
            return False
        if holder is not None:
            refusal = "taken"
        if refusal:  # the session is asked for a name, as after a refused ClaimName
            state.send(conn, p.NameRefused(name=name[:64], reason=refusal, suggestion=self._names.suggest(name, fp)))
            return False
        key = name_key(name)
        conn.name = name
        state.online[key] = conn.peer.conn_id
        if fp is not None and key not in state.reservations:  # the old host had not written it yet
            state.reservations[key] = fp
            state.reserved_names[key] = name
            self._reserve(key, name, fp)
        return True

    def _reserve(self, key: str, name: str, fp: str) -> None:
        store = self._state.store
        if store is not None:
            task = asyncio.get_running_loop().create_task(store.reserve(key, name, fp))
            self._state.writes.add(task)
            task.add_done_callback(self._state.writes.discard)

    def _place(self, conn: Conn, message: Attached) -> None:
        """Where the session goes: its held seat, the public table it watched, or the lobby."""
        state, fp = self._state, conn.peer.fingerprint
        if fp is not None:
            held = self._seats.held_seat(fingerprint=fp)
        else:
            held = self._seats.held_seat(code=message.resume) if message.resume else None
        sitting = held[2].conn_id if held is not None else None
        if sitting is not None and sitting != conn.peer.conn_id and sitting in state.conns:
            held = None  # another live session (of the same key) sits there
        # (the seat may name this very session: the table's owner, which kept running, told the
        # new host who sits where; this session was just opened above, so it is in ``conns``)
        if held is not None:
            self._names.reclaim(conn, *held)
            return
        table_id = message.table_id
        if table_id is not None and message.seat is None:
            table = state.tables.get(table_id)
            if table is not None and self._may_watch(conn, table, message.code):
                self._watch(conn, p.WatchTable(table_id=table_id))
                return
            restoring = state.restoring.get(table_id)
            if restoring is not None and self._may_watch(conn, restoring, message.code):
                self._watch_later[conn.peer.conn_id] = table_id
                return
        self._to_lobby(conn, table_id)

    def watch_when_back(self, conn: Conn, table_id: str) -> bool:
        """Watch a table that is being restored (a new lobby host taking over, a restart)
        once it is back; False: it is not being restored. The lobby still lists it as it
        was: "that table is gone" told a person the opposite of the truth (make chaos:
        three terminals that pressed w at that moment waited for good)."""
        table = self._state.restoring.get(table_id)
        if table is None or table_id in self._state.tables:
            return False
        if table.private:
            self._state.error(conn, "private", "this table is private: join it with its code")
        else:
            self._watch_later[conn.peer.conn_id] = table_id
        return True

    @staticmethod
    def _may_watch(conn: Conn, table: Table, code: str) -> bool:
        """A public table, or a private one whose code the session knows (as if it had typed it)."""
        if not table.private:
            return True
        if not code or code != table.code:
            return False
        table.invited.add(conn.peer.conn_id)
        return True

    def _to_lobby(self, conn: Conn, table_id: str | None) -> None:
        state = self._state
        state.send_snapshot(conn)  # from the front end's copies in cluster mode
        self._away(conn.peer.conn_id, table_id)
        if table_id is not None:  # its table screen closes, and the player is told why
            log.info("conn %s (%s): its table is not given back after the host change", conn.peer.conn_id,
                     conn.name)
            state.send(conn, p.Seated())
            state.error(conn, "not_back", "the new lobby host could not put you back at that table")

    def _away(self, conn_id: int, table_id: str | None) -> None:
        """The session is not given back its place at ``table_id``: away at its owner, now or
        once the table is restored."""
        if table_id is None:
            return
        table = self._state.tables.get(table_id)
        if table is not None and table.actor is not None:
            table.actor.post(tm.Away(conn_id))  # a spectator's Away ends its watching
        elif table_id in self._state.restoring:
            self._away_later[conn_id] = table_id

    def installed(self, table_id: str) -> None:
        """A restored table is back (or could not be): its spectators watch it again, and
        the sessions not given back their place there are away."""
        table = self._state.tables.get(table_id)
        refused = [conn_id for conn_id, t in self._away_later.items() if t == table_id]
        for conn_id in refused:
            del self._away_later[conn_id]
            conn = self._state.conns.get(conn_id)
            if conn is not None and conn.table_id == table_id:
                continue  # it took its seat back meanwhile (a name claimed after a refusal)
            if table is not None and table.actor is not None:
                table.actor.post(tm.Away(conn_id))
        waiting = [conn_id for conn_id, t in self._watch_later.items() if t == table_id]
        for conn_id in waiting:
            del self._watch_later[conn_id]
            conn = self._state.conns.get(conn_id)
            if conn is None or conn.table_id is not None:
                continue  # gone, or somewhere else meanwhile
            if table is not None:
                self._watch(conn, p.WatchTable(table_id=table_id))
            else:
                self._to_lobby(conn, table_id)
