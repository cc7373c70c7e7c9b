"""Commands for a table still being restored, kept until it is back.

A player seated again at a table that is still being rebuilt may act at it before it is
back: after a restart, when they came back at once; in cluster mode, when a new lobby host
takes over and their front end sends, right behind their attachment, what they did while
there was no host (server/cluster/held_input.py). Such commands wait for the table (a few
per connection; past those they are dropped) and are then handled in order, as if just
sent. A table that cannot come back refuses them as any gone table does.
"""
from __future__ import annotations

import protocol as p
from server.lobby.state import Conn, LobbyState

TABLE_COMMANDS = (p.TableAction, p.TableChat, p.MakeSena, p.Rematch)
KEPT_PER_CONN = 16


class EarlyCommands:
    def __init__(self, state: LobbyState) -> None:
        self._state = state
        # conn id -> its commands, in order, each with its frame's origin (server/origins.py)
        self._kept: dict[int, list[tuple[p.Command, str]]] = {}

    def keep(self, conn: Conn, message: p.Command) -> bool:
        """True: ``message`` is for the table ``conn`` sits at, not back yet: it waits."""
        if not isinstance(message, TABLE_COMMANDS) or conn.table_id is None:
            return False
        if message.table_id != conn.table_id or conn.table_id not in self._state.restoring:
            return False
        kept = self._kept.setdefault(conn.peer.conn_id, [])
        if len(kept) < KEPT_PER_CONN:
            kept.append((message, conn.origin))
        return True

    def released(self, table_id: str) -> list[tuple[Conn, p.Command, str]]:
        """The commands that waited for ``table_id`` (back now, or never), in order, each
        with its frame's origin."""
        out: list[tuple[Conn, p.Command, str]] = []
        for conn_id, kept in list(self._kept.items()):
            if not kept or kept[0][0].table_id != table_id:  # type: ignore[attr-defined]
                continue
            del self._kept[conn_id]
            conn = self._state.conns.get(conn_id)
            if conn is not None:
                out += [(conn, message, origin) for message, origin in kept]
        return out

    def forget(self, conn_id: int) -> None:
        self._kept.pop(conn_id, None)
