"""The bots' index of every hand's envido and flor (engine/bots/hand_index.py)."""
from __future__ import annotations

from itertools import combinations

import engine
from engine.bots.hand_index import INDEXES_KEPT, hand_index
from engine.core.cards import SPANISH_DECK


def test_tables_whose_values_agree_share_one_index_and_others_do_not() -> None:
    short = engine.get_ruleset("argentino", target=15)
    long = engine.get_ruleset("argentino", target=30)
    assert hand_index(short, None) is hand_index(long, None)  # the target changes no hand's value
    no_flor = engine.get_ruleset("argentino", flor=False)
    negras = engine.get_ruleset("argentino", negras_30=True)
    assert hand_index(no_flor, None) is not hand_index(short, None)
    assert hand_index(negras, None) is not hand_index(short, None)
    face_up = engine.get_ruleset("uruguayo")
    assert hand_index(face_up, SPANISH_DECK[0]) is not hand_index(face_up, SPANISH_DECK[1])


def test_every_listed_hand_has_the_rules_values() -> None:
    for rules, face_up in ((engine.get_ruleset("argentino", negras_30=True), None),
                           (engine.get_ruleset("uruguayo"), SPANISH_DECK[13]),
                           (engine.get_ruleset("venezolano"), SPANISH_DECK[30])):
        index = hand_index(rules, face_up)
        by_code = {c.code: c for c in rules.deck}
        for envido in (7, 27, 33):
            for flor in (None, True) if face_up is not None else (None,):
                hands = index.every_hand(envido, flor)
                assert hands is not None
                for codes, value, is_flor in hands:
                    cards = tuple(by_code[c] for c in codes)
                    assert value == envido == rules.envido(cards, face_up)
                    assert is_flor == (rules.flor and rules.flor_fn(cards, face_up) is not None)
                    assert flor is None or is_flor == flor
                    assert face_up is None or face_up.code not in codes
        card = next(c for c in rules.deck if c != face_up)
        held = index.with_card(card.code)
        others = [c for c in rules.deck if c not in (card, face_up)]
        assert len(held) == len(list(combinations(others, 2)))


def test_the_least_recently_used_index_goes_first() -> None:
    keys = [(engine.get_ruleset(variant), card) for variant in ("uruguayo", "venezolano")
            for card in SPANISH_DECK]
    assert len(keys) > INDEXES_KEPT + 2
    first, second = (hand_index(*key) for key in keys[:2])
    for key in keys[2:INDEXES_KEPT]:
        hand_index(*key)
    assert hand_index(*keys[0]) is first  # used again: now the most recent
    for key in keys[INDEXES_KEPT:INDEXES_KEPT + 2]:  # two more: the least recent goes
        hand_index(*key)
    assert hand_index(*keys[0]) is first
    assert hand_index(*keys[1]) is not second
