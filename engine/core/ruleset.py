"""RuleSet: one variant as frozen data plus the few small functions that are behaviour.

The data type lives in the core so that the shared hand code can read it; the variants
build their RuleSets (engine/variants/registry.py: `get_ruleset`). What a variant changes
in the hand's life cycle is its `hooks` object (core/hooks.py), never a branch on its name.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum

from engine.core.calls import Call
from engine.core.cards import Card, CardMark
from engine.core.hooks import Hooks

OptionValue = bool | int | str


# Table policies: the readings a RuleSet chooses (str enums: equal to the option values).
class EnvidoReplies(StrEnum):  # OPT envido_max_replies (docs/RULES.md 1.7.2 readings)
    UNLIMITED = "unlimited"
    A = "a"  # at most three calls
    B = "b"  # at most two plain envidos


class TrucoTiming(StrEnum):
    ANY_TIME = "any_time"
    OWN_TURN = "own_turn"


class Mazo(StrEnum):
    ALWAYS = "always"
    TWO_PLAYER = "two_player"
    OFF = "off"


class Maldon(StrEnum):  # OPT-MALDON: who may claim it
    OFF = "off"
    ANY = "any"
    MANO = "mano"


class ThreePardas(StrEnum):  # three tied tricks: the mano wins, or the dealer's team loses
    MANO = "mano"
    LOSES_GAME = "loses_game"
    LOSES_HAND = "loses_hand"


class Envite(StrEnum):
    LADDER = "ladder"  # the envido_ladder calls
    PIEDRAS = "piedras"  # the Venezuelan envite


class PardaLeads(StrEnum):  # after a tied trick
    PREVIOUS = "previous"
    MANO = "mano"


class TieRule(StrEnum):
    STANDARD = "standard"
    VENEZOLANO = "venezolano"  # RULES 4.6: a second tie is decided by the tied


class FlorStyle(StrEnum):
    ARGENTINE = "argentine"
    VENEZOLANO = "venezolano"  # 3 per flor, envite between flores, achicar


class FlorDeclaration(StrEnum):
    AUTOMATIC = "automatic"
    A_LEY = "a_ley"  # declared by the players (venezolano)


class Allowed(StrEnum):  # OP-VE-7, OP-VE-8: a reading that forbids a call or allows it at two
    ILLEGAL = "illegal"
    TWO = "two"


StrengthFn = Callable[[Card, Card | None], int]
EnvidoFn = Callable[[tuple[Card, ...], Card | None], int]
FlorFn = Callable[[tuple[Card, ...], Card | None], int | None]
ProofFn = Callable[[tuple[Card, ...], Card | None], tuple[Card, ...]]
SpecialsFn = Callable[[Card | None], tuple[Card | None, ...]]
MarksFn = Callable[[tuple[Card, ...], Card], tuple[CardMark, ...]]


def _no_proof(cards: tuple[Card, ...], face_up: Card | None = None) -> tuple[Card, ...]:
    return ()


def _no_specials(face_up: Card | None) -> tuple[Card | None, ...]:
    return ()


def _no_marks(deck: tuple[Card, ...], face_up: Card) -> tuple[CardMark, ...]:
    return ()


# Enum members the hot path compares with, as module globals (a member lookup on the
# enum class costs ~60 ns, a global ~8 ns; legal_actions runs them for every seat).
_ALWAYS, _TWO_PLAYER = Mazo.ALWAYS, Mazo.TWO_PLAYER


@dataclass(frozen=True, slots=True)
class TrucoStep:
    call: Call
    accepted: int  # the hand is worth this once the call is accepted
    declined: int  # the calling team scores this when it is declined
    wins_game: bool = False  # accepted, the hand decides the game (Venezuelan vale el juego)


@dataclass(frozen=True, slots=True)
class EnvidoStep:
    call: Call
    level: int  # a call may not follow one of a higher level (docs/RULES.md 1.7.2)
    points: int  # what it adds to the stake; falta envido replaces the stake (points 0)


@dataclass(frozen=True)
class RuleSet:
    variant: str
    options: tuple[tuple[str, OptionValue], ...]
    player_counts: tuple[int, ...]
    deck: tuple[Card, ...]
    cards_per_hand: int
    has_face_up: bool  # a muestra / vira card is turned up after the deal
    target: int
    match_games: int
    malas: int  # the malas/buenas boundary, shown to players
    truco_ladder: tuple[TrucoStep, ...]
    envido_ladder: tuple[EnvidoStep, ...]
    flor: bool
    negras_30: bool
    cfar_malas: bool
    cfar_no_flor_points: bool
    cfar_achico_all_flores: bool
    cfar_wins_chico: bool
    envido_max_replies: EnvidoReplies
    truco_timing: TrucoTiming
    mazo: Mazo
    simultaneous: bool
    strength: StrengthFn
    envido: EnvidoFn
    flor_fn: FlorFn
    # Fields added after the Argentine core carry defaults, so every builder stays short.
    flor_optional: bool = False  # OPT-FLOR-OPTIONAL: a holder may keep quiet
    maldon: Maldon = Maldon.OFF  # OPT-MALDON: "off", "any" player or only the "mano" may claim
    # ---- muestra / manilha variants (docs/RULES.md 2 and 3) ----
    card_notation: str = "spanish"  # deck for card text: "spanish" or "french"
    envido_proof: ProofFn = _no_proof  # the cards that prove an envido value
    deal_step: int = 1  # +1: the deal passes on in playing order; -1: backwards (Brazil)
    three_pardas: ThreePardas = ThreePardas.MANO  # "mano" wins, or the dealer's team "loses_game"/"loses_hand"
    counter_raise: bool = False  # a ladder raise may answer a pending one (accepting it)
    first_tie_highest: bool = False  # after a tied trick 1, everyone plays his highest card
    eleven_rule: bool = False  # Brazilian mão de onze and double-eleven blind hand
    solo_mano_three: bool = False  # 3 players: the mano alone with 4 cards (docs/RULES.md 2.12.2)
    score_cap: bool = False  # a score stops at the target (Brazil: a game is 12 points)
    # ---- added with venezolano; the defaults are the Argentine game ----
    envite: Envite = Envite.LADDER  # "ladder": the envido_ladder calls; "piedras": the Venezuelan envite
    specials: SpecialsFn = _no_specials  # cards named by the face-up card (perico, perica)
    parda_leads: PardaLeads = PardaLeads.PREVIOUS  # after a tied trick: the "previous" leader or the "mano"
    tie_rule: TieRule = TieRule.STANDARD  # "venezolano": RULES 4.6 (second tie decided by the tied)
    late_raises: bool = True  # the team holding the right may raise on a later turn
    accept_bars_envido: bool = True  # accepting a truco in trick 1 ends one's envido window
    perico_locks: bool = False  # 001 L37: a trick winner playing the perico voids raises
    pasar: bool = False  # a player may pass all three cards on his first turn (OP-VE-23)
    cantando: bool = False  # 4.12.1 estar cantando: a team needing one point
    flor_style: FlorStyle = FlorStyle.ARGENTINE  # "venezolano": 3 per flor, envite between flores, achicar
    hasta_igualar_level: Allowed = Allowed.ILLEGAL  # OP-VE-7
    pintan_figure: Allowed = Allowed.ILLEGAL  # OP-VE-8
    flor_declaration: FlorDeclaration = FlorDeclaration.AUTOMATIC  # venezolano: "a_ley" (players declare) or "automatic"
    # ---- what is behaviour rather than data (issue 14) ----
    # The rule families and life-cycle hooks the shared hand code calls (core/hooks.py);
    # the default is a game without envido and flor, each variant passes its own.
    hooks: Hooks = Hooks()
    count_rule: str = "none"  # how envido is counted, for the table's help: "argentine" ...
    marks: MarksFn = _no_marks  # the cards a face-up card makes special (the table marks them)

    @property
    def deck_codes(self) -> frozenset[int]:
        return _deck_codes(self.deck)

    def option(self, name: str) -> OptionValue:
        for key, value in self.options:
            if key == name:
                return value
        raise KeyError(name)

    def options_dict(self) -> dict[str, OptionValue]:
        return dict(self.options)

    def envido_step(self, call: Call) -> EnvidoStep | None:
        for step in self.envido_ladder:
            if step.call is call:
                return step
        return None

    def mazo_allowed(self, n_players: int) -> bool:
        return self.mazo is _ALWAYS or (self.mazo is _TWO_PLAYER and n_players == 2)


_DECK_CODES: dict[tuple[Card, ...], frozenset[int]] = {}


def _deck_codes(deck: tuple[Card, ...]) -> frozenset[int]:
    codes = _DECK_CODES.get(deck)
    if codes is None:
        codes = _DECK_CODES[deck] = frozenset(c.code for c in deck)
    return codes
