"""The Brazilian game, truco paulista (docs/RULES.md 3): the vira and its manilha, and its RuleSet.

The manilha is the rank just above the face-up card (the vira) in the nominal order, which
wraps around (a 3 face up makes the lowest rank the manilha). The four manilhas rank above
everything, clubs > hearts > spades > diamonds; other cards rank by the nominal order only,
so equal ranks of different suits tie. One table per possible vira is built once.
"""

from __future__ import annotations

from dataclasses import replace

from engine.core.calls import Call
from engine.core.cards import FRENCH_DECK, FRENCH_DECK_40, Card, CardMark, Suit
from engine.core.ruleset import Mazo, OptionValue, RuleSet, ThreePardas, TrucoStep, TrucoTiming
from engine.variants.argentino import on_argentine

# Nominal orders, high to low (A=1, J=11, Q=12, K=13).
NOMINAL_28 = (3, 2, 1, 13, 11, 12, 7)  # the seed: 3 2 A K J Q 7
NOMINAL_40 = (3, 2, 1, 13, 11, 12, 7, 6, 5, 4)  # the usual 40-card order ... 7 6 5 4
MANILHA_SUITS = (Suit.CLUBS, Suit.HEARTS, Suit.SPADES, Suit.DIAMONDS)  # high to low


def manilha_rank(face_up_rank: int, nominal: tuple[int, ...]) -> int:
    """The rank just above the vira's; above the highest (3) wraps to the lowest."""
    return nominal[(nominal.index(face_up_rank) - 1) % len(nominal)]


def _table(face_up: Card, nominal: tuple[int, ...]) -> tuple[int, ...]:
    table = [0] * 104
    manilha = manilha_rank(face_up.rank, nominal)
    size = len(nominal)
    for card in FRENCH_DECK_40:
        if card.rank not in nominal:
            continue
        if card.rank == manilha:
            table[card.code] = size + len(MANILHA_SUITS) - MANILHA_SUITS.index(card.suit)
        else:
            table[card.code] = size - nominal.index(card.rank)
    return tuple(table)


class ManilhaStrength:
    """A RuleSet's strength function for one nominal order (a frozen callable, so a RuleSet
    stays comparable and printable)."""

    __slots__ = ("nominal", "_tables")

    def __init__(self, nominal: tuple[int, ...], deck: tuple[Card, ...]) -> None:
        self.nominal = nominal
        self._tables = {f.code: _table(f, nominal) for f in deck}

    def __call__(self, card: Card, face_up: Card | None = None) -> int:
        if face_up is None:
            raise ValueError("the Brazilian game needs the face-up card (vira)")
        return self._tables[face_up.code][card.code]

    def __repr__(self) -> str:
        return f"ManilhaStrength({self.nominal})"


MANILHA_28 = ManilhaStrength(NOMINAL_28, FRENCH_DECK)
MANILHA_40 = ManilhaStrength(NOMINAL_40, FRENCH_DECK_40)


def no_envido(cards: tuple[Card, ...], face_up: Card | None = None) -> int:
    return 0


def no_flor(cards: tuple[Card, ...], face_up: Card | None = None) -> int | None:
    return None


def _marks(deck: tuple[Card, ...], face_up: Card) -> tuple[CardMark, ...]:
    """The four manilhas of this vira, clubs > hearts > spades > diamonds."""
    nominal = NOMINAL_40 if len(deck) == len(FRENCH_DECK_40) else NOMINAL_28
    rank = manilha_rank(face_up.rank, nominal)
    by_suit = {c.suit: c for c in deck if c.rank == rank}
    return tuple(CardMark(by_suit[s], "manilha", None) for s in MANILHA_SUITS if s in by_suit)


# docs/RULES.md 3.7 / OP-BR-3: accepted 3 / 6 / 9 / 12; a declined raise pays the step below.
BRAZILIAN_TRUCO = (
    TrucoStep(Call.TRUCO, 3, 1),
    TrucoStep(Call.SEIS, 6, 3),
    TrucoStep(Call.NUEVE, 9, 6),
    TrucoStep(Call.DOCE, 12, 9),
)


def paulista(opts: dict[str, OptionValue]) -> RuleSet:
    """docs/RULES.md 3: no envido or flor, the vira and manilha, truco 3-6-9-12, game to 12."""
    forty = opts["deck"] == "french40"
    target = opts["target"]
    assert isinstance(target, int)
    return replace(
        on_argentine({"match_games": opts["match_games"], "flor": False}),
        variant="paulista",
        options=tuple(sorted(opts.items())),
        player_counts=(2, 4),
        deck=FRENCH_DECK_40 if forty else FRENCH_DECK,
        has_face_up=True,
        target=target,
        malas=0,  # no malas/buenas in Brazil: scores are shown as plain numbers
        truco_ladder=BRAZILIAN_TRUCO,
        envido_ladder=(),
        truco_timing=TrucoTiming.OWN_TURN,  # "only on the player's own turn, before he lays a card"
        mazo=Mazo.OFF,  # the seed has no mazo; declining a raise turns the cards in
        strength=MANILHA_40 if forty else MANILHA_28,
        envido=no_envido,
        flor_fn=no_flor,
        card_notation="french",
        deal_step=-1,  # OP-BR-7: the deal passes to the left, against the play
        three_pardas=ThreePardas("loses_" + str(opts["forfeit_scope"])),
        counter_raise=True,
        first_tie_highest=True,
        eleven_rule=True,
        score_cap=True,  # OP-BR-11: past 12 is a win, and the score is written 12
        count_rule="none",
        marks=_marks,
    )
