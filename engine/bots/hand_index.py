"""Every three-card hand of a rule set, with its envido and flor, for the bots' inference
(engine/bots/infer.py): the hands holding one card, every hand, or those with a declared
value, listed lazily and kept for the whole process (each is an engine evaluation per hand).
"""

from __future__ import annotations

from functools import partial
from itertools import combinations

from engine.core.cards import Card
from engine.core.ruleset import RuleSet

HAND = 3  # cards per hand in every variant's envido and flor
NOT_A_HAND = 2  # in a face-up card's table of every hand: this one holds the face-up card

Hand = tuple[tuple[int, ...], int, bool]  # (card codes, envido, is a flor)


class HandIndex:
    """The three-card hands of a rule set and face-up card with their envido and flor,
    built lazily: the hands holding one card (a few hundred, when a seat has shown it), and
    every hand (thousands) only for a game without a face-up card, where one table serves
    the whole process. Each is an engine evaluation per hand, so neither is built unless a
    decision needs it."""

    __slots__ = ("rules", "face_up", "deck", "_by_card", "_all", "_some", "_values")

    def __init__(self, rules: RuleSet, face_up: Card | None) -> None:
        self.rules = rules
        self.face_up = face_up
        self.deck = [c for c in rules.deck if c != face_up]
        self._by_card: dict[int, list[Hand]] = {}
        self._all: dict[int | None, list[Hand]] | None = None
        self._some: dict[tuple[int | None, bool | None], list[Hand]] = {}
        self._values: tuple[list[tuple[int, ...]], bytes, bytes] | None = None

    def _hand(self, cards: tuple[Card, ...]) -> Hand:
        rules = self.rules
        flor = rules.flor and rules.flor_fn(cards, self.face_up) is not None
        codes = tuple(sorted(c.code for c in cards))
        return codes, int(rules.envido(cards, self.face_up)), flor

    def with_card(self, code: int) -> list[Hand]:
        found = self._by_card.get(code)
        if found is None:
            card = next(c for c in self.deck if c.code == code)
            others = [c for c in self.deck if c.code != code]
            found = self._by_card[code] = [self._hand((card, a, b))
                                           for a, b in combinations(others, 2)]
        return found

    def every_hand(self, envido: int | None = None,
                   flor: bool | None = None) -> list[Hand] | None:
        """Every hand (with that envido value; with a face-up card, also only flores or
        only non-flores as `flor` says). Without a face-up card one table of every hand
        serves the whole process. With one (a muestra, a vira) there would be a table per
        face-up card, too many to keep: only the lists a clue asks for are kept, a few
        hundred hands long, picked from the face-up card's values of every hand (one engine
        evaluation per hand, once; kept as two bytes a hand). Not listing them cost the
        Uruguayan hard level most of what a declared envido or a sung flor tells before the
        seat shows a card (its draws ignored the value, or failed on the flor). None: a
        face-up game and nothing to narrow by (any hand will do)."""
        if self.face_up is not None:
            if envido is None and flor is not True:
                return None
            key = (envido, flor)
            found = self._some.get(key)
            if found is None:
                hands, values, flores = self._face_up_values()
                found = self._some[key] = [
                    (codes, values[i], flores[i] == 1) for i, codes in enumerate(hands)
                    if flores[i] != NOT_A_HAND and (envido is None or values[i] == envido)
                    and (flor is None or (flores[i] == 1) == flor)]
            return found
        if self._all is None:
            self._all = {}
            for h in combinations(self.deck, HAND):
                hand = self._hand(h)
                self._all.setdefault(hand[1], []).append(hand)
                self._all.setdefault(None, []).append(hand)
        return self._all.get(envido, [])

    def _face_up_values(self) -> tuple[list[tuple[int, ...]], bytes, bytes]:
        """Every hand's codes (one list a deck, shared by every face-up card) with its
        envido and flor (1 or 0; NOT_A_HAND: it holds the face-up card) by position."""
        if self._values is None:
            assert self.face_up is not None
            face_up = self.face_up.code
            envidos, flores = bytearray(), bytearray()
            for cards in combinations(self.rules.deck, HAND):
                if any(c.code == face_up for c in cards):
                    envidos.append(0)
                    flores.append(NOT_A_HAND)
                    continue
                _codes, value, flor = self._hand(cards)
                envidos.append(value)
                flores.append(flor)
            self._values = (_hands_of(self.rules.deck), bytes(envidos), bytes(flores))
        return self._values

    def is_flor(self, codes: tuple[int, ...]) -> bool:
        rules = self.rules
        if not rules.flor:
            return False
        cards = tuple(c for c in self.deck if c.code in codes)
        return rules.flor_fn(cards, self.face_up) is not None


# Indexes kept, the least recently used dropped first: one grows to about 1.3 MB with every
# declared-value list of a face-up card, 5 MB with every card's hands too.
INDEXES_KEPT = 64
_INDEX: dict[tuple[object, ...], HandIndex] = {}
_HANDS: dict[tuple[Card, ...], list[tuple[int, ...]]] = {}


def _hands_of(deck: tuple[Card, ...]) -> list[tuple[int, ...]]:
    """The sorted codes of every hand of ``deck``, in ``combinations`` order (one list per
    deck, about 600 KB for 40 cards)."""
    found = _HANDS.get(deck)
    if found is None:
        found = _HANDS[deck] = [tuple(sorted(c.code for c in cards)) for cards in combinations(deck, HAND)]
    return found


def _function_key(fn: object) -> object:
    """A value function as a key: a ``partial`` (a variant's flor with its options) by what
    it calls with, a plain function as itself."""
    if isinstance(fn, partial):
        return fn.func, fn.args, tuple(sorted(fn.keywords.items()))
    return fn


def hand_index(rules: RuleSet, face_up: Card | None) -> HandIndex:
    # By what a hand's values depend on (the deck, the envido and flor functions), not by the
    # whole rule set: tables whose other options differ (target, timers, mazo...) share one.
    key = (rules.deck, _function_key(rules.envido), _function_key(rules.flor_fn), rules.flor,
           -1 if face_up is None else face_up.code)
    found = _INDEX.pop(key, None)  # (put back last: the most recently used)
    if found is None:
        if len(_INDEX) >= INDEXES_KEPT:
            del _INDEX[next(iter(_INDEX))]
        found = HandIndex(rules, face_up)
    _INDEX[key] = found
    return found
