"""Messages that travel only between server processes, on the NATS bus (cluster mode).

They are protocol messages like any other (msgpack, versioned, every field bounded and
checked on receipt: another process, or anything else able to publish on the bus, is as
untrusted as a client), but they have their own registry: a session can never send one,
and the bus accepts nothing else.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from protocol.codec import decode
from protocol.messages import (
    CHAT_MAX, NAME_MAX, SENA_MAX, TABLE_ID_MAX, TITLE_MAX, ChatLine, Message, OptionValue, TableInfo,
)
from protocol.bus_base import BusMessage
from protocol.bus_moderation import (IgnoreEntry, ModerationNote, OperatorEntry, ReportEntry, ReportsSettled,
                                     RestrictionEntry)
from protocol.bus_ratings import RatingEntry, StatLine
from protocol.schema import limited

OWNER_MAX = 64  # a process id: host name, pid and a random part
ORIGIN_MAX = OWNER_MAX + 17  # a session frame's origin: its front end's id, ":", its number there
LEASE_KEY_MAX = OWNER_MAX + 16
EVENTS_PER_MESSAGE = 512
SENAS_PER_HAND = 128  # the table allows 16 a seat (server/table/talk.py), at most 6 seats
TABLE_CHAT_LINES = 64  # at least the lines a table keeps (server/store CHAT_KEPT)


@dataclass(frozen=True)
class EventRecord:
    """One event of a table's log (the cluster's SQLite row): ``data`` is the engine event's
    wire form; ``seat``/``cid``: the player command that caused it (idempotent retries)."""

    seq: int = limited(lo=1, hi=2**53)
    match_no: int = limited(lo=0, hi=2**31)
    data: dict[str, Any] = limited(max_items=64)
    seat: int | None = limited(None, lo=0, hi=7)
    cid: int | None = limited(None, lo=0, hi=2**53)


@dataclass(frozen=True)
class GameEntry(BusMessage):
    """A finished match and who played it ("My games")."""

    TYPE: ClassVar[str] = "bus_game"
    table_id: str = limited(max_len=TABLE_ID_MAX)
    match_no: int = limited(lo=0, hi=2**31)
    variant: str = limited(max_len=20)
    title: str = limited(max_len=TITLE_MAX)
    seats: tuple[str, ...] = limited(max_len=NAME_MAX, max_items=8)
    scores: tuple[int, ...] = limited(lo=0, hi=10_000, max_items=8)
    winner: int | None = limited(None, lo=0, hi=7)
    hands: int = limited(0, lo=0, hi=100_000)
    finished_at: int = limited(0, lo=0, hi=2**40)
    # Who played it, one entry per human: seat, name key, key fingerprint (None: a guest)
    player_seats: tuple[int, ...] = limited((), lo=0, hi=7, max_items=8)
    player_keys: tuple[str, ...] = limited((), max_len=64, max_items=8)
    player_fps: tuple[str | None, ...] = limited((), max_len=128, max_items=8)
    # Seats whose person left for good before the end (a rated match is lost for them)
    abandoned: tuple[int, ...] = limited((), lo=0, hi=7, max_items=8)
    deal_secret: str = limited("", max_len=64)  # the proof of its deals (protocol/deal_proof.py)


@dataclass(frozen=True)
class LoggedEvents(BusMessage):
    """The events of one append of a table, as its stream holds them: one message, so that
    an append is whole or absent, as an SQLite transaction (``more``: an append too big for
    one message goes in several, and counts only once its last part, ``more=False``, is in).
    ``owner``: the process that wrote it."""

    TYPE: ClassVar[str] = "bus_events"
    table_id: str = limited(max_len=TABLE_ID_MAX)
    events: tuple[EventRecord, ...] = limited(max_items=EVENTS_PER_MESSAGE)
    more: bool = False
    ts: float = limited(0.0, lo=0, hi=2**40)
    owner: str = limited("", max_len=OWNER_MAX)
    # The matches these events finish, in the same message (on the last part): "My games"
    # never misses a match whose end is in the log (the store also keeps them in a bucket)
    games: tuple[GameEntry, ...] = limited((), max_items=8)


@dataclass(frozen=True)
class LeaseValue(BusMessage):
    """Who holds a lease now (the value of its key in the lease bucket): the lobby host's,
    or a front end's own while it lives."""

    TYPE: ClassVar[str] = "bus_lease"
    key: str = limited(max_len=LEASE_KEY_MAX)
    owner: str = limited(max_len=OWNER_MAX)
    since: float = limited(0.0, lo=0, hi=2**40)  # when this owner first claimed it
    ready: bool = False  # the holder does what the lease stands for (the host: it listens)


