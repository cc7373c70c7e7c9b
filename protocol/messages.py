"""Every message of the protocol, one frozen dataclass each.

``TYPE`` is the envelope's ``t``. Commands travel from a session to the hub;
events travel back. New fields get defaults and go at the end; a meaning
change bumps ``PROTOCOL_VERSION``.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from protocol.log_events import LogEvent
from protocol.schema import limited
from protocol.table_view import TableView

NAME_MAX = 16
CHAT_MAX = 200
TITLE_MAX = 40
CODE_LEN = 6
TABLE_ID_MAX = 16
SENA_MAX = 24
# Events of the match a (re)joining viewer is sent at once: the current hand and the ones
# before it, whole hands, at most this many (the client's log keeps as many).
HISTORY_MAX = 200
OptionValue = bool | int | str


class Message:
    """Base of every message; ``TYPE`` is its wire name."""

    TYPE: ClassVar[str] = ""


class Command(Message):
    """Sent by a session."""


class Event(Message):
    """Sent to a session."""


# -- records inside messages ------------------------------------------------

@dataclass(frozen=True)
class OptionInfo:
    name: str = limited(max_len=40)
    label: str = limited(max_len=80)
    kind: str = limited(max_len=8)  # "bool" | "choice" | "int"
    default: OptionValue = limited(max_len=40)
    choices: tuple[OptionValue, ...] = limited((), max_len=40, max_items=32)
    help: str = limited("", max_len=400)


@dataclass(frozen=True)
class VariantInfo:
    name: str = limited(max_len=20)
    title: str = limited(max_len=60)
    player_counts: tuple[int, ...] = limited(lo=2, hi=8, max_items=8)
    options: tuple[OptionInfo, ...] = limited((), max_items=64)
    implemented: bool = True
    senas: tuple[str, ...] = limited((), max_len=SENA_MAX, max_items=32)  # its señas, in order


@dataclass(frozen=True)
class PlayerInfo:
    name: str = limited(max_len=NAME_MAX)
    guest: bool = True
    table_id: str | None = limited(None, max_len=TABLE_ID_MAX)  # where they sit or watch
    rating: float | None = limited(None, lo=-1000, hi=1000)  # their most played rating, once known


@dataclass(frozen=True)
class TableInfo:
    table_id: str = limited(max_len=TABLE_ID_MAX)
    title: str = limited(max_len=TITLE_MAX)
    variant: str = limited(max_len=20)
    owner: str = limited(max_len=NAME_MAX)
    seats: tuple[str | None, ...] = limited(max_len=NAME_MAX, max_items=8)
    options: dict[str, OptionValue] = limited(max_len=40, max_items=64)
    private: bool = False
    status: str = limited("waiting", max_len=16)  # waiting | full | playing | finished
    spectators: int = limited(0, lo=0, hi=10_000)
    bots: tuple[bool, ...] = limited((), max_items=8)  # per seat: a bot plays it
    bot_levels: tuple[str, ...] = limited((), max_len=8, max_items=8)  # per seat: "" or a bot's level
    turn_timer: int = limited(0, lo=0, hi=600)  # seconds per decision, 0 = none
    owner_starts: bool = False  # a waiting room: the owner starts it (StartTable), not the last seat taken
    commitment: str = limited("", max_len=64)  # the next match's deals' while entropy is taken
    rated: bool = False  # every seat a person with a key: leaving its match is a loss (and may mean a wait)


@dataclass(frozen=True)
class ChatLine:
    sender: str = limited(max_len=NAME_MAX)
    text: str = limited(max_len=CHAT_MAX)
    ts: int = limited(lo=0, hi=2**40)  # unix seconds
    system: bool = False  # server announcements
    table_id: str | None = limited(None, max_len=TABLE_ID_MAX)  # None: the lobby chat
    partners: bool = False  # a table's partner-only line: its sender's partners see it, nobody else


@dataclass(frozen=True)
class SeatInfo:
    """Who sits in one seat of a running table."""

    name: str = limited(max_len=NAME_MAX + 8)
    bot: bool = False
    away: bool = False  # a player whose connection dropped (a bot covers if needed)
    level: str = limited("", max_len=8)  # a bot's level (easy, normal, hard); "" for a person


# -- commands (session -> hub) ----------------------------------------------

@dataclass(frozen=True)
class ClaimName(Command):
    TYPE: ClassVar[str] = "claim_name"
    name: str = limited(max_len=64)  # sanitised by the hub; longer is refused
    lang: str = limited("en", max_len=8)


@dataclass(frozen=True)
class SendChat(Command):
    TYPE: ClassVar[str] = "send_chat"
    text: str = limited(max_len=CHAT_MAX * 4)  # trimmed to CHAT_MAX after cleaning


@dataclass(frozen=True)
class CreateTable(Command):
    TYPE: ClassVar[str] = "create_table"
    variant: str = limited(max_len=20)
    players: int = limited(lo=2, hi=8)
    options: dict[str, OptionValue] = limited(max_len=40, max_items=64)
    private: bool = False
    title: str = limited("", max_len=TITLE_MAX * 4)
    turn_timer: int | None = limited(None, lo=0, hi=600)  # None: the server default
    owner_starts: bool = False  # 4 or 6 seats: a waiting room the creator starts (StartTable)


@dataclass(frozen=True)
class JoinTable(Command):
    TYPE: ClassVar[str] = "join_table"
    table_id: str = limited(max_len=TABLE_ID_MAX)
    seat: int | None = limited(None, lo=0, hi=7)  # None: the first free seat
    entropy: str = limited("", max_len=64)  # random bytes (hex) for the deals: see AddEntropy


@dataclass(frozen=True)
class QuickPlay(Command):
    """Seat me at the public ``variant`` table closest to starting, or open one that bots
    fill after a short wait."""

    TYPE: ClassVar[str] = "quick_play"
    variant: str = limited(max_len=20)
    players: int | None = limited(None, lo=2, hi=8)  # the table size wanted (None: the quickest, 2)


@dataclass(frozen=True)
class JoinByCode(Command):
    TYPE: ClassVar[str] = "join_code"
    code: str = limited(max_len=16)


@dataclass(frozen=True)
class LeaveTable(Command):
    TYPE: ClassVar[str] = "leave_table"
    table_id: str = limited(max_len=TABLE_ID_MAX)


@dataclass(frozen=True)
class WatchTable(Command):
    TYPE: ClassVar[str] = "watch_table"
    table_id: str = limited(max_len=TABLE_ID_MAX)


@dataclass(frozen=True)
class AddBot(Command):
    """The table's owner puts a bot in an empty seat (None: the first empty one), playing
    at a level of engine.BOT_LEVELS (easy, normal, hard)."""

    TYPE: ClassVar[str] = "add_bot"
    table_id: str = limited(max_len=TABLE_ID_MAX)
    seat: int | None = limited(None, lo=0, hi=7)
    level: str = limited("normal", max_len=8)


@dataclass(frozen=True)
class SwapSeats(Command):
    """Before the game: swap seats ``a`` and ``b`` (and so who partners whom). The table's
    owner may swap any two (people, bots, free seats); a player may move from his own seat
    (``a``) to a free one (``b``)."""

    TYPE: ClassVar[str] = "swap_seats"
    table_id: str = limited(max_len=TABLE_ID_MAX)
    a: int = limited(lo=0, hi=7)
    b: int = limited(lo=0, hi=7)


@dataclass(frozen=True)
class TableAction(Command):
    """A call or a card at the table; the seat is the sender's, never taken from the message."""

    TYPE: ClassVar[str] = "act"
    table_id: str = limited(max_len=TABLE_ID_MAX)
    call: str = limited(max_len=32)
    card: str | None = limited(None, max_len=4)
    cid: int = limited(0, lo=0, hi=2**53)  # the client's command id: a repeat never acts twice
    amount: int | None = limited(None, lo=0, hi=99)  # for calls that name a number (piedras)


