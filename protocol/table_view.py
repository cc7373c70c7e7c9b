"""The table as one viewer sees it: the ``view`` of a ``TableUpdate``, as typed records.

The server fills it from the engine's per-seat view (server/table/table_view.py, one
function, with a test that every engine field is either mapped or deliberately left out);
the TUI reads its fields. Cards travel as their text ("1e", "Qh"), seats and teams as
small integers, engine enums as their values. Like every message it is validated on
decoding: a hostile or broken view is a ProtocolError, never a crash in a widget.

Every field has a default (the empty table a client shows before its first update) and is
``sparse``: left out of the frame while it holds that default, so a view costs only what
is on the table. Pairs whose meaning is fixed by position (a played card is (seat, card))
are fixed-length tuples, which cost no field names on the wire.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from protocol.schema import limited

CARD_MAX = 4  # "12c", "10h": a card's text
WORD_MAX = 32  # calls, reasons, statuses, variant names
SEATS = 8
POINTS_MAX = 10_000
OptionValue = bool | int | str


def _opt(default: Any, **limits: int) -> Any:
    return limited(default, sparse=True, **limits)


def _seat() -> Any:
    return _opt(None, lo=0, hi=SEATS - 1)


def _seats() -> Any:
    return _opt((), lo=0, hi=SEATS - 1, max_items=SEATS)


def _word() -> Any:
    return _opt("", max_len=WORD_MAX)


@dataclass(frozen=True)
class LegalCall:
    """One action the viewer may take now (the engine's Action): ``card`` for plays and
    discards, ``amount`` for calls that name a number (Venezuelan piedras)."""

    seat: int = limited(lo=0, hi=SEATS - 1)
    call: str = limited(max_len=WORD_MAX)
    card: str | None = _opt(None, max_len=CARD_MAX)
    amount: int | None = _opt(None, lo=0, hi=99)


@dataclass(frozen=True)
class CardMark:
    """A card this hand's face-up card makes special (pieza, manilha, perico, perica)."""

    card: str = limited(max_len=CARD_MAX)
    role: str = limited(max_len=WORD_MAX)
    envido: int | None = limited(None, lo=0, hi=99)  # its own envido/flor value, if any


@dataclass(frozen=True)
class BetWorth:
    """A bet waiting for an answer: the points it gives if wanted and if refused."""

    kind: str = limited(max_len=WORD_MAX)  # "truco", "envido" or "flor"
    calls: tuple[str, ...] = limited(max_len=WORD_MAX, max_items=32)
    wanted: int | None = limited(None, lo=0, hi=POINTS_MAX)  # None: it decides the game
    refused: int | None = limited(None, lo=0, hi=POINTS_MAX)  # None: it may not be refused
    wins_game: bool = False


@dataclass(frozen=True)
class TrucoStep:
    """One step of the truco ladder: the hand's worth once accepted, and if declined."""

    call: str = limited(max_len=WORD_MAX)
    wanted: int = limited(lo=0, hi=POINTS_MAX)
    refused: int = limited(lo=0, hi=POINTS_MAX)
    wins_game: bool = False


@dataclass(frozen=True)
class TableView:
    """One viewer's view of a running table (engine/core/views.py ``View`` says what each
    field means; the names are the same)."""

    variant: str = _word()
    options: tuple[tuple[str, OptionValue], ...] = _opt((), max_len=40, lo=0, hi=POINTS_MAX, max_items=64)
    n_players: int = _opt(0, lo=0, hi=SEATS)
    teams: tuple[int, ...] = _seats()  # team of each seat in this hand
    phase: str = _word()
    deal_kind: str = _word()
    game_no: int = _opt(0, lo=0, hi=2**31)
    deal_no: int = _opt(0, lo=0, hi=2**31)
    duel: int = _opt(0, lo=0, hi=SEATS)
    dealer: int = _opt(0, lo=0, hi=SEATS - 1)
    mano: int = _opt(0, lo=0, hi=SEATS - 1)
    players: tuple[int, ...] = _seats()  # seats in the current hand, mano first
    target: int = _opt(0, lo=0, hi=POINTS_MAX)
    scores: tuple[int, ...] = _opt((), lo=0, hi=POINTS_MAX, max_items=SEATS)
    scores_text: tuple[str, ...] = _opt((), max_len=WORD_MAX, max_items=SEATS)
    games_won: tuple[int, ...] = _opt((), lo=0, hi=POINTS_MAX, max_items=SEATS)
    match_games: int = _opt(1, lo=1, hi=99)
    turn: int | None = _seat()  # the seat to play a card
    awaiting: tuple[int, ...] = _seats()  # every seat that may act now
    own_cards: tuple[str, ...] = _opt((), max_len=CARD_MAX, max_items=SEATS)
    hand_sizes: tuple[int, ...] = _opt((), lo=0, hi=SEATS, max_items=SEATS)
    # Finished tricks in play order, each (seat, card) in playing order.
    tricks: tuple[tuple[tuple[int, str], ...], ...] = _opt((), max_len=CARD_MAX, lo=0, hi=SEATS - 1,
                                                           max_items=SEATS)
    trick_results: tuple[int | None, ...] = _seats()  # winning team, None for parda
    trick_winners: tuple[int | None, ...] = _seats()  # the seat that took it, None for parda
    current_trick: tuple[tuple[int, str], ...] = _opt((), max_len=CARD_MAX, lo=0, hi=SEATS - 1,
                                                      max_items=SEATS)
    face_up: str | None = _opt(None, max_len=CARD_MAX)
    truco_value: int = _opt(1, lo=0, hi=POINTS_MAX)
    truco_pending: str | None = _opt(None, max_len=WORD_MAX)
    truco_pending_by: int | None = _seat()  # the team that made the pending call
    truco_pending_seat: int | None = _seat()
    truco_right: int | None = _seat()
    envido_status: str = _word()
    envido_calls: tuple[str, ...] = _opt((), max_len=WORD_MAX, max_items=32)
    envido_by: int | None = _seat()
    envido_pending_seat: int | None = _seat()
    envido_declarations: tuple[tuple[int, int | None], ...] = _opt((), lo=0, hi=99, max_items=SEATS)
    envido_result: tuple[int, int] | None = _opt(None, lo=0, hi=POINTS_MAX)  # (team, points)
    flor_status: str = _word()
    flor_announced: tuple[int, ...] = _seats()
    flor_level: int = _opt(0, lo=0, hi=99)
    flor_pending_by: int | None = _seat()
    flor_pending_seat: int | None = _seat()
    flor_conceded: int | None = _seat()
    flor_result: tuple[int, int] | None = _opt(None, lo=0, hi=POINTS_MAX)  # (team, points)
    game_winner: int | None = _seat()
    match_over: bool = _opt(False)
    winner: int | None = _seat()
    legal: tuple[LegalCall, ...] = _opt((), max_items=256)
    card_notation: str = _opt("spanish", max_len=16)  # "spanish" | "french"
    truco_ladder: tuple[str, ...] = _opt((), max_len=WORD_MAX, max_items=16)
    truco_level: int = _opt(0, lo=0, hi=16)
    truco_pending_level: int | None = _opt(None, lo=1, hi=16)
    raises_barred: bool = _opt(False)
    score_holders: tuple[tuple[int, ...], ...] = _seats()  # seats credited by each score
    winners: tuple[int, ...] = _seats()
    envido_stake: int | None = _opt(None, lo=0, hi=POINTS_MAX)
    special_cards: tuple[str, ...] = _opt((), max_len=CARD_MAX, max_items=SEATS)
    trick_players: tuple[int, ...] = _seats()
    passed_cards: tuple[tuple[int, int], ...] = _opt((), lo=0, hi=SEATS, max_items=32)  # (trick, seat)
    passed_seats: tuple[int, ...] = _seats()
    truco_forced: bool = _opt(False)
    cantando: int | None = _seat()
    ley_seats: tuple[int, ...] = _seats()
    envite_ley: bool | None = _opt(None)
    penalties: tuple[tuple[int, str, int], ...] = _opt((), max_len=WORD_MAX, lo=0, hi=POINTS_MAX,
                                                        max_items=16)  # (team, rule, points)
    card_marks: tuple[CardMark, ...] = _opt((), max_items=SEATS)
    ranking: tuple[tuple[str, ...], ...] = _opt((), max_len=CARD_MAX, max_items=64)  # strongest first
    count_rule: str = _opt("none", max_len=WORD_MAX)
    own_envido: int | None = _opt(None, lo=0, hi=99)
    own_envido_cards: tuple[str, ...] = _opt((), max_len=CARD_MAX, max_items=SEATS)
    own_flor: int | None = _opt(None, lo=0, hi=99)
    bets: tuple[BetWorth, ...] = _opt((), max_items=8)
    truco_steps: tuple[TrucoStep, ...] = _opt((), max_items=16)
    malas: int = _opt(0, lo=0, hi=POINTS_MAX)  # the malas/buenas boundary (0: plain points)
    card_refusals: tuple[tuple[str, str], ...] = _opt((), max_len=WORD_MAX, max_items=SEATS)
    call_refusals: tuple[tuple[str, str], ...] = _opt((), max_len=WORD_MAX, max_items=64)

    @property
    def french(self) -> bool:
        """Whether card text is in the French deck's notation (Brazilian tables)."""
        return self.card_notation == "french"


__all__ = ["BetWorth", "CardMark", "LegalCall", "TableView", "TrucoStep"]