# -- sessions on one process, the lobby on another ---------------------------------------
# A session's frames travel as they are (protocol frames, decoded and validated by whoever
# reads them), with the connection id in a header; these say when connections come and go.

CONN_ID_MAX = 2**53


@dataclass(frozen=True)
class ConnOpened(BusMessage):
    """A verified SSH peer connected to a front end (``front``: where its events go)."""

    TYPE: ClassVar[str] = "bus_conn_opened"
    conn_id: int = limited(lo=1, hi=CONN_ID_MAX)
    front: str = limited(max_len=OWNER_MAX)
    ip: str = limited(max_len=64)
    username: str = limited(max_len=256)
    fingerprint: str | None = limited(None, max_len=128)


@dataclass(frozen=True)
class ConnAttach(BusMessage):
    """A live session of a front end, sent again to a new lobby host (the old one died):
    what the session was there (its name; where it was: ``table_id`` None the lobby, with
    ``seat`` a seat, without one watching; a guest's ``resume`` code; a private table's
    ``code``). The host believes none
    of it beyond what its own state confirms (server/lobby/reattach.py)."""

    TYPE: ClassVar[str] = "bus_conn_attach"
    conn_id: int = limited(lo=1, hi=CONN_ID_MAX)
    front: str = limited(max_len=OWNER_MAX)
    ip: str = limited(max_len=64)
    username: str = limited(max_len=256)
    name: str = limited(max_len=NAME_MAX)
    fingerprint: str | None = limited(None, max_len=128)
    table_id: str | None = limited(None, max_len=TABLE_ID_MAX)
    seat: int | None = limited(None, lo=0, hi=7)
    resume: str = limited("", max_len=16)
    code: str = limited("", max_len=16)  # the private table's code it was told when it sat or watched


@dataclass(frozen=True)
class ResumeCode(BusMessage):
    """A guest's code for the seat they hold (host to the front end, which keeps it for a
    ``ConnAttach``; never written to a bucket)."""

    TYPE: ClassVar[str] = "bus_resume_code"
    conn_id: int = limited(lo=1, hi=CONN_ID_MAX)
    code: str = limited("", max_len=16)


@dataclass(frozen=True)
class ConnClosed(BusMessage):
    """The session's end of a connection closed (front end to host)."""

    TYPE: ClassVar[str] = "bus_conn_closed"
    conn_id: int = limited(lo=1, hi=CONN_ID_MAX)


@dataclass(frozen=True)
class InputAck(BusMessage):
    """The lobby host to a front end: it has taken that front end's messages up to the one
    numbered ``n`` (their ``Truco-In`` header); or, with ``front``, that front end to the host
    ``host`` (its name and run): it has taken the host's (server/cluster/held_input.py)."""

    TYPE: ClassVar[str] = "bus_input_ack"
    host: str = limited(max_len=OWNER_MAX)
    n: int = limited(lo=0, hi=2**53)
    front: str = limited("", max_len=OWNER_MAX)


ATTACH_CHECK_MAX = 1024  # sessions one ``AttachCheck`` or ``Unattached`` names


def conn_id_batches(conn_ids: list[int]) -> list[tuple[int, ...]]:
    """``conn_ids`` in as many ``AttachCheck`` or ``Unattached`` messages as they need."""
    return [tuple(conn_ids[start:start + ATTACH_CHECK_MAX]) for start in range(0, len(conn_ids), ATTACH_CHECK_MAX)]


