"""What the store keeps, as the rest of the server sees it: frozen rows and records."""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import msgpack


@dataclass(frozen=True)
class Reservation:
    name_key: str
    name: str
    fingerprint: str


@dataclass(frozen=True)
class EventRow:
    """One logged table event: its wire form and, for a player's command, who sent which cid."""

    seq: int
    match_no: int
    data: dict[str, Any]
    seat: int | None = None
    cid: int | None = None
    ts: float = 0.0  # when it was logged (set when read back)


@dataclass(frozen=True)
class SenaRow:
    """One seña made in a hand: who made it, and every seat that saw it (the sender, his
    partners, an opponent who caught it), so a restored table shows each seat the same ones."""

    match_no: int
    deal_no: int
    n: int  # its number in the hand, from 0
    seat: int
    sena: str
    seen: tuple[int, ...]


CHAT_KEPT = 20  # a table's latest chat lines, kept for a (re)joining viewer and across a restart


@dataclass(frozen=True)
class ChatRow:
    """One table chat line (not a partner-only one), numbered from 0 at its table: a table
    restarted or rebuilt elsewhere shows its latest ``CHAT_KEPT`` lines again."""

    n: int
    sender: str
    text: str
    ts: int  # unix seconds, as the line was shown


@dataclass(frozen=True)
class Snapshot:
    """A table's state after event ``seq`` of match ``match_no``, as bytes the table made."""

    match_no: int
    seq: int
    state: bytes


@dataclass
class TableRecord:
    table_id: str
    title: str
    variant: str
    options: dict[str, Any]
    owner: str
    private: bool
    code: str
    turn_timer: int
    seats: list[dict[str, Any]]  # name, fp (fingerprint or None), resume (guest code), bot
    seed: str
    demo: bool = False
    # A waiting room its owner starts (what one process stores); False: a waiting table that
    # starts once full (cluster mode stores those too, for a new lobby host)
    owner_starts: bool = True
    quick: bool = False  # opened by quick play: bots fill it after a wait (a new host waits again)
    # The log (``open_tables``: all of it), or what a restart needs (``load_matches``): the
    # current match's events, or with ``snapshot`` its match_started and the events after it
    events: list[EventRow] = field(default_factory=list)
    snapshot: Snapshot | None = None
    senas: list[SenaRow] = field(default_factory=list)  # ``load_matches``: the current hand's
    chat: list[ChatRow] = field(default_factory=list)  # ``load_matches``: the latest lines, oldest first


@dataclass(frozen=True)
class GameRecord:
    table_id: str
    match_no: int
    variant: str
    title: str
    seats: list[str]
    scores: list[int]
    winner: int | None
    hands: int
    finished_at: int
    # Seats whose person left for good before the match ended (a bot finished for them):
    # a rated match counts as lost for them (server/store/ratings.py)
    abandoned: tuple[int, ...] = ()
    # The match's deal secret (hex; protocol/deal_proof.py): what proves its deals afterwards
    deal_secret: str = ""


# The columns of ``tables`` a TableRecord is read from, in the order ``table_record`` takes
TABLE_COLUMNS = "table_id, title, variant, options, owner, private, code, turn_timer, seats, seed, demo"


def table_record(row: tuple[Any, ...]) -> TableRecord:
    """A TableRecord from a row of ``TABLE_COLUMNS``."""
    return TableRecord(
        table_id=row[0], title=row[1], variant=row[2], options=json.loads(row[3]),
        owner=row[4], private=bool(row[5]), code=row[6], turn_timer=row[7],
        seats=json.loads(row[8]), seed=row[9], demo=bool(row[10]),
    )


def pack_event(data: dict[str, Any]) -> bytes:
    return msgpack.packb(data, use_bin_type=True)  # type: ignore[no-any-return]


def unpack_event(blob: bytes) -> dict[str, Any]:
    return msgpack.unpackb(blob, raw=False, strict_map_key=False)  # type: ignore[no-any-return]


# The columns of ``events`` an EventRow is read from, in the order ``event_row`` takes
EVENT_COLUMNS = "seq, match_no, data, seat, cid, ts"


def event_row(row: tuple[Any, ...]) -> EventRow:
    """An EventRow from a row of ``EVENT_COLUMNS``."""
    seq, match_no, data, seat, cid, ts = row
    return EventRow(seq, match_no, unpack_event(data), seat, cid, ts)


# The columns of ``senas`` a SenaRow is read from, in the order ``sena_row`` takes
SENA_COLUMNS = "match_no, deal_no, n, seat, sena, seen"


def sena_row(row: tuple[Any, ...]) -> SenaRow:
    """A SenaRow from a row of ``SENA_COLUMNS``."""
    match_no, deal_no, n, seat, sena, seen = row
    return SenaRow(match_no, deal_no, n, seat, sena, tuple(int(s) for s in json.loads(seen)))


# The columns of ``table_chat`` a ChatRow is read from, in the order ``ChatRow`` takes
CHAT_COLUMNS = "n, sender, text, ts"
