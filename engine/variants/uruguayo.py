"""The Uruguayan game (docs/RULES.md 2): the muestra and its piezas, and its RuleSet.

The face-up card's suit is the muestra. Its 2, 4, 5, 11 and 10 (the piezas; the seed calls
them "muestras", OP-UY-1) rank above the matas and are wild in envido and flor, worth 10, 9,
8, 7, 7. When the face-up card is itself one of those five, the 12 of the muestra suit takes
its place: its rank and its value (OP-UY-4). Everything else ranks and counts as in
Argentina. These are the functions a uruguayo RuleSet holds; tables are built once per
possible face-up card, so a lookup per card is all a trick or an envido costs.
"""

from __future__ import annotations

from dataclasses import replace

from engine.core.cards import SPANISH_DECK, Card, CardMark
from engine.core.ruleset import OptionValue, RuleSet
from engine.rules.scoring import ARGENTINE_STRENGTH, card_points
from engine.variants.argentino import on_argentine

# Pieza ranks, highest first, with their envido/flor values (docs/RULES.md 2.3 table).
PIEZA_RANKS = (2, 4, 5, 11, 10)
PIEZA_VALUES = (10, 9, 8, 7, 7)
_TOP_ARGENTINE = max(ARGENTINE_STRENGTH)


def piezas(face_up: Card) -> dict[Card, int]:
    """The piezas in play for this face-up card, as card -> index in PIEZA_RANKS."""
    out: dict[Card, int] = {}
    for card in SPANISH_DECK:
        if card.suit is not face_up.suit:
            continue
        if card.rank in PIEZA_RANKS:
            out[card] = PIEZA_RANKS.index(card.rank)
    if face_up.rank in PIEZA_RANKS:
        # The 12 rule: the muestra 12 stands in for the face-up pieza.
        twelve = next(c for c in SPANISH_DECK if c.suit is face_up.suit and c.rank == 12)
        out[twelve] = PIEZA_RANKS.index(face_up.rank)
        del out[face_up]
    return out


def _tables(face_up: Card) -> tuple[tuple[int, ...], tuple[int, ...], tuple[bool, ...]]:
    strength = list(ARGENTINE_STRENGTH)
    value = [0] * len(ARGENTINE_STRENGTH)
    wild = [False] * len(ARGENTINE_STRENGTH)
    for card in SPANISH_DECK:
        value[card.code] = card_points(card)
    for card, index in piezas(face_up).items():
        strength[card.code] = _TOP_ARGENTINE + len(PIEZA_RANKS) - index
        value[card.code] = PIEZA_VALUES[index]
        wild[card.code] = True
    return tuple(strength), tuple(value), tuple(wild)


_TABLES = {f.code: _tables(f) for f in SPANISH_DECK}
def _t(face_up: Card | None) -> tuple[tuple[int, ...], tuple[int, ...], tuple[bool, ...]]:
    if face_up is None:
        raise ValueError("the Uruguayan game needs the face-up card")
    return _TABLES[face_up.code]


def uruguayan_strength(card: Card, face_up: Card | None = None) -> int:
    return _t(face_up)[0][card.code]


def is_pieza(card: Card, face_up: Card) -> bool:
    return _t(face_up)[2][card.code]


def pieza_value(card: Card, face_up: Card) -> int:
    """Envido/flor value of one card under this muestra (a pieza's value or card points)."""
    return _t(face_up)[1][card.code]


def _best_envido(cards: tuple[Card, ...], face_up: Card | None) -> tuple[int, tuple[Card, ...]]:
    """`envido_uy` of docs/RULES.md 2.4: the best single card, or the best pair + 20 where a pair
    counts if it is suited or contains a pieza (a pieza takes any suit)."""
    _, value, wild = _t(face_up)
    best = -1
    proof: tuple[Card, ...] = ()
    for card in cards:
        if value[card.code] > best:
            best, proof = value[card.code], (card,)
    for i, a in enumerate(cards):
        for b in cards[i + 1 :]:
            if a.suit is b.suit or wild[a.code] or wild[b.code]:
                total = 20 + value[a.code] + value[b.code]
                if total > best:
                    best, proof = total, (a, b)
    return best, proof


def uruguayan_envido(cards: tuple[Card, ...], face_up: Card | None = None) -> int:
    return _best_envido(cards, face_up)[0]


def uruguayan_envido_cards(cards: tuple[Card, ...], face_up: Card | None = None) -> tuple[Card, ...]:
    return _best_envido(cards, face_up)[1]


def uruguayan_flor(cards: tuple[Card, ...], face_up: Card | None = None) -> int | None:
    """`has_flor_uy` / `flor_value_uy` of docs/RULES.md 2.4 (OP-UY-2): three of a suit, two of a
    suit plus a pieza, or two piezas; worth 20 + the three values (max 47)."""
    if len(cards) != 3:
        return None
    _, value, wild = _t(face_up)
    naturals = [c for c in cards if not wild[c.code]]
    if len(naturals) >= 2 and any(c.suit is not naturals[0].suit for c in naturals):
        return None
    return 20 + sum(value[c.code] for c in cards)


def _marks(deck: tuple[Card, ...], face_up: Card) -> tuple[CardMark, ...]:
    """The piezas of this muestra, highest first, with their envido values."""
    order = sorted(piezas(face_up).items(), key=lambda item: item[1])
    return tuple(CardMark(card, "pieza", pieza_value(card, face_up)) for card, _ in order)


def uruguayo(opts: dict[str, OptionValue]) -> RuleSet:
    """docs/RULES.md 2: the Argentine game with the muestra (face-up card) and its piezas."""
    return replace(
        on_argentine(opts),
        variant="uruguayo",
        options=tuple(sorted(opts.items())),
        player_counts=(2, 3, 4, 6),
        has_face_up=True,
        strength=uruguayan_strength,
        envido=uruguayan_envido,
        flor_fn=uruguayan_flor,
        envido_proof=uruguayan_envido_cards,
        solo_mano_three=True,
        count_rule="uruguayan",
        marks=_marks,
    )