@dataclass(frozen=True)
class AttachCheck(BusMessage):
    """A front end asks the lobby host which of these sessions it holds (in order with its
    sessions' frames; the answer is an ``Unattached``): its lease ran out and it took it
    back, and the host may have judged it gone meanwhile (server/cluster/front.py)."""

    TYPE: ClassVar[str] = "bus_attach_check"
    front: str = limited(max_len=OWNER_MAX)
    conn_ids: tuple[int, ...] = limited((), lo=1, hi=CONN_ID_MAX, max_items=ATTACH_CHECK_MAX)


@dataclass(frozen=True)
class Unattached(BusMessage):
    """The lobby host ``host`` to a front end: it holds none of these sessions (it judged the
    front end gone and closed them, or never had them); the front end attaches those still
    open to it again."""

    TYPE: ClassVar[str] = "bus_unattached"
    host: str = limited(max_len=OWNER_MAX)
    conn_ids: tuple[int, ...] = limited((), lo=1, hi=CONN_ID_MAX, max_items=ATTACH_CHECK_MAX)


@dataclass(frozen=True)
class HangUp(BusMessage):
    """The lobby hung up on a connection (host to front end)."""

    TYPE: ClassVar[str] = "bus_hang_up"
    conn_id: int = limited(lo=1, hi=CONN_ID_MAX)


@dataclass(frozen=True)
class NameReservation(BusMessage):
    """A name reserved by a key (the value of its key in the names bucket)."""

    TYPE: ClassVar[str] = "bus_name"
    name_key: str = limited(max_len=64)
    name: str = limited(max_len=NAME_MAX)
    fingerprint: str = limited(max_len=128)


@dataclass(frozen=True)
class PresenceEntry(BusMessage):
    """Who is online and where (the value of ``<front>.<conn id>`` in the presence bucket):
    ``table_id`` None: in the lobby; with ``seat``: at that table's seat; without: watching it.
    The lobby host sends it to the session's front end, which writes it (server/cluster/presence.py)."""

    TYPE: ClassVar[str] = "bus_presence"
    conn_id: int = limited(lo=1, hi=CONN_ID_MAX)
    front: str = limited(max_len=OWNER_MAX)
    name: str = limited(max_len=NAME_MAX)
    guest: bool = True
    table_id: str | None = limited(None, max_len=TABLE_ID_MAX)
    seat: int | None = limited(None, lo=0, hi=7)
    rating: float | None = limited(None, lo=-1000, hi=1000)  # as ``PlayerInfo.rating``


# -- the lobby's lists, kept by each front end for its own sessions (server/cluster/lobby_feed.py)

@dataclass(frozen=True)
class DirectoryEntry(BusMessage):
    """A table as the lobby lists it (the value of its id in the directory bucket): written
    by the lobby host alone, deleted when the table goes."""

    TYPE: ClassVar[str] = "bus_directory"
    table: TableInfo


@dataclass(frozen=True)
class LobbyView(BusMessage):
    """The lobby host to a session's front end, in order with the session's frames: the
    session is now in the lobby (its front end sends it the lists from its own copies, with
    ``chat``, the lobby chat so far, then their news), or (``in_lobby`` False) it left for a
    table."""

    TYPE: ClassVar[str] = "bus_lobby_view"
    conn_id: int = limited(lo=1, hi=CONN_ID_MAX)
    in_lobby: bool = True
    chat: tuple[ChatLine, ...] = limited((), max_items=200)


# -- the cluster's store (server/cluster/jsstore.py): values of its key-value buckets ---------

@dataclass(frozen=True)
class TableEntry(BusMessage):
    """An open table (its key in the tables bucket is deleted when it closes)."""

    TYPE: ClassVar[str] = "bus_table"
    table_id: str = limited(max_len=TABLE_ID_MAX)
    title: str = limited(max_len=TITLE_MAX)
    variant: str = limited(max_len=20)
    options: dict[str, OptionValue] = limited(max_len=40, max_items=64)
    owner: str = limited(max_len=NAME_MAX)
    private: bool = False
    code: str = limited("", max_len=16)
    turn_timer: int = limited(0, lo=0, hi=600)
    seats: tuple[dict[str, Any], ...] = limited((), max_items=8)  # Occupant.to_record()
    seed: str = limited("", max_len=64)
    demo: bool = False
    owner_starts: bool = True  # while waiting: its owner starts it (False: it starts once full)
    quick: bool = False  # opened by quick play: bots take its free seats after a wait for people


