"""Ratings and stats: a key holder's own (the stats screen) and a variant's leaderboard.

Kept apart from ``messages`` (whose table of types they join on import) so the lobby's
core messages stay in one readable file.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from protocol.messages import MESSAGE_TYPES, NAME_MAX, TITLE_MAX, Command, Event
from protocol.schema import limited

RECENT_MAX = 20  # the matches the stats screen lists
BOARD_MAX = 20  # the players a leaderboard lists


@dataclass(frozen=True)
class RatingLine:
    """A rating: one per variant and table size the player has played rated matches at."""

    variant: str = limited(max_len=20)
    players: int = limited(lo=2, hi=8)
    rating: float = limited(lo=-1000, hi=1000)  # openskill's ordinal: mu - 3 sigma
    games: int = limited(0, lo=0, hi=2**31)
    wins: int = limited(0, lo=0, hi=2**31)


@dataclass(frozen=True)
class MatchLine:
    """One of the player's last matches."""

    variant: str = limited(max_len=20)
    players: int = limited(lo=2, hi=8)
    title: str = limited("", max_len=TITLE_MAX)
    won: bool = False
    abandoned: bool = False
    points_for: int = limited(0, lo=0, hi=100_000)
    points_against: int = limited(0, lo=0, hi=100_000)
    rated: bool = False
    change: float | None = limited(None, lo=-1000, hi=1000)  # the rating's change, if rated
    finished_at: int = limited(0, lo=0, hi=2**40)


@dataclass(frozen=True)
class BoardLine:
    name: str = limited(max_len=NAME_MAX)
    rating: float = limited(lo=-1000, hi=1000)
    games: int = limited(0, lo=0, hi=2**31)
    wins: int = limited(0, lo=0, hi=2**31)
    left: int = limited(0, lo=0, hi=2**31)  # of ``games``, how many the player left before the end

    @property
    def completed(self) -> float:
        """The share of its rated matches the player stayed to the end of (1.0 with none)."""
        return 1.0 - self.left / self.games if self.games else 1.0


# Minutes a key waits before playing with people again after its 2nd, 3rd and 4th (or
# later) rated match left within a day (server/lobby/leavers.py; screens say it in advance)
LEAVER_WAITS = (5, 15, 60)


@dataclass(frozen=True)
class MyStats(Command):
    TYPE: ClassVar[str] = "my_stats"


@dataclass(frozen=True)
class StatsReport(Event):
    """The asker's totals over every finished two-team match, ratings and last matches
    (``keyed`` False: a guest, who has none)."""

    TYPE: ClassVar[str] = "stats"
    keyed: bool = True
    games: int = limited(0, lo=0, hi=2**31)
    wins: int = limited(0, lo=0, hi=2**31)
    points_for: int = limited(0, lo=0, hi=2**40)
    points_against: int = limited(0, lo=0, hi=2**40)
    envidos_won: int = limited(0, lo=0, hi=2**31)
    trucos_won: int = limited(0, lo=0, hi=2**31)
    trucos_refused: int = limited(0, lo=0, hi=2**31)
    ratings: tuple[RatingLine, ...] = limited((), max_items=32)
    recent: tuple[MatchLine, ...] = limited((), max_items=RECENT_MAX)


@dataclass(frozen=True)
class Leaderboard(Command):
    TYPE: ClassVar[str] = "leaderboard"
    variant: str = limited(max_len=20)
    players: int = limited(2, lo=2, hi=8)


@dataclass(frozen=True)
class LeaderboardReport(Event):
    TYPE: ClassVar[str] = "board"
    variant: str = limited(max_len=20)
    players: int = limited(2, lo=2, hi=8)
    lines: tuple[BoardLine, ...] = limited((), max_items=BOARD_MAX)


MESSAGE_TYPES.update({cls.TYPE: cls for cls in (MyStats, StatsReport, Leaderboard, LeaderboardReport)})

__all__ = ["RECENT_MAX", "BOARD_MAX", "LEAVER_WAITS", "RatingLine", "MatchLine", "BoardLine", "MyStats", "StatsReport",
           "Leaderboard", "LeaderboardReport"]
