"""What a front end remembers of each of its sessions, to attach it to a new lobby host.

When the lobby host dies, the sessions of the other processes stay connected (their SSH
connections never went through it): once another process is the host, the front end sends
it each session again, as a ``ConnAttach`` built from what the sessions' opening and the
old host's messages said (its ``ConnOpened``; the last ``PresenceEntry``: name and where;
a guest's seat code, ``ResumeCode``; a private table's code, from the last ``Seated``). An unnamed session is simply opened again. The new
host checks all of it against its own state (server/lobby/reattach.py).

Only the front end's own live sessions are kept (entries for other ids are ignored), so
what this holds is bounded by the connections the process accepts.
"""
from __future__ import annotations

import protocol as p
from protocol.bus import ConnAttach, ConnOpened, PresenceEntry, ResumeCode

REATTACH_WAIT = 60.0  # seconds sessions wait for a new lobby host before they are hung up
# Seconds within which the live sessions of a host that died are attached to the new one
# once it is ready (their front ends send them at once when it says so, at the latest at
# their next look at its lease): a guest's seat in a waiting room is held for them that long
# (server/lobby/restore.py), and a seated player is not shown away meanwhile (owner.py)
REATTACH_GRACE = 10.0


class AttachBook:
    def __init__(self) -> None:
        self._opened: dict[int, ConnOpened] = {}
        self._where: dict[int, PresenceEntry] = {}
        self._codes: dict[int, str] = {}
        self._tables: dict[int, str] = {}  # a private table's code, from the last Seated
        self._unsaid: set[int] = set()  # where they are is to be written again, though unchanged

    def opened(self, message: ConnOpened) -> None:
        self._opened[message.conn_id] = message

    def moved(self, entry: PresenceEntry) -> bool:
        """Where a session is now, as the host says (False: known already, or not ours)."""
        if entry.conn_id not in self._opened:
            return False
        if self._where.get(entry.conn_id) == entry and entry.conn_id not in self._unsaid:
            return False
        self._unsaid.discard(entry.conn_id)
        self._where[entry.conn_id] = entry
        return True

    def say_again(self, conn_id: int) -> None:
        """The session's presence entry was deleted (its front end judged gone): the host's
        next word on where it is is written again even if it says the same."""
        if conn_id in self._opened:
            self._unsaid.add(conn_id)

    def code(self, message: ResumeCode) -> None:
        if message.conn_id in self._opened:
            self._codes[message.conn_id] = message.code

    def seated(self, conn_id: int, data: bytes) -> None:
        """A ``Seated`` the host sent the session (rare: read whole): a private table's code."""
        if conn_id not in self._opened:
            return
        try:
            message = p.decode(data)
        except p.ProtocolError:
            return
        if isinstance(message, p.Seated):
            self._tables[conn_id] = message.code if message.table_id is not None else ""

    def forget(self, conn_id: int) -> None:
        self._opened.pop(conn_id, None)
        self._where.pop(conn_id, None)
        self._codes.pop(conn_id, None)
        self._tables.pop(conn_id, None)
        self._unsaid.discard(conn_id)

    def clear(self) -> None:
        self._opened.clear()
        self._where.clear()
        self._codes.clear()
        self._tables.clear()
        self._unsaid.clear()

    def attach(self, conn_id: int) -> ConnAttach | ConnOpened | None:
        """What to send a new host for this session (None: not one of ours)."""
        opened = self._opened.get(conn_id)
        where = self._where.get(conn_id)
        if opened is None or where is None:
            return opened  # no name yet: it starts again at the name prompt's end of things
        return ConnAttach(conn_id=conn_id, front=opened.front, ip=opened.ip, username=opened.username,
                          fingerprint=opened.fingerprint, name=where.name, table_id=where.table_id,
                          seat=where.seat, resume=self._codes.get(conn_id, "") if where.seat is not None else "",
                          code=self._tables.get(conn_id, "") if where.table_id is not None else "")
