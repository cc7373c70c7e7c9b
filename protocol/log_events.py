"""What happened at a table, as a viewer's log gets it: one frozen record per kind of event.

These are the engine's events (engine/core/events.py says what each one means; the kinds,
field names and order are the same) as the protocol carries them: cards as their text
("1e", "Qh"), reasons and calls as their plain values. The server maps each engine event
onto its record in one generic step (server/table/log_events.py), and a test keeps the two
lists in step and checks that the wire form is the engine's own (``{"type": kind, ...}``).
Like every message they are validated on decoding: each record is picked by its ``type``
and every string, number and list is bounded, so a hostile log is a ProtocolError, never
a crash in the client's log.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from protocol.schema import limited

CARD_MAX = 4  # "12c", "10h"
WORD_MAX = 32  # variants, calls, reasons, deal kinds, rule names
SEATS = 8
POINTS_MAX = 10_000
DEAL_MAX = 2**31
OptionValue = bool | int | str


def _seat() -> Any:
    return limited(lo=0, hi=SEATS - 1)


def _team() -> Any:
    return limited(lo=0, hi=SEATS - 1)  # a team, or a player where each keeps a score


def _word() -> Any:
    return limited(max_len=WORD_MAX)


def _points() -> Any:
    return limited(lo=0, hi=POINTS_MAX)


def _totals() -> Any:
    return limited(lo=0, hi=POINTS_MAX, max_items=SEATS)  # one per team (or player)


@dataclass(frozen=True)
class LogRecord:
    """Base of the log's records; ``KIND`` is the ``type`` each one carries on the wire."""

    KIND: ClassVar[str] = ""


@dataclass(frozen=True)
class MatchStarted(LogRecord):
    KIND: ClassVar[str] = "match_started"
    variant: str = _word()
    options: dict[str, OptionValue] = limited(max_len=40, lo=0, hi=POINTS_MAX, max_items=64)
    n_players: int = limited(lo=1, hi=SEATS)
    first_dealer: int = _seat()
    entropy: tuple[str, ...] = limited((), sparse=True, max_len=64, max_items=SEATS)  # the players' (hex)


@dataclass(frozen=True)
class HandDealt(LogRecord):
    """A deal: ``hands[seat]`` is that seat's cards, None where hidden from this viewer."""

    KIND: ClassVar[str] = "hand_dealt"
    deal_no: int = limited(lo=0, hi=DEAL_MAX)
    dealer: int = _seat()
    deal_kind: str = _word()
    hands: tuple[tuple[str, ...] | None, ...] = limited(max_len=CARD_MAX, max_items=SEATS)
    face_up: str | None = limited(max_len=CARD_MAX)


@dataclass(frozen=True)
class HandStarted(LogRecord):
    KIND: ClassVar[str] = "hand_started"
    mano: int = _seat()
    players: tuple[int, ...] = limited(lo=0, hi=SEATS - 1, max_items=SEATS)
    duel: int = limited(lo=0, hi=SEATS)


@dataclass(frozen=True)
class Acted(LogRecord):
    """A player's action; ``value`` is the number it names (a declared envido, piedras)."""

    KIND: ClassVar[str] = "acted"
    seat: int = _seat()
    call: str = _word()
    card: str | None = limited(None, max_len=CARD_MAX)
    value: int | None = limited(None, lo=0, hi=99)


@dataclass(frozen=True)
class TrickEnded(LogRecord):
    KIND: ClassVar[str] = "trick_ended"
    number: int = limited(lo=0, hi=16)
    winner_team: int | None = _team()  # None: parda
    next_leader: int = _seat()


@dataclass(frozen=True)
class PointsScored(LogRecord):
    KIND: ClassVar[str] = "points_scored"
    team: int = _team()
    points: int = _points()
    reason: str = _word()
    scores: tuple[int, ...] = _totals()


@dataclass(frozen=True)
class PointsWithheld(LogRecord):
    """Points a team won but may not collect; ``rule`` names the rule that says so."""

    KIND: ClassVar[str] = "points_withheld"
    team: int = _team()
    points: int = _points()
    reason: str = _word()
    rule: str = _word()


@dataclass(frozen=True)
class FlorAnswered(LogRecord):
    """The answer to "pido flor": whether that team holds a flor."""

    KIND: ClassVar[str] = "flor_answered"
    team: int = _team()
    holds: bool = limited()


@dataclass(frozen=True)
class CardsShown(LogRecord):
    KIND: ClassVar[str] = "cards_shown"
    seat: int = _seat()
    cards: tuple[str, ...] = limited(max_len=CARD_MAX, max_items=SEATS)
    reason: str = _word()


@dataclass(frozen=True)
class HandEnded(LogRecord):
    KIND: ClassVar[str] = "hand_ended"
    winner_team: int | None = _team()  # None when the game ended during the hand
    points: int = _points()
    reason: str = _word()
    scores: tuple[int, ...] = _totals()


@dataclass(frozen=True)
class GameEnded(LogRecord):
    KIND: ClassVar[str] = "game_ended"
    winner_team: int = _team()
    scores: tuple[int, ...] = _totals()
    games_won: tuple[int, ...] = _totals()


@dataclass(frozen=True)
class MatchEnded(LogRecord):
    KIND: ClassVar[str] = "match_ended"
    winner_team: int = _team()
    games_won: tuple[int, ...] = _totals()


@dataclass(frozen=True)
class SeatCovered(LogRecord):
    """The table's bot makes the next action for ``seat``: its timer ran out ("time") or its
    player is away ("away"); the server logs it just before that action's own events. Or a
    bot plays the seat for good from now on: its player left ("left") or did not come back in
    time ("gone"), sent alone to the table's viewers when it happens."""

    KIND: ClassVar[str] = "seat_covered"
    seat: int = _seat()
    reason: str = _word()


LogEvent = (MatchStarted | HandDealt | HandStarted | Acted | TrickEnded | PointsScored | PointsWithheld
            | FlorAnswered | CardsShown | HandEnded | GameEnded | MatchEnded | SeatCovered)

LOG_EVENT_TYPES: dict[str, type[LogEvent]] = {
    cls.KIND: cls
    for cls in (MatchStarted, HandDealt, HandStarted, Acted, TrickEnded, PointsScored, PointsWithheld,
                FlorAnswered, CardsShown, HandEnded, GameEnded, MatchEnded, SeatCovered)
}

# Spelt out, not built from LOG_EVENT_TYPES, so a type checker sees every name.
__all__ = ["LOG_EVENT_TYPES", "LogEvent", "LogRecord", "MatchStarted", "HandDealt", "HandStarted", "Acted",
           "TrickEnded", "PointsScored", "PointsWithheld", "FlorAnswered", "CardsShown", "HandEnded", "GameEnded",
           "MatchEnded", "SeatCovered"]
