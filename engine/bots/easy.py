"""The `easy` level: the rule-based bot (engine/bots/bot.py) making more mistakes.

A share of its obliged decisions is replaced by another legal move of the same kind: a
random card instead of the chosen one, a random answer to a bet. It never gives up the hand
(the mazo) by mistake and never takes an initiative it did not choose, so it stays a
plausible, if careless, player.
"""

from __future__ import annotations

import random

from engine.bots.bot import choose_action
from engine.bots.seat import ACCEPT, DECLINE, PLAY, TRUCO, call_family
from engine.bots.signals import Signals
from engine.core.actions import Action
from engine.core.ruleset import RuleSet
from engine.core.views import View

MISTAKE = 0.3  # share of card plays and bet answers replaced by a random one of their kind
_ANSWERS = (ACCEPT, DECLINE, TRUCO)


def choose(view: View, rules: RuleSet, rng: random.Random, *,
           signals: Signals | None = None, strict: bool = False) -> Action | None:
    chosen = choose_action(view, rules, rng, strict=strict)
    if chosen is None or rng.random() >= MISTAKE:
        return chosen
    family = call_family(chosen.call, rules)
    if family == PLAY:
        kind: tuple[str, ...] = (PLAY,)
    elif family in (ACCEPT, DECLINE) or (family == TRUCO and view.truco_pending):
        kind = _ANSWERS
    else:
        return chosen
    same = [a for a in view.legal if call_family(a.call, rules) in kind]
    return same[rng.randrange(len(same))] if same else chosen
