"""Card-level scoring for the Spanish deck: trick strength, envido and flor values.

These are the small functions a RuleSet holds (docs/ARCHITECTURE.md, "The engine":
behaviour as functions on the RuleSet, not subclasses). A later variant with a face-up card
(muestra, vira) supplies its own functions with the same signatures; the Argentine ones
ignore `face_up`.
"""

from __future__ import annotations

from engine.core.cards import Card, Suit, parse_card

# docs/RULES.md 1.3, highest class first; cards in one class are equal (parda).
ARGENTINE_TRICK_CLASSES: tuple[tuple[str, ...], ...] = (
    ("1e",),
    ("1b",),
    ("7e",),
    ("7o",),
    ("3e", "3b", "3o", "3c"),
    ("2e", "2b", "2o", "2c"),
    ("1o", "1c"),
    ("12e", "12b", "12o", "12c"),
    ("11e", "11b", "11o", "11c"),
    ("10e", "10b", "10o", "10c"),
    ("7c", "7b"),
    ("6e", "6b", "6o", "6c"),
    ("5e", "5b", "5o", "5c"),
    ("4e", "4b", "4o", "4c"),
)


def _build_argentine_strength() -> tuple[int, ...]:
    table = [0] * 104
    for index, names in enumerate(ARGENTINE_TRICK_CLASSES):
        for name in names:
            table[parse_card(name, "spanish").code] = len(ARGENTINE_TRICK_CLASSES) - index
    return tuple(table)


ARGENTINE_STRENGTH: tuple[int, ...] = _build_argentine_strength()
# Rank class 8 (the 12s) and below carry no signal (OPT-MALDON, OP-AR-26).
MALDON_MAX_STRENGTH = len(ARGENTINE_TRICK_CLASSES) - 7


def argentine_strength(card: Card, face_up: Card | None = None) -> int:
    return ARGENTINE_STRENGTH[card.code]


def card_points(card: Card) -> int:
    """Envido/flor points of one Spanish card: face value, the negras (10-12) count 0."""
    return card.rank if card.rank <= 7 else 0


def argentine_envido(cards: tuple[Card, ...], face_up: Card | None = None) -> int:
    """docs/RULES.md 1.4: best suited pair + 20, else the best single card; range 0..33.

    With three of a suit the best two count: that is the no-flor reading, and with flor in
    use the hand is a flor and has no envido at all (the game logic never asks).
    """
    best = 0
    by_suit: dict[Suit, list[int]] = {}
    for card in cards:
        points = card_points(card)
        if points > best:
            best = points
        by_suit.setdefault(card.suit, []).append(points)
    for values in by_suit.values():
        if len(values) >= 2:
            values.sort(reverse=True)
            pair = 20 + values[0] + values[1]
            if pair > best:
                best = pair
    return best


def is_flor(cards: tuple[Card, ...]) -> bool:
    return len(cards) == 3 and cards[0].suit is cards[1].suit is cards[2].suit


def argentine_flor(
    cards: tuple[Card, ...], face_up: Card | None = None, negras_30: bool = False
) -> int | None:
    """docs/RULES.md 1.4: 20 + the three card points (20..38); None when the hand is no flor.

    OPT-NEGRAS-30: three negras are worth 30 instead of 20.
    """
    if not is_flor(cards):
        return None
    total = sum(card_points(c) for c in cards)
    if negras_30 and total == 0:
        return 30
    return 20 + total


def envido_cards(cards: tuple[Card, ...]) -> tuple[Card, ...]:
    """The cards that prove an envido value: the best suited pair, else the best card."""
    best_value = -1
    best: tuple[Card, ...] = ()
    for card in cards:
        if card_points(card) > best_value:
            best_value, best = card_points(card), (card,)
    for i, a in enumerate(cards):
        for b in cards[i + 1 :]:
            if a.suit is b.suit and 20 + card_points(a) + card_points(b) > best_value:
                best_value, best = 20 + card_points(a) + card_points(b), (a, b)
    return best
