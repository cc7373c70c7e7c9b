"""The match state: one flat frozen dataclass.

Flat on purpose: `apply` copies the field dict into a scratch object, changes what the
action changes and freezes the result, which is both simple and fast (one copy per action
instead of nested `replace` calls). Sequences are tuples, so a state is hashable-free but
comparable, and two replays of one log compare equal field by field.

Teams: seat % 2 (partners opposite with 4 players, alternate seats with 6). Seats are
numbered in playing order (counter-clockwise); the mano is the seat after the dealer.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from collections.abc import Callable
from typing import TypeAlias, TypeVar

from engine.core.calls import Call
from engine.core.cards import Card
from engine.core.events import Scoring
from engine.core.ruleset import RuleSet

NO_TEAM = -1
PARDA = -1


class Phase(Enum):
    DEAL = "deal"  # waiting for the chance action (engine.deal)
    DISCARD = "discard"  # Uruguayan 3 players: the mano lays one of his four cards away
    FLOR = "flor"  # flor announcements and flor betting, before anything else
    PLAY = "play"  # tricks, with truco and envido betting
    MATCH_OVER = "match_over"


class DealKind(Enum):
    NORMAL = "normal"
    REDONDA = "redonda"  # 6 players, 3 against 3
    PICA_PICA = "pica_pica"  # 6 players, three duels of opposite seats
    ELEVEN = "eleven"  # Brazilian: one team on 11 chooses to play for 3 or concede 1
    BLIND = "blind"  # Brazilian double eleven: nobody sees his cards, no raises


class EnvidoStatus(Enum):
    OPEN = "open"  # may still be called in this hand
    BETTING = "betting"  # a call is waiting for an answer
    DECLARING = "declaring"  # accepted; values are being declared in mano order
    DONE = "done"  # settled (accepted or declined) in this hand
    CLOSED = "closed"  # never called and no longer possible (trick 1 over, or flor)


class FlorStatus(Enum):
    NONE = "none"  # nobody in this hand holds a flor (or flor is off)
    ANNOUNCING = "announcing"  # first round: each holder speaks in mano order
    ANSWERING = "answering"  # a contraflor is pending; any holder of the other team answers
    ROUND_TWO = "round_two"  # both teams announced plainly: each may raise, concede or pass
    LEY = "ley"  # Venezuelan a ley: after trick 1 each a-ley player says tengo flor or not
    DONE = "done"


@dataclass(frozen=True, slots=True)
class VariantHand:
    """A variant's own per-hand record, kept in `State.variant_hand` (None when the hand
    has none) instead of fields of the shared State: the variant subclasses it (frozen) and
    replaces it as the hand goes on; only its own hooks read it."""

    def seen_by(self, seat: int) -> VariantHand:
        """The record as `seat` may know it: what it holds of the other seats' hidden
        cards left out (engine/core/worlds.py builds a seat's worlds from it)."""
        return self

    def unsettled(self) -> str:
        """Why no world can be dealt again now, in words ("": it can): a round of this hand
        whose hidden part depends on what was done with hidden cards."""
        return ""

    def dealt_again(self, flor_seats: tuple[int, ...]) -> VariantHand:
        """The record of the same hand dealt other cards, in which `flor_seats` hold a flor."""
        return self


@dataclass(frozen=True, slots=True)
class HandSummary:
    deal_no: int
    duel: int
    winner_team: int | None
    truco_points: int
    envido: tuple[int, int] | None  # (team, points)
    flor: tuple[int, int] | None
    reason: str
    shown: tuple[tuple[int, tuple[Card, ...]], ...]
    # Venezuelan a ley: (team, rule, points withheld) for the hidden-flor penalties
    penalties: tuple[tuple[int, str, int], ...] = ()


class HandFields:
    """The one field list of a match state: `State` (frozen) and `Work` (the mutable copy
    `apply` changes) both take their fields from here, so they cannot drift apart. mypy
    reads each field's type through the inheritance (a misspelt field is an error); at run
    time `State` is a frozen dataclass of exactly these fields (`_fields_from`), and
    `freeze` refuses a Work with a stray attribute."""

    rules: RuleSet
    n: int
    phase: Phase
    # One entry per score holder: the two teams, or each seat in the Uruguayan 3-player game
    # (points won by the partners are credited to both, docs/RULES.md 2.12.2).
    scores: tuple[int, ...]
    games_won: tuple[int, ...]
    game_no: int
    dealer: int
    deal_no: int
    deal_kind: DealKind
    next_pica: bool
    duel: int
    dealt: tuple[tuple[Card, ...], ...]
    face_up: Card | None
    winner: int | None  # the match winner
    game_winner: int | None  # winner of the game just ended, until the next deal
    history: tuple[HandSummary, ...]
    deferred: tuple[tuple[int, int, Scoring], ...]  # simultaneous scoring: (team, points, reason)
    # ---- the current hand (or pica-pica duel) ----
    players: tuple[int, ...]  # seats in this hand, mano first
    mano: int
    hands: tuple[tuple[Card, ...], ...]  # cards still held, per seat
    tricks: tuple[tuple[tuple[int, Card], ...], ...]  # finished tricks
    trick_results: tuple[int, ...]  # winning team per finished trick, PARDA for a tie
    current: tuple[tuple[int, Card], ...]  # the trick being played
    leader: int
    turn: int  # seat to play a card, -1 when nobody is to play
    truco_level: int  # accepted steps of the truco ladder (0 = no truco)
    truco_pending: int  # the step waiting for an answer, 0 for none
    truco_by: int  # team that made the pending (or last) truco call
    truco_right: int  # team holding the right to raise, NO_TEAM before any truco
    envido_status: EnvidoStatus
    envido_calls: tuple[Call, ...]
    envido_by: int  # team that made the last envido call
    envido_decl: tuple[tuple[int, int | None], ...]  # (seat, value) or (seat, None): son buenas
    envido_best: int  # seat holding the best declared value, -1 before any
    envido_barred: frozenset[int]  # seats that may no longer open envido
    envido_result: tuple[int, int] | None
    flor_status: FlorStatus
    flor_holders: tuple[int, ...]  # hidden knowledge: never shown by a view before announced
    flor_announced: tuple[int, ...]
    flor_idx: int  # whose turn among the holders (announcing and round two)
    flor_level: int  # 0 flor, 1 contraflor, 2 contraflor al resto
    flor_by: int  # team of the pending raise, NO_TEAM if none
    flor_accepted: bool
    flor_conceded: int  # team that gave up (con flor me achico), NO_TEAM if none
    flor_cf_by: int  # team that said contraflor (for OPT-CFAR-ACHICO-ALL-FLORES)
    flor_passes: int
    flor_result: tuple[int, int] | None
    shown: tuple[tuple[int, tuple[Card, ...]], ...]  # proofs to reveal at the end of the hand
    # ---- added for the muestra/manilha variants (defaults keep older constructors valid) ----
    raise_barred: bool = False  # no truco-ladder raise in this hand (Brazilian eleven rules)
    # Team of each seat in this hand: seat % 2, except in the Uruguayan 3-player game, where
    # the mano (team 0) plays alone against the other two (team 1), a new split every hand.
    team_of: tuple[int, ...] = ()
    # ---- the tricks of every variant (empty outside a hand) ----
    active: tuple[int, ...] = ()  # seats taking part in the trick (all players, unless some
    # passed their cards or a Venezuelan double tie leaves the third trick to the tied)
    trick_winners: tuple[int, ...] = ()  # seat that won each finished trick, -1 for parda
    # ---- a variant's own record of this hand (the Venezuelan envite, a-ley flor, estar
    # cantando, the perico's lock, cards passed): only the variant's hooks read it ----
    variant_hand: VariantHand | None = None
    # ---- who made each bet: a seat, not a team (the table names the player who spoke) ----
    truco_seat: int = -1  # seat of the pending (or last) truco call; -1: nobody called it
    # (the Brazilian mão de onze and the Venezuelan "privo y truco" start with a truco pending)
    envido_seat: int = -1  # seat of the last envido / envite call
    flor_seat: int = -1  # seat of the pending flor raise (contraflor, contraflor al resto)

    def team(self, seat: int) -> int:
        return self.team_of[seat] if self.team_of else seat % 2


_T = TypeVar("_T")


def _fields_from(spec: type) -> Callable[[type[_T]], type[_T]]:
    """Give a class the annotations (and so, under @dataclass, the fields and defaults) of
    `spec`; the defaults are `spec`'s class attributes, found through the inheritance."""

    def give(cls: type[_T]) -> type[_T]:
        cls.__annotations__ = {**spec.__annotations__, **cls.__dict__.get("__annotations__", {})}
        return cls

    return give


@dataclass(frozen=True)
@_fields_from(HandFields)
class State(HandFields):
    """The match state: frozen, compared field by field (two replays of one log are equal).
    Build one with `freeze` (engine.core.hand.initial_state fills a Work)."""

    @property
    def game_over(self) -> bool:
        return self.phase is Phase.MATCH_OVER

    @property
    def match_over(self) -> bool:
        return self.phase is Phase.MATCH_OVER

    @property
    def needs_deal(self) -> bool:
        return self.phase is Phase.DEAL




class Work(HandFields):
    """The mutable working copy of a State that `apply` changes and freezes again: the
    fields of HandFields, as plain attributes. Not slotted on purpose: with a `__dict__`,
    thaw and freeze are one dict copy each (engine/DECISIONS.md, "Working state")."""


# Functions that only read take either form.
HandState: TypeAlias = State | Work

_FIELDS = tuple(State.__dataclass_fields__)


def thaw(state: State) -> Work:
    w = object.__new__(Work)
    w.__dict__.update(state.__dict__)
    return w


def freeze(w: Work) -> State:
    fields = w.__dict__
    if len(fields) != _N_FIELDS:
        stray, missing = sorted(set(fields) - set(_FIELDS)), sorted(set(_FIELDS) - set(fields))
        raise AttributeError(f"not a State field: {stray}; missing: {missing}")
    s = object.__new__(State)
    s.__dict__.update(fields)
    return s


_N_FIELDS = len(_FIELDS)