@dataclass(frozen=True)
class TableChat(Command):
    TYPE: ClassVar[str] = "table_chat"
    table_id: str = limited(max_len=TABLE_ID_MAX)
    text: str = limited(max_len=CHAT_MAX * 4)
    partners: bool = False  # to the sender's partners only (never opponents or spectators)


@dataclass(frozen=True)
class MakeSena(Command):
    """A seña to one's partners (the variant's ``VariantInfo.senas``); it costs no turn."""

    TYPE: ClassVar[str] = "sena"
    table_id: str = limited(max_len=TABLE_ID_MAX)
    sena: str = limited(max_len=SENA_MAX)


@dataclass(frozen=True)
class Rematch(Command):
    """After a match: vote to play again with the same seats."""

    TYPE: ClassVar[str] = "rematch"
    table_id: str = limited(max_len=TABLE_ID_MAX)


@dataclass(frozen=True)
class Ping(Command):
    TYPE: ClassVar[str] = "ping"
    n: int = limited(0, lo=0, hi=2**31)


# -- events (hub -> session) ------------------------------------------------

@dataclass(frozen=True)
class Welcome(Event):
    TYPE: ClassVar[str] = "welcome"
    name: str = limited(max_len=NAME_MAX)
    guest: bool = limited()
    variants: tuple[VariantInfo, ...] = limited(max_items=16)
    chat_max: int = limited(CHAT_MAX, lo=1, hi=10_000)
    operator: bool = False  # the session's key is an operator's (the screens offer their keys)


