"""Señas: the signals partners make to each other about their cards, per variant.

Señas are table etiquette, not rules of the hand (docs/RULES.md 1.12.4, 2.12.1, 3.12, 4.13):
nothing here changes what is legal. This module is the catalogue of each variant's usual
set, in the order a player reads them (the strongest cards first), and what each one
honestly describes, so that a bot can signal its own cards and read its partner's.

Sources: the Argentine set is the one docs/RULES.md 1.12.4 gives (the seed lists the 7 of
espadas and the 7 of oros under one gesture; the usual table tells them apart by the side
the mouth moves to, and puffs the cheeks for a flor); the Uruguayan one is docs/RULES.md 2.12.1.
The Brazilian seed's list is empty and the Venezuelan seed only allows señas: their sets
are the ones commonly played (zap, copas, espadilha, pica-fumo; perico, perica), and the
help says that every table may agree its own.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from engine.core.cards import Card
from engine.core.ruleset import RuleSet


class SenaKind(enum.Enum):
    CARDS = "cards"  # these exact cards (ancho de espadas: 1 of espadas)
    RANK = "rank"  # any card of this rank that the face-up card does not make special
    MARK = "mark"  # the n-th special card of the face-up card (a pieza, a manilha, the perico)
    FLOR = "flor"  # a flor in hand
    ENVIDO = "envido"  # an envido of at least `at_least`
    NOTHING = "nothing"  # none of the others: bad cards


@dataclass(frozen=True, slots=True)
class Sena:
    code: str  # the wire name; the TUI names it and its gesture in the player's language
    kind: SenaKind
    cards: tuple[str, ...] = ()  # CARDS: card texts ("1e")
    rank: int = 0  # RANK
    mark: int = 0  # MARK: index into rules.marks (highest first)
    at_least: int = 0  # ENVIDO


def _cards(code: str, *cards: str) -> Sena:
    return Sena(code, SenaKind.CARDS, cards=cards)


def _rank(code: str, rank: int) -> Sena:
    return Sena(code, SenaKind.RANK, rank=rank)


def _mark(code: str, index: int) -> Sena:
    return Sena(code, SenaKind.MARK, mark=index)


_FLOR = Sena("flor", SenaKind.FLOR)
_NOTHING = Sena("nada", SenaKind.NOTHING)


def _envido(at_least: int) -> Sena:
    return Sena("envido", SenaKind.ENVIDO, at_least=at_least)


SENAS: dict[str, tuple[Sena, ...]] = {
    "argentino": (
        _cards("ancho_espadas", "1e"), _cards("ancho_bastos", "1b"),
        _cards("siete_espadas", "7e"), _cards("siete_oros", "7o"),
        _rank("tres", 3), _rank("dos", 2), _cards("ancho_falso", "1o", "1c"),
        _FLOR, _envido(28), _NOTHING,
    ),
    "uruguayo": (
        _mark("pieza_2", 0), _mark("pieza_4", 1), _mark("pieza_5", 2), _mark("pieza_11", 3),
        _mark("pieza_10", 4), _cards("anchos", "1e", "1b"), _cards("sietes", "7e", "7o"),
        _rank("tres", 3), _rank("dos", 2), _FLOR, _envido(30), _NOTHING,
    ),
    "paulista": (
        _mark("zap", 0), _mark("copas", 1), _mark("espadilha", 2), _mark("pica_fumo", 3),
        _rank("tres", 3), _rank("dos", 2), _NOTHING,
    ),
    "venezolano": (
        _mark("perico", 0), _mark("perica", 1),
        _cards("ancho_espadas", "1e"), _cards("ancho_bastos", "1b"),
        _cards("siete_espadas", "7e"), _cards("siete_oros", "7o"),
        _rank("tres", 3), _FLOR, _envido(30), _NOTHING,
    ),
}


def senas_of(variant: str) -> tuple[Sena, ...]:
    """The señas of a variant, in the order a player reads them (none for an unknown one)."""
    return SENAS.get(variant, ())


def sena_codes(variant: str) -> tuple[str, ...]:
    return tuple(s.code for s in senas_of(variant))


_DESCRIBED: dict[tuple[int, int, str], tuple[RuleSet, frozenset[Card]]] = {}


def described_cards(sena: Sena, rules: RuleSet, face_up: Card | None) -> frozenset[Card]:
    """The cards a card seña stands for in this hand (empty for flor, envido, nada).
    Cached per rule set and face-up card: the bots ask it at every decision."""
    key = (id(rules), -1 if face_up is None else face_up.code, sena.code)
    found = _DESCRIBED.get(key)
    if found is not None and found[0] is rules:
        return found[1]
    if len(_DESCRIBED) > 4096:
        _DESCRIBED.clear()
    cards = _described(sena, rules, face_up)
    _DESCRIBED[key] = (rules, cards)
    return cards


def _described(sena: Sena, rules: RuleSet, face_up: Card | None) -> frozenset[Card]:
    special = tuple(m.card for m in rules.marks(rules.deck, face_up)) if face_up is not None else ()
    if sena.kind is SenaKind.CARDS:
        return frozenset(c for c in rules.deck if str(c) in sena.cards and c not in special)
    if sena.kind is SenaKind.RANK:
        return frozenset(c for c in rules.deck if c.rank == sena.rank and c not in special)
    if sena.kind is SenaKind.MARK:
        return frozenset(special[sena.mark:sena.mark + 1])
    return frozenset()


def honest_senas(cards: tuple[Card, ...], rules: RuleSet, face_up: Card | None,
                 *, with_points: bool = True) -> tuple[str, ...]:
    """The señas that truly describe `cards`: one per card that has a seña (the first seña
    of the set that names it), then flor or a good envido (`with_points`: while they can
    still be sung), or nada when nothing else applies."""
    out: list[str] = []
    variant_senas = senas_of(rules.variant)
    for card in cards:
        for sena in variant_senas:
            if card in described_cards(sena, rules, face_up):
                if sena.code not in out:
                    out.append(sena.code)
                break
    if with_points and len(cards) == 3:
        flor = rules.flor_fn(cards, face_up) if rules.flor else None
        if flor is not None and any(s.kind is SenaKind.FLOR for s in variant_senas):
            out.append("flor")
        else:
            envido = next((s for s in variant_senas if s.kind is SenaKind.ENVIDO), None)
            if envido is not None and rules.envido(cards, face_up) >= envido.at_least:
                out.append(envido.code)
    if not out and any(s.kind is SenaKind.NOTHING for s in variant_senas):
        out.append(_NOTHING.code)
    return tuple(out)
