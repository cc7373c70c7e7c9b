"""Ratings and stats on the bus (server/cluster/ratings.py): the values of their key-value
buckets, checked on receipt as every bus message (protocol/bus.py registers them)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from protocol.bus_base import BusMessage
from protocol.messages import NAME_MAX, TABLE_ID_MAX, TITLE_MAX
from protocol.schema import limited

RATED_KEPT = 16  # matches a rating remembers having counted (a match recorded twice counts once)


@dataclass(frozen=True)
class RatedMatch:
    """A match a rating counted, and the rating shown (ordinal) before and after it."""

    match: str = limited(max_len=TABLE_ID_MAX + 12)  # "<table id>.<match no>"
    before: float = limited(0.0, lo=-10_000, hi=10_000)
    after: float = limited(0.0, lo=-10_000, hi=10_000)


@dataclass(frozen=True)
class RatingEntry(BusMessage):
    """One key's openskill rating at one variant and table size (the SQLite ``ratings`` row)."""

    TYPE: ClassVar[str] = "bus_rating"
    fingerprint: str = limited(max_len=128)
    variant: str = limited(max_len=20)
    players: int = limited(lo=2, hi=8)
    mu: float = limited(lo=-10_000, hi=10_000)
    sigma: float = limited(lo=0, hi=10_000)
    games: int = limited(0, lo=0, hi=2**31)
    wins: int = limited(0, lo=0, hi=2**31)
    left: int = limited(0, lo=0, hi=2**31)  # rated matches the key left before the end
    updated_at: int = limited(0, lo=0, hi=2**40)
    name: str = limited("", max_len=NAME_MAX)  # the name of its last rated match (leaderboards)
    counted: tuple[RatedMatch, ...] = limited((), max_items=RATED_KEPT)


@dataclass(frozen=True)
class StatLine(BusMessage):
    """A key holder's line of one finished two-team match (the SQLite ``match_stats`` row)."""

    TYPE: ClassVar[str] = "bus_stat"
    table_id: str = limited(max_len=TABLE_ID_MAX)
    match_no: int = limited(lo=0, hi=2**31)
    seat: int = limited(lo=0, hi=7)
    fingerprint: str = limited(max_len=128)
    variant: str = limited(max_len=20)
    players: int = limited(lo=2, hi=8)
    title: str = limited("", max_len=TITLE_MAX)
    won: bool = False
    abandoned: bool = False
    points_for: int = limited(0, lo=0, hi=100_000)
    points_against: int = limited(0, lo=0, hi=100_000)
    envidos_won: int = limited(0, lo=0, hi=100_000)
    trucos_won: int = limited(0, lo=0, hi=100_000)
    trucos_refused: int = limited(0, lo=0, hi=100_000)
    rated: bool = False
    rating_before: float | None = limited(None, lo=-10_000, hi=10_000)
    rating_after: float | None = limited(None, lo=-10_000, hi=10_000)
    finished_at: int = limited(0, lo=0, hi=2**40)
