"""What the hub's inbox holds: one frozen dataclass per kind of message.

Sessions post through their ``HubLink`` (``Frame``, ``Closed``); the rest come from the
hub's own timers and background work, so every change to the lobby happens in its task.
"""
from __future__ import annotations

from dataclasses import dataclass

import protocol as p
from server.link import Closed, Frame, HubLink, Peer
from server.moderation.restrictions import Restriction
from server.table import Occupant, TableActor


@dataclass(frozen=True)
class Opened:
    """A verified SSH peer connected (``Hub.connect``)."""

    peer: Peer
    link: HubLink


@dataclass(frozen=True)
class Attached:
    """A live session whose lobby host died, sent again by its front end (cluster mode:
    server/lobby/reattach.py), with what it says it was: nothing here is believed as such."""

    peer: Peer
    link: HubLink
    name: str
    table_id: str | None  # None: in the lobby
    seat: int | None  # None with a table: watching it
    resume: str  # a guest's code for their seat ("" if none)
    code: str = ""  # the private table's code it was told ("" if none)


@dataclass(frozen=True)
class HoldExpired:
    """The hold on a seat ran out; ``token`` tells this hold from a later one."""

    table_id: str
    seat: int
    occupant: Occupant
    token: int


@dataclass(frozen=True)
class FillWithBots:
    """A quick-play table's wait for people is over (``quick``)."""

    table_id: str


@dataclass(frozen=True)
class TableChanged:
    """A table stepped, so its line in the lobby may have changed: from its actor's task in
    one process, from its proxy (the owner's ``TableStatus``) in a cluster. A message, so
    the lobby changes only in its own task, the same way in both."""

    table_id: str


@dataclass(frozen=True)
class Restored:
    """A table of the last run rebuilt from its log (``actor`` None: it could not be)."""

    table_id: str
    actor: TableActor | None


@dataclass(frozen=True)
class RestoreDone:
    count: int
    seconds: float


@dataclass(frozen=True)
class Result:
    """The answer to a store query, for one connection."""

    conn_id: int
    message: p.Message


@dataclass(frozen=True)
class Shutdown:
    notice: str


@dataclass(frozen=True)
class Restricted:
    """An operator's ban or mute is stored (server/lobby/moderation.py): now it holds."""

    conn_id: int  # the operator's
    restriction: Restriction


@dataclass(frozen=True)
class Ignoring:
    """Whom a key holder ignores and whose chat they hear, read from the store after they
    named themselves."""

    conn_id: int
    names: tuple[str, ...]
    hear: str


@dataclass(frozen=True)
class StatsLearnt:
    """A key holder's stats, read by the lobby itself once they are named (a new name, or a
    session attached again to a new lobby host): their rating for the players list and the
    rated matches they left lately, whether or not their client ever asks for the stats."""

    conn_id: int
    report: p.StatsReport
    leaves: tuple[tuple[str, int, float], ...]  # (table, match, its end) of each rated match left


LobbyMessage = (Frame | Closed | Opened | Attached | HoldExpired | FillWithBots | TableChanged | Restored
                | RestoreDone | Result | Shutdown | Restricted | Ignoring | StatsLearnt)