@dataclass(frozen=True)
class NameRefused(Event):
    TYPE: ClassVar[str] = "name_refused"
    name: str = limited(max_len=64)
    reason: str = limited(max_len=24)  # invalid | taken | reserved_key | reserved_word | join_code
    suggestion: str = limited("", max_len=NAME_MAX)


@dataclass(frozen=True)
class LobbySnapshot(Event):
    TYPE: ClassVar[str] = "lobby"
    players: tuple[PlayerInfo, ...] = limited(max_items=10_000)
    tables: tuple[TableInfo, ...] = limited(max_items=10_000)
    chat: tuple[ChatLine, ...] = limited(max_items=200)


@dataclass(frozen=True)
class PlayerUpdated(Event):
    TYPE: ClassVar[str] = "player"
    player: PlayerInfo


@dataclass(frozen=True)
class PlayerLeft(Event):
    TYPE: ClassVar[str] = "player_left"
    name: str = limited(max_len=NAME_MAX)


@dataclass(frozen=True)
class TableUpdated(Event):
    TYPE: ClassVar[str] = "table"
    table: TableInfo


@dataclass(frozen=True)
class TableRemoved(Event):
    TYPE: ClassVar[str] = "table_removed"
    table_id: str = limited(max_len=TABLE_ID_MAX)


@dataclass(frozen=True)
class TableCreated(Event):
    """To the creator only: the id, and the join code of a private table."""

    TYPE: ClassVar[str] = "table_created"
    table_id: str = limited(max_len=TABLE_ID_MAX)
    code: str = limited("", max_len=16)


@dataclass(frozen=True)
class Seated(Event):
    """To one session: where it now sits (seat None: watching; table None: in the lobby).
    ``code``: the join code of a private table, for the people at it to pass on."""

    TYPE: ClassVar[str] = "seated"
    table_id: str | None = limited(None, max_len=TABLE_ID_MAX)
    seat: int | None = limited(None, lo=0, hi=7)
    code: str = limited("", max_len=16)


@dataclass(frozen=True)
class Chat(Event):
    TYPE: ClassVar[str] = "chat"
    line: ChatLine


@dataclass(frozen=True)
class SenaSeen(Event):
    """A seña, to those who see it: the sender, the partners it was made to, and an opponent
    who caught it (``caught``; the table option ``senas`` says how often). Never to a spectator."""

    TYPE: ClassVar[str] = "sena_seen"
    table_id: str = limited(max_len=TABLE_ID_MAX)
    seat: int = limited(lo=0, hi=7)  # who made it
    sena: str = limited(max_len=SENA_MAX)
    to: tuple[int, ...] = limited((), lo=0, hi=7, max_items=8)  # the partners it was made to
    deal_no: int = limited(0, lo=0, hi=2**31)  # the hand it belongs to
    caught: bool = False  # this viewer is an opponent who caught it


