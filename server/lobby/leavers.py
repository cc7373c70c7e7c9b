"""Leavers: a key holder who leaves rated matches again and again waits before playing with
other people again.

Leaving a rated match is already a loss (server/store/ratings.py). On top of that, the
rated matches a key left in the last ``WINDOW`` count. The first is only a loss. After the
second the key waits ``WAITS[0]`` minutes before it can quick-play or sit at a table with
another person, and each further one waits longer. Tables with bots stay open to it.
Players are told in advance: the leave confirmation at a table says so, and each leave
is answered with a notice of the wait it brings and the one the next leave would bring.

What counts: leaving a running match (``l``, or a dropped connection not back within the
seat's hold) at which every seat was a person with a key of their own, the same test as a
rated match's. The leaves this lobby saw are kept in memory by key. Those from before it
started (a restart, another lobby host) are learnt from the player's stats (``known``), which
the lobby reads itself whenever a key's session is named, a program's as well as a
terminal's, and again when a session is attached to a new lobby host; so neither a
reconnection nor a restart clears them.
"""
from __future__ import annotations

import time
from typing import Iterable

import protocol as p
from server.lobby.state import Conn, Table
from server.table import Occupant
from server.table.occupant import rated_seats

WINDOW = 24 * 3600.0  # seconds in which leaves count
WAITS = p.LEAVER_WAITS  # minutes after the 2nd, 3rd and 4th (and later) leave in the window
KEPT = 16  # leaves remembered per key (more would not wait longer)
KEYS_KEPT = 10_000  # keys remembered at all (the oldest go first)


def wait_minutes(leaves: int) -> int:
    """The wait after ``leaves`` rated matches left in the window."""
    return 0 if leaves < 2 else WAITS[min(leaves - 2, len(WAITS) - 1)]


Match = tuple[str, int]  # (table, match number)


class Leavers:
    def __init__(self) -> None:
        # fingerprint -> the rated matches it left in the window: (table, match) -> when (unix seconds)
        self._left: dict[str, dict[Match, float]] = {}

    def _recent(self, fp: str, now: float) -> dict[Match, float]:
        left = self._left.setdefault(fp, {})
        for match in [match for match, at in left.items() if at < now - WINDOW]:
            del left[match]
        while len(left) > KEPT:  # (more would not wait longer)
            del left[min(left, key=left.__getitem__)]
        if len(self._left) > KEYS_KEPT:
            self._left.pop(next(iter(self._left)))
        return left

    def leaving(self, table: Table, occupant: Occupant) -> p.Notice | None:
        """``occupant`` (still seated as the person it was) leaves ``table``'s running match:
        the notice to tell them, if it was a rated match."""
        fp = occupant.fingerprint
        if fp is None or occupant.bot or table.actor is None or table.actor.finished or not rated_seats(table.seats):
            return None
        now = time.time()
        left = self._recent(fp, now)
        left[(table.table_id, table.actor.match_no)] = now
        count = len(left)
        return p.Notice(code="left_rated", text=f"{wait_minutes(count)} {wait_minutes(count + 1)}")

    def known(self, fp: str, leaves: Iterable[tuple[str, int, float]]) -> None:
        """The rated matches the key's stats say it left ((table, match, when the match ended)):
        those from before this lobby knew it count; one it saw itself is not counted again."""
        now = time.time()
        left = self._recent(fp, now)
        for table_id, match_no, at in leaves:
            if at >= now - WINDOW:
                left.setdefault((table_id, match_no), at)
        self._recent(fp, now)

    def waiting(self, conn: Conn) -> float:
        """Seconds before ``conn`` may play with other people again (0: now)."""
        fp = conn.peer.fingerprint
        if fp is None or fp not in self._left:
            return 0.0
        now = time.time()
        left = self._recent(fp, now)
        if not left:
            return 0.0
        return max(0.0, max(left.values()) + wait_minutes(len(left)) * 60 - now)

    def refused(self, conn: Conn) -> p.Error | None:
        """The error for a player who must still wait (None: they may play)."""
        seconds = self.waiting(conn)
        if seconds <= 0:
            return None
        minutes = int(seconds // 60) + 1
        return p.Error(code="leaver_wait", message=f"you left rated matches lately: you can play with other "
                                                   f"people again in {minutes} min", reason=str(minutes))