@dataclass(frozen=True)
class SenaRecord:
    """One seña of a hand: who made it and every seat that saw it (server/table/talk.py)."""

    n: int = limited(lo=0, hi=1024)  # its number in the hand
    seat: int = limited(lo=0, hi=7)
    sena: str = limited(max_len=24)
    seen: tuple[int, ...] = limited((), lo=0, hi=7, max_items=8)


@dataclass(frozen=True)
class HandSenas(BusMessage):
    """The señas of a table's current hand (its key in the señas bucket), so a table taken
    over by another process shows each seat the same ones."""

    TYPE: ClassVar[str] = "bus_senas"
    table_id: str = limited(max_len=TABLE_ID_MAX)
    match_no: int = limited(lo=0, hi=2**31)
    deal_no: int = limited(lo=0, hi=2**31)
    senas: tuple[SenaRecord, ...] = limited((), max_items=SENAS_PER_HAND)


@dataclass(frozen=True)
class ChatRecord:
    """One table chat line (server/table/talk.py), numbered from 0 at its table."""

    n: int = limited(lo=0, hi=2**53)
    sender: str = limited(max_len=NAME_MAX)
    text: str = limited(max_len=CHAT_MAX)
    ts: int = limited(lo=0, hi=2**40)  # unix seconds


@dataclass(frozen=True)
class TableChatLog(BusMessage):
    """A table's latest chat lines, oldest first (its key in the chat bucket), so a table
    taken over by another process shows them again."""

    TYPE: ClassVar[str] = "bus_table_chat"
    table_id: str = limited(max_len=TABLE_ID_MAX)
    lines: tuple[ChatRecord, ...] = limited((), max_items=TABLE_CHAT_LINES)


@dataclass(frozen=True)
class AliveAt(BusMessage):
    """When the lobby host was last alive (what a running turn timer had used up)."""

    TYPE: ClassVar[str] = "bus_alive"
    ts: float = limited(0.0, lo=0, hi=2**40)


@dataclass(frozen=True)
class LobbyChatLine(BusMessage):
    """A lobby chat line as the lobby host sent it (the chat stream keeps the last ones)."""

    TYPE: ClassVar[str] = "bus_lobby_chat"
    sender: str = limited(max_len=NAME_MAX)
    text: str = limited(max_len=CHAT_MAX)
    ts: int = limited(lo=0, hi=2**40)
    system: bool = False
    origin: str = limited("", max_len=ORIGIN_MAX)  # its frame's (server/origins.py): said once


# -- tables owned by any process (server/cluster/owner.py), run for the lobby host ------------

VIEWERS_MAX = 1000  # connections one table's update reaches (players and spectators)


@dataclass(frozen=True)
class SeatRecord:
    """One seat as the lobby and the table's owner both know it (``server.table.Occupant``)."""

    name: str = limited(max_len=NAME_MAX)
    conn_id: int | None = limited(None, lo=1, hi=CONN_ID_MAX)
    bot: bool = False
    away: bool = False
    fingerprint: str | None = limited(None, max_len=128)
    resume: str = limited("", max_len=16)
    was_human: bool = False
    level: str = limited("normal", max_len=16)
    entropy: str = limited("", max_len=64)  # for the next match's deals (protocol/deal_proof.py)


@dataclass(frozen=True)
class Viewer:
    """A connection that sees a table (``seat`` None: a spectator) and its front end."""

    conn_id: int = limited(lo=1, hi=CONN_ID_MAX)
    front: str = limited(max_len=OWNER_MAX)
    seat: int | None = limited(None, lo=0, hi=7)
    after: int = limited(0, lo=0, hi=2**53)  # the host's frames to it so far (server/cluster/order.py)