@dataclass(frozen=True)
class Error(Event):
    TYPE: ClassVar[str] = "error"
    code: str = limited(max_len=32)
    message: str = limited(max_len=400)
    # For code "illegal": the engine's code for the reason (engine.errors.Reason), which a
    # client says in its player's language; "" when the reason has none.
    reason: str = limited("", max_len=32)


@dataclass(frozen=True)
class Notice(Event):
    TYPE: ClassVar[str] = "notice"
    code: str = limited(max_len=32)  # translated by the session, e.g. "shutdown"
    text: str = limited("", max_len=400)


@dataclass(frozen=True)
class TableUpdate(Event):
    """What one viewer of a running table may see after a change.

    ``view`` is the table as this viewer may see it (protocol/table_view.py: the viewer's
    own cards, never another seat's hidden ones); ``events`` are what happened since the
    previous update (protocol/log_events.py), as this viewer may see it. ``history``, sent when a
    viewer (re)joins, is the match so far as that viewer may see it (whole hands, the
    latest last, at most ``HISTORY_MAX`` events): it replaces the viewer's log, so the
    same events sent again never show twice.
    """

    TYPE: ClassVar[str] = "table_update"
    table_id: str = limited(max_len=TABLE_ID_MAX)
    seq: int = limited(lo=0, hi=2**53)
    seat: int | None = limited(lo=0, hi=7)  # the viewer's seat, None for a spectator
    seats: tuple[SeatInfo, ...] = limited(max_items=8)
    view: TableView = limited()
    events: tuple[LogEvent, ...] = limited((), max_items=64)
    waiting: tuple[int, ...] = limited((), lo=0, hi=7, max_items=8)  # seats the game waits for
    timer: float | None = limited(None, lo=0, hi=3600)  # seconds they have left, if timed
    rematch_votes: tuple[int, ...] = limited((), lo=0, hi=7, max_items=8)
    resume_code: str = limited("", max_len=16)  # this seat's code to reclaim it (guests)
    history: tuple[LogEvent, ...] = limited((), max_items=HISTORY_MAX)


@dataclass(frozen=True)
class Pong(Event):
    TYPE: ClassVar[str] = "pong"
    n: int = limited(0, lo=0, hi=2**31)


MESSAGE_TYPES: dict[str, type[Message]] = {
    cls.TYPE: cls
    for cls in (
        ClaimName, SendChat, CreateTable, JoinTable, QuickPlay, JoinByCode, LeaveTable, WatchTable, Ping,
        AddBot, SwapSeats, TableAction, TableChat, MakeSena, Rematch, TableUpdate,
        Welcome, NameRefused, LobbySnapshot, PlayerUpdated, PlayerLeft, TableUpdated,
        TableRemoved, TableCreated, Seated, Chat, SenaSeen, Error, Notice, Pong,
    )
}

__all__ = [
    "MESSAGE_TYPES", "Message", "Command", "Event", "OptionInfo", "VariantInfo", "PlayerInfo",
    "TableInfo", "ChatLine", "SeatInfo", "OptionValue",
    # Spelt out, not built from MESSAGE_TYPES, so a type checker sees every name.
    "ClaimName", "SendChat", "CreateTable", "JoinTable", "QuickPlay", "JoinByCode", "LeaveTable", "WatchTable",
    "Ping", "AddBot", "SwapSeats", "TableAction", "TableChat", "MakeSena", "Rematch", "TableUpdate",
    "Welcome", "NameRefused", "LobbySnapshot", "PlayerUpdated", "PlayerLeft", "TableUpdated",
    "TableRemoved", "TableCreated", "Seated", "Chat", "SenaSeen", "Error", "Notice", "Pong",
    "NAME_MAX", "CHAT_MAX", "TITLE_MAX", "CODE_LEN", "HISTORY_MAX", "SENA_MAX",
]
