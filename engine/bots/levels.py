"""The bot levels by name (issue 17), one module each:

    easy     engine/bots/easy.py     the rule-based bot with more mistakes
    normal   engine/bots/normal.py   + inference from the public table, score-aware tunables
    hard     engine/bots/hard.py     + information-set search over the rest of the hand

    action = choose_for_level("hard", view, rules, rng, worlds=engine.Worlds(state, seat))

Every level decides from the seat's view; `worlds` (only read by `hard`) builds complete
states from hidden cards the bot proposes, never showing the real ones. `signals` is what
the partners signalled before this decision (engine/bots/signals.py).
"""

from __future__ import annotations

import random

from engine.bots import easy, hard, normal
from engine.bots.signals import Signals
from engine.core.actions import Action
from engine.core.ruleset import RuleSet
from engine.core.views import View
from engine.core.worlds import Worlds

LEVELS = ("easy", "normal", "hard")
DEFAULT_LEVEL = "normal"


def choose_for_level(level: str, view: View, rules: RuleSet, rng: random.Random, *,
                     worlds: Worlds | None = None, signals: Signals | None = None,
                     strict: bool = False) -> Action | None:
    """The level's action for `view.viewer` (None: it waits; see engine/bots/bot.py).
    An unknown level name plays as the default level."""
    if level == "easy":
        return easy.choose(view, rules, rng, signals=signals, strict=strict)
    if level == "hard":
        return hard.choose(view, rules, rng, worlds=worlds, signals=signals, strict=strict)
    return normal.choose(view, rules, rng, signals=signals, strict=strict)
