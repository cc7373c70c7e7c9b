"""Venezuelan card functions (docs/RULES.md 4.2-4.4): the vira, the perico and perica, trick
strength and envite / flor values. These are the small behaviour functions a RuleSet holds.

The seed (001) never says which cards the perico and perica are. The default reading is the
usual Venezuelan rule, OUTSIDE SEEDS and therefore an option (`perico_rule="vira_11_10"`,
docs/RULES.md 4.2): after the deal a card is turned up (la vira); the perico is the caballo (11)
of its suit and the perica the sota (10); when the vira itself is that caballo or sota, the
rey (12) of the suit takes its place.
"""

from __future__ import annotations

from engine.rules.scoring import ARGENTINE_TRICK_CLASSES
from engine.core.cards import SPANISH_DECK, Card, parse_card

PERICO_VALUE = 30  # absolute envite values, 001 L2
PERICA_VALUE = 29
RESERVADA_VALUE = PERICO_VALUE + PERICA_VALUE  # the literal formula for both (RULES 4.4)

_BY_RANK_SUIT = {(c.rank, c.suit): c for c in SPANISH_DECK}


def _pericos_of(vira: Card) -> tuple[Card, Card]:
    suit = vira.suit
    return (_BY_RANK_SUIT[(12 if vira.rank == 11 else 11, suit)],
            _BY_RANK_SUIT[(12 if vira.rank == 10 else 10, suit)])


# Per vira (by code): (perico, perica), and every card's absolute envite value. The bots value
# every possible hand against a vira, so these are looked up, not worked out, each time.
_PERICOS: dict[int, tuple[Card, Card]] = {v.code: _pericos_of(v) for v in SPANISH_DECK}
_PLAIN_VALUES = tuple(rank if rank <= 7 else 0 for rank in (code % 13 + 1 for code in range(104)))


def _values_for(vira: Card) -> tuple[int, ...]:
    perico, perica = _PERICOS[vira.code]
    values = list(_PLAIN_VALUES)
    values[perico.code], values[perica.code] = PERICO_VALUE, PERICA_VALUE
    return tuple(values)


_VALUES: dict[int, tuple[int, ...]] = {v.code: _values_for(v) for v in SPANISH_DECK}


def pericos(vira: Card | None) -> tuple[Card | None, Card | None]:
    """(perico, perica) for this vira under the vira_11_10 rule; (None, None) without a vira."""
    if vira is None:
        return None, None
    return _PERICOS[vira.code]


def _values(face_up: Card | None) -> tuple[int, ...]:
    """Every card's absolute envite value (by code) under this vira."""
    return _PLAIN_VALUES if face_up is None else _VALUES[face_up.code]


# docs/RULES.md 4.3 below the perico and perica: the Argentine classes (highest first; one class ties).
_VE_CLASSES = ARGENTINE_TRICK_CLASSES
PERICO_STRENGTH = len(_VE_CLASSES) + 2
PERICA_STRENGTH = len(_VE_CLASSES) + 1
PASADA_STRENGTH = 0  # a carta pasada has no truco value: below every card (RULES 4.3 rank 17)


def _build() -> tuple[int, ...]:
    table = [0] * 104
    for index, names in enumerate(_VE_CLASSES):
        for name in names:
            table[parse_card(name, "spanish").code] = len(_VE_CLASSES) - index
    return tuple(table)


_STRENGTH = _build()


def ve_strength(card: Card, face_up: Card | None = None) -> int:
    """Trick strength: perico > perica > espadilla > ... > the 4s (docs/RULES.md 4.3)."""
    perico, perica = pericos(face_up)
    if card == perico:
        return PERICO_STRENGTH
    if card == perica:
        return PERICA_STRENGTH
    return _STRENGTH[card.code]


def absolute_value(card: Card, face_up: Card | None = None) -> int:
    """Absolute envite value (VE-01): perico 30, perica 29, 1-7 face value, figures 0."""
    return _values(face_up)[card.code]


def _relative(cards: tuple[Card, ...], face_up: Card | None, count: int) -> tuple[int, tuple[Card, ...]]:
    """The relative value (RULES 4.4) using up to `count` cards, and the cards that prove it.

    La Reservada: perico + perica (59). A perico or perica "links" with any card (OP-VE-5):
    its value plus the best other card, without the +20 (VE-02: perico + 7 = 37). Otherwise
    20 + the best cards of one suit (two for envite, three for flor), else the best single
    card (OP-VE-4).
    """
    values = _values(face_up)
    special_codes = () if face_up is None else tuple(c.code for c in _PERICOS[face_up.code])
    specials = [c for c in cards if c.code in special_codes]
    if len(specials) == 2:
        return RESERVADA_VALUE, tuple(specials)
    if specials:
        special = specials[0]
        rest = sorted((c for c in cards if c.code != special.code),
                      key=lambda c: values[c.code], reverse=True)[: count - 1]
        return values[special.code] + sum(values[c.code] for c in rest), (special, *rest)
    best_value = -1
    best: tuple[Card, ...] = ()
    for card in cards:
        value = values[card.code]
        if value > best_value:
            best_value, best = value, (card,)
    by_suit: dict[int, list[Card]] = {}  # by suit index (code // 13): enum hashing is slow here
    for card in cards:
        by_suit.setdefault(card.code // 13, []).append(card)
    for suited in by_suit.values():
        if len(suited) >= 2:
            suited.sort(key=lambda c: values[c.code], reverse=True)
            used = tuple(suited[:count])
            value = 20 + sum(values[c.code] for c in used)
            if value > best_value:
                best_value, best = value, used
    return best_value, best


def ve_envite(cards: tuple[Card, ...], face_up: Card | None = None) -> int:
    """The envite value of a hand (relative value of two cards; La Reservada 59)."""
    return _relative(cards, face_up, 2)[0]


def ve_envite_cards(cards: tuple[Card, ...], face_up: Card | None = None) -> tuple[Card, ...]:
    """The cards that prove the envite value (shown at the end of the hand)."""
    return _relative(cards, face_up, 2)[1]


def is_reservada(cards: tuple[Card, ...], face_up: Card | None) -> bool:
    perico, perica = pericos(face_up)
    return perico is not None and perico in cards and perica in cards


def ve_flor(cards: tuple[Card, ...], face_up: Card | None = None) -> int | None:
    """Flor value, None for no flor. A flor is three cards of one suit (OP-VE-2), valued by
    the relative value of all three; La Reservada always counts as a flor (001 L70-71).
    The perico and perica are not wild cards for flor (that would be OUTSIDE SEEDS)."""
    if is_reservada(cards, face_up):
        return RESERVADA_VALUE
    if len(cards) != 3 or not (cards[0].suit is cards[1].suit is cards[2].suit):
        return None
    return _relative(cards, face_up, 3)[0]
