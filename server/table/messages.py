"""What a table actor's inbox holds: one frozen dataclass per kind of message.

The hub posts the commands of the people at the table; the actor's own timers post the
rest (a bot's move, a deal, a turn that ran out). Every message that a timer posts
carries the ``seq`` it was set at: a table that moved on since ignores it.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import protocol as p


# -- from the hub, for a connection -------------------------------------------------------
@dataclass(frozen=True)
class Act:
    """A seated player's action."""

    conn_id: int
    command: p.TableAction


@dataclass(frozen=True)
class Entropy:
    """A seated player's random bytes (hex, checked) for the next match's deals."""

    conn_id: int
    entropy: str


@dataclass(frozen=True)
class Chat:
    conn_id: int
    sender: str
    text: str
    partners: bool = False  # to the sender's partners only
    origin: str = ""  # its frame's (cluster mode: a table's owner says it once, server/origins.py)


@dataclass(frozen=True)
class Sena:
    """A seated player's seña to their partners (``partners``)."""

    conn_id: int
    sena: str
    origin: str = ""  # as Chat's


@dataclass(frozen=True)
class Watch:
    """A spectator sits down to watch (and gets the match so far)."""

    conn_id: int


@dataclass(frozen=True)
class Leave:
    """A player left for good (a bot plays on), or a spectator stopped watching."""

    conn_id: int


@dataclass(frozen=True)
class Rematch:
    conn_id: int


@dataclass(frozen=True)
class Away:
    """A seated player's connection dropped: the seat is held for them."""

    conn_id: int


@dataclass(frozen=True)
class Rejoin:
    """The holder of ``seat`` is back, on connection ``conn_id``."""

    conn_id: int
    seat: int


@dataclass(frozen=True)
class Release:
    """The hold on ``seat`` ran out: a bot plays it for good."""

    seat: int


@dataclass(frozen=True)
class Resend:
    """Every viewer's current view again: frames to them may have been lost (a NATS node
    failing over drops the messages it held), and an update repeated changes nothing."""


@dataclass(frozen=True)
class Stop:
    """Append what is queued, then end the actor's task. ``deserted``: everyone left an
    unfinished match (a loss for those it rates, recorded where the table runs: the lobby in
    one process, its owner in a cluster); False: an operator closed it, nobody's loss."""

    deserted: bool = True


# -- from the actor's own timers ----------------------------------------------------------
@dataclass(frozen=True)
class BotMove:
    seat: int
    seq: int


@dataclass(frozen=True)
class BotChosen:
    """A searching bot's move, computed off the event loop (server/table/bots.py) for the
    state the table was in at ``seq``; None when the search failed (the bot moves at once)."""

    seat: int
    seq: int
    action: Any


@dataclass(frozen=True)
class Deal:
    seq: int


@dataclass(frozen=True)
class NewMatch:
    """A demo table's next match."""

    seq: int


@dataclass(frozen=True)
class Timeout:
    """The turn timer ran out."""

    seq: int


@dataclass(frozen=True)
class Cover:
    """An away player's grace for this decision ran out: the bot makes it for them."""

    seat: int
    seq: int


@dataclass(frozen=True)
class CoverRematch:
    """The away players' grace for the rematch vote ran out."""

    seq: int


TableMessage = (
    Act | Chat | Entropy | Sena | Watch | Leave | Rematch | Away | Rejoin | Release | Resend | Stop
    | BotMove | BotChosen | Deal | NewMatch | Timeout | Cover | CoverRematch
)
