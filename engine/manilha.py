"""Brazilian card function (RULES.md 3.3): the vira and its manilha.

The manilha is the rank just above the face-up card (the vira) in the nominal order, which
wraps around (a 3 face up makes the lowest rank the manilha). The four manilhas rank above
everything, clubs > hearts > spades > diamonds; other cards rank by the nominal order only,
so equal ranks of different suits tie. One table per possible vira is built once.
"""

from __future__ import annotations

from engine.cards import FRENCH_DECK, FRENCH_DECK_40, Suit, Card

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