@dataclass(frozen=True)
class TableOwn(BusMessage):
    """The lobby host asks a process to run a table (request/reply on the process's own
    subject; the answer is a ``TableStatus``): a new one, or one whose owner died (rebuilt
    from its stream), or (``adopt``) one it runs already, for a new lobby host."""

    TYPE: ClassVar[str] = "bus_table_own"
    table_id: str = limited(max_len=TABLE_ID_MAX)
    variant: str = limited(max_len=20)
    options: dict[str, OptionValue] = limited(max_len=40, max_items=64)
    title: str = limited("", max_len=TITLE_MAX)
    turn_timer: int = limited(0, lo=0, hi=600)
    seed: str = limited("", max_len=64)
    auto_rematch: bool = False
    seats: tuple[SeatRecord, ...] = limited((), max_items=8)
    viewers: tuple[Viewer, ...] = limited((), max_items=VIEWERS_MAX)
    bot_delay: float = limited(0.0, lo=0, hi=60)
    hand_pause: float = limited(0.0, lo=0, hi=60)
    away_grace: float = limited(0.0, lo=0, hi=3600)
    stopped_at: float | None = limited(None, lo=0, hi=2**40)  # when the last owner was last alive
    adopt: bool = False
    host: str = limited("", max_len=OWNER_MAX)  # the lobby host asking (whose frame numbers ``after`` counts)


@dataclass(frozen=True)
class TableCall(BusMessage):
    """What the lobby passes on to a table for a connection (``server/table/messages.py``),
    published on the table's subject: ``kind`` names the message, the rest are its fields."""

    TYPE: ClassVar[str] = "bus_table_call"
    table_id: str = limited(max_len=TABLE_ID_MAX)
    kind: str = limited(max_len=12)
    conn_id: int | None = limited(None, lo=1, hi=CONN_ID_MAX)
    front: str = limited("", max_len=OWNER_MAX)  # where the connection's frames go
    seat: int | None = limited(None, lo=0, hi=7)
    sender: str = limited("", max_len=NAME_MAX)
    text: str = limited("", max_len=CHAT_MAX * 4)
    partners: bool = False
    sena: str = limited("", max_len=SENA_MAX)
    call: str = limited("", max_len=32)  # a TableAction's fields
    card: str | None = limited(None, max_len=4)
    cid: int = limited(0, lo=0, hi=2**53)
    amount: int | None = limited(None, lo=0, hi=99)
    origin: str = limited("", max_len=ORIGIN_MAX)  # a chat line's or seña's frame (server/origins.py)
    # The host's frames to the connection so far, and which host counted them: the owner's
    # frames to it follow those (server/cluster/order.py)
    after: int = limited(0, lo=0, hi=2**53)
    host: str = limited("", max_len=OWNER_MAX)


@dataclass(frozen=True)
class TableStatus(BusMessage):
    """A table's owner to the lobby host: where the table is (after each change, and as the
    answer to ``TableOwn``); ``running`` False: this process does not run it (any more)."""

    TYPE: ClassVar[str] = "bus_table_status"
    table_id: str = limited(max_len=TABLE_ID_MAX)
    owner: str = limited(max_len=OWNER_MAX)
    running: bool = False
    finished: bool = False
    match_no: int = limited(0, lo=0, hi=2**31)
    seq: int = limited(0, lo=0, hi=2**53)
    seats: tuple[SeatRecord, ...] = limited((), max_items=8)
    reason: str = limited("", max_len=200)


BUS_TYPES: dict[str, type[Message]] = {
    cls.TYPE: cls for cls in (LoggedEvents, LeaseValue, ConnOpened, ConnClosed, HangUp, NameReservation,
                PresenceEntry, DirectoryEntry, LobbyView, ConnAttach, ResumeCode, InputAck,
                TableEntry, GameEntry, AliveAt, LobbyChatLine, RatingEntry, StatLine, TableOwn,
                TableCall, TableStatus, HandSenas, TableChatLog, RestrictionEntry, ModerationNote,
                ReportEntry, ReportsSettled, OperatorEntry, IgnoreEntry, AttachCheck, Unattached)
}


def decode_bus(data: bytes) -> BusMessage:
    """A bus message, fully validated; ProtocolError for anything else (a client's
    message included)."""
    message = decode(data, BUS_TYPES)
    assert isinstance(message, BusMessage)  # BUS_TYPES holds nothing else
    return message
