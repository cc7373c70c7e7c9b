"""Quick play (``p`` in the lobby): a seat at the public table of the player's variant
and table size that is closest to starting, or a new public table that bots fill after a
short wait.

"Closest to starting" is the fewest free seats (the oldest table on a tie). A table opened
here waits ``ServerConfig.quick_fill_wait`` seconds for people; then bots take the seats
still free and the game starts (``FillWithBots`` comes back through the hub's inbox, so the
change happens in the hub's task like every other). Its seats are not chosen: it starts by
itself once full, with no waiting room (tables of 4 and 6 too).
"""
from __future__ import annotations

import asyncio

import protocol as p
from protocol.text import name_key
from server.lobby.directory import Directory
from server.lobby.messages import FillWithBots
from server.lobby.seats import Seats
from server.lobby.state import Conn, LobbyState, Table
from server.table import Occupant

QUICK_PLAYERS = 2  # a table opened by quick play when no size is asked: the fastest to fill


def wait_for_people(state: LobbyState, table: Table) -> None:
    """Bots take the free seats of quick ``table`` after ``quick_fill_wait`` seconds (when it
    is opened, and again when a new lobby host restores it: the old host's wait died with it)."""
    asyncio.get_running_loop().call_later(state.config.quick_fill_wait, state.inbox.put_nowait,
                                          FillWithBots(table.table_id))


class QuickPlay:
    def __init__(self, state: LobbyState, seats: Seats, directory: Directory) -> None:
        self._state = state
        self._seats = seats
        self._directory = directory

    def candidates(self, variant: str, conn: Conn, players: int | None = None) -> list[Table]:
        """Public tables of ``variant`` (and ``players`` seats, if given) still waiting for
        players, closest to starting first."""
        tables = [
            t for t in self._state.tables.values()
            if t.variant == variant and not t.private and not t.demo and t.actor is None
            and None in t.seats and t.table_id != conn.table_id and players in (None, len(t.seats))
            and not self._ignored_at(t, conn)
        ]
        return sorted(tables, key=lambda t: sum(1 for s in t.seats if s is None))  # (stable: oldest first)

    def _ignored_at(self, table: Table, conn: Conn) -> bool:
        """Someone at ``table`` whom ``conn`` ignores, or who ignores ``conn``: never seated
        together by quick play."""
        conns = self._state.conns
        for occupant in table.people():
            if name_key(occupant.name) in conn.ignoring:
                return True
            other = conns.get(occupant.conn_id) if occupant.conn_id is not None else None
            if other is not None and conn.key in other.ignoring:
                return True
        return False

    def on_quick_play(self, conn: Conn, msg: p.QuickPlay) -> None:
        variant = self._directory.variants.get(msg.variant)
        if variant is None or not variant.implemented:
            self._state.error(conn, "bad_table", f"unknown variant {msg.variant!r:.30}")
            return
        if msg.players is not None and msg.players not in variant.player_counts:
            self._state.error(conn, "bad_table", f"{variant.title} is not played by {msg.players}")
            return
        if (wait := self._seats.leavers.refused(conn)) is not None:  # quick play seats strangers
            self._state.send(conn, wait)
            return
        found = self.candidates(variant.name, conn, msg.players)
        if found:
            self._seats.sit(conn, found[0], found[0].seats.index(None))
            return
        players = msg.players or (QUICK_PLAYERS if QUICK_PLAYERS in variant.player_counts
                                  else variant.player_counts[0])
        self._directory.create(conn, p.CreateTable(  # titled like any: its owner
            variant=variant.name, players=players, options={}), owner_starts=False, quick=True)
        table = self._state.tables.get(conn.table_id or "")
        if table is not None and table.actor is None:
            wait_for_people(self._state, table)

    def fill(self, message: FillWithBots) -> None:
        """The wait is over: bots take the free seats of a quick table nobody else filled."""
        table = self._state.tables.get(message.table_id)
        if table is None or table.actor is not None or not table.people():
            return
        number = sum(1 for s in table.seats if s is not None and s.bot)
        for index, occupant in enumerate(table.seats):
            if occupant is None:
                number += 1
                table.seats[index] = Occupant(name=f"Bot {number}", conn_id=None, bot=True)
        self._state.table_changed(table)
        self._seats.maybe_start(table)
