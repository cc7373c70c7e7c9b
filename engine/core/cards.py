"""Cards, suits, decks and the text notation of docs/ARCHITECTURE.md, "The engine".

Spanish deck: `<rank><suit>`, ranks 1-7, 10, 11, 12, suits e b o c (`1e`, `7o`, `12c`).
French 28-card deck (Brazilian): ranks A K Q J 7 3 2, suits c h s d (`Ac`, `7h`); the
40-card French deck adds 4 5 6 (`4d`). The two decks share the suit letter `c`, so a token
like `7c` is read on the Spanish deck unless the text (or the `deck` argument) says French:
code that decodes cards of a known variant passes `deck=rules.card_notation`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum


class Suit(Enum):
    ESPADAS = "e"
    BASTOS = "b"
    OROS = "o"
    COPAS = "c"
    CLUBS = "C"
    HEARTS = "H"
    SPADES = "S"
    DIAMONDS = "D"

    @property
    def letter(self) -> str:
        return self.value.lower()

    @property
    def french(self) -> bool:
        return self.value.isupper()


SPANISH_SUITS = (Suit.ESPADAS, Suit.BASTOS, Suit.OROS, Suit.COPAS)
FRENCH_SUITS = (Suit.CLUBS, Suit.HEARTS, Suit.SPADES, Suit.DIAMONDS)
SPANISH_RANKS = (1, 2, 3, 4, 5, 6, 7, 10, 11, 12)
# French ranks as numbers so one Card type serves both decks: A=1, J=11, Q=12, K=13.
FRENCH_RANKS = (1, 2, 3, 4, 5, 6, 7, 11, 12, 13)
FRENCH_RANKS_28 = (1, 2, 3, 7, 11, 12, 13)  # the seed's Brazilian deck (docs/RULES.md 3.2)
_FRENCH_RANK_TEXT = {
    1: "A", 2: "2", 3: "3", 4: "4", 5: "5", 6: "6", 7: "7", 11: "J", 12: "Q", 13: "K"
}
_FRENCH_TEXT_RANK = {v: k for k, v in _FRENCH_RANK_TEXT.items()}
_SUIT_INDEX = {s: i for i, s in enumerate(Suit)}


@dataclass(frozen=True, slots=True, eq=False)
class Card:
    rank: int
    suit: Suit
    # A small dense integer per card: a hash, and an index into per-variant lookup tables.
    code: int = field(init=False, repr=False)

    def __post_init__(self) -> None:
        valid = FRENCH_RANKS if self.suit.french else SPANISH_RANKS
        if self.rank not in valid:
            raise ValueError(f"no rank {self.rank} in suit {self.suit.name}")
        object.__setattr__(self, "code", _SUIT_INDEX[self.suit] * 13 + self.rank - 1)

    def __eq__(self, other: object) -> bool:
        # Cards are normally the interned deck objects: identity settles almost every test.
        return self is other or (isinstance(other, Card) and other.code == self.code)

    def __hash__(self) -> int:
        return self.code

    def __str__(self) -> str:
        if self.suit.french:
            return _FRENCH_RANK_TEXT[self.rank] + self.suit.letter
        return f"{self.rank}{self.suit.letter}"

    def __repr__(self) -> str:
        return f"Card({self})"


SPANISH_DECK: tuple[Card, ...] = tuple(Card(r, s) for s in SPANISH_SUITS for r in SPANISH_RANKS)
FRENCH_DECK_40: tuple[Card, ...] = tuple(
    Card(r, s) for s in FRENCH_SUITS for r in FRENCH_RANKS
)
# The same objects as in FRENCH_DECK_40, so identity comparisons hold across both decks.
FRENCH_DECK: tuple[Card, ...] = tuple(c for c in FRENCH_DECK_40 if c.rank in FRENCH_RANKS_28)
_BY_TEXT_SPANISH = {str(c): c for c in SPANISH_DECK}
_BY_TEXT_FRENCH = {str(c): c for c in FRENCH_DECK_40}
DECK_NOTATIONS = ("spanish", "french")


def _looks_french(token: str) -> bool:
    return token[:-1] in ("A", "K", "Q", "J") or token[-1:] in ("h", "s", "d")


def parse_card(token: str, deck: str | None = None) -> Card:
    """One card from its notation; `deck` is "spanish", "french" or None (guess)."""
    if deck is None:
        deck = "french" if _looks_french(token) else "spanish"
    if deck not in DECK_NOTATIONS:
        raise ValueError(f"unknown deck {deck!r}")
    table = _BY_TEXT_FRENCH if deck == "french" else _BY_TEXT_SPANISH
    card = table.get(token)
    if card is None:
        raise ValueError(f"not a card of the {deck} deck: {token!r}")
    return card


def parse_cards(text: str, *, deck: str | None = None) -> tuple[Card, ...]:
    """`"7e 6e 1b"` -> three cards; `str(card)` gives each token back.

    Commas are accepted as separators. The deck is guessed from the whole text (any French
    rank or suit letter makes it French) unless `deck` is given.
    """
    tokens = text.replace(",", " ").split()
    if deck is None:
        deck = "french" if any(_looks_french(t) for t in tokens) else "spanish"
    return tuple(parse_card(t, deck) for t in tokens)


def cards_text(cards: tuple[Card, ...] | list[Card]) -> str:
    return " ".join(str(c) for c in cards)


def card_to_wire(card: Card) -> str:
    return str(card)


def card_from_wire(value: object, deck: str | None = None) -> Card:
    """A card from its wire text; `deck` ("spanish"/"french", i.e. `rules.card_notation`)
    resolves tokens both decks share ("7c"); None guesses as `parse_card` does."""
    if not isinstance(value, str):
        raise ValueError(f"a card must be a string, not {type(value).__name__}")
    return parse_card(value, deck)


@dataclass(frozen=True, slots=True)
class CardMark:
    """A card this hand's face-up card makes special."""

    card: Card
    role: str  # "pieza", "manilha", "perico" or "perica"
    envido: int | None  # its envido/flor value where it has a special one (piezas, pericos)
