"""Finished games: "My games", the replay of a game's hands, and resuming a held seat.

Kept apart from ``messages`` (whose table of types they join on import), like ``stats``.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from protocol.log_events import LogEvent
from protocol.messages import MESSAGE_TYPES, NAME_MAX, TABLE_ID_MAX, TITLE_MAX, Command, Event
from protocol.schema import limited


@dataclass(frozen=True)
class GameSummary:
    """One finished match, as "My games" lists it."""

    table_id: str = limited(max_len=TABLE_ID_MAX)
    match_no: int = limited(lo=1, hi=2**31)
    variant: str = limited(max_len=20)
    title: str = limited(max_len=TITLE_MAX)
    seats: tuple[str, ...] = limited(max_len=NAME_MAX + 8, max_items=8)
    scores: tuple[int, ...] = limited(lo=0, hi=10_000, max_items=8)
    winner: int | None = limited(None, lo=0, hi=7)
    hands: int = limited(0, lo=0, hi=100_000)
    finished_at: int = limited(0, lo=0, hi=2**40)  # unix seconds


@dataclass(frozen=True)
class ResumeSeat(Command):
    """Reclaim a held seat with the resume code shown at the table (guests)."""

    TYPE: ClassVar[str] = "resume"
    code: str = limited(max_len=16)


@dataclass(frozen=True)
class MyGames(Command):
    TYPE: ClassVar[str] = "my_games"


@dataclass(frozen=True)
class ReplayHand(Command):
    """Ask for one hand (1-based) of a finished game from its log."""

    TYPE: ClassVar[str] = "replay_hand"
    table_id: str = limited(max_len=TABLE_ID_MAX)
    match_no: int = limited(lo=1, hi=2**31)
    hand: int = limited(1, lo=1, hi=100_000)


@dataclass(frozen=True)
class GamesList(Event):
    TYPE: ClassVar[str] = "games"
    games: tuple[GameSummary, ...] = limited((), max_items=100)


@dataclass(frozen=True)
class ReplayStep(Event):
    """One hand of a finished game: every event of it, all cards shown (the game is over)."""

    TYPE: ClassVar[str] = "replay_step"
    game: GameSummary
    hand: int = limited(1, lo=1, hi=100_000)
    events: tuple[LogEvent, ...] = limited((), max_items=512)
    hands: int = limited(1, lo=0, hi=100_000)  # how many hands the game had
    card_notation: str = limited("spanish", max_len=16)  # "spanish" | "french"



MESSAGE_TYPES.update({cls.TYPE: cls for cls in (ResumeSeat, MyGames, ReplayHand, GamesList, ReplayStep)})

__all__ = ["GameSummary", "ResumeSeat", "MyGames", "ReplayHand", "GamesList", "ReplayStep"]
