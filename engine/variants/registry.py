"""The variant registry: `get_ruleset(variant, **options)` is the only way to build a
RuleSet; options are validated against the catalog (catalog.py), so the lobby form and the
engine cannot disagree. Each variant's builder lives in its own module."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from engine.core.cards import Card
from engine.core.ruleset import OptionValue, RuleSet
from engine.variants.argentino import argentino
from engine.variants.catalog import resolve_options, variant_spec
from engine.variants.paulista import paulista
from engine.variants.uruguayo import uruguayo
from engine.variants.venezolano import venezolano

_BUILDERS: dict[str, Callable[[dict[str, OptionValue]], RuleSet]] = {
    "argentino": argentino,
    "uruguayo": uruguayo,
    "paulista": paulista,
    "venezolano": venezolano,
}
_CACHE: dict[tuple[str, tuple[tuple[str, Any], ...]], RuleSet] = {}


def get_ruleset(variant: str, **options: Any) -> RuleSet:
    """The RuleSet of `variant` with `options` over the catalog defaults.

    Raises ValueError for an unknown variant, an unknown option, a value outside the
    option's choices, or a variant that is catalogued but not implemented yet.
    """
    spec = variant_spec(variant)
    resolved = resolve_options(variant, options)
    if not spec.implemented:
        raise ValueError(f"variant {variant!r} is not implemented yet")
    key = (variant, tuple(sorted(resolved.items())))
    rules = _CACHE.get(key)
    if rules is None:
        rules = _CACHE[key] = _BUILDERS[variant](resolved)
    return rules


def _of_deck(rules: RuleSet, cards: tuple[Card, ...], face_up: Card | None) -> tuple[Card, ...]:
    """`cards`, checked (with the face-up card) against the rule set's deck: a card of
    another deck is a caller's mistake, never a strength of 0 or a KeyError."""
    codes = rules.deck_codes
    for card in cards if face_up is None else cards + (face_up,):
        if not isinstance(card, Card) or card.code not in codes:
            raise ValueError(f"{card!r} is not a card of the {rules.variant} deck")
    return cards


def envido_value(cards: tuple[Card, ...] | list[Card], rules: RuleSet, face_up: Card | None = None) -> int:
    """The envido value of a hand under `rules` (0..33 in the Argentine game)."""
    return rules.envido(_of_deck(rules, tuple(cards), face_up), face_up)


def flor_value(
    cards: tuple[Card, ...] | list[Card], rules: RuleSet, face_up: Card | None = None
) -> int | None:
    """The flor value of a hand, or None when it is no flor (or flor is not played)."""
    hand = _of_deck(rules, tuple(cards), face_up)
    if not rules.flor:
        return None
    return rules.flor_fn(hand, face_up)


def trick_strength(card: Card, rules: RuleSet, face_up: Card | None = None) -> int:
    """Higher beats lower; equal strengths tie (parda). ValueError for a card (or face-up
    card) that is not of the rule set's deck."""
    return rules.strength(_of_deck(rules, (card,), face_up)[0], face_up)
