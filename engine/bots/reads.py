"""What the other side's pending bet says of the caller's hidden cards, as a weight on a
hand drawn for it: the hard level draws its worlds by it (engine/bots/hard.py).

The normal level reads the same bets into its estimates (a truco: `infer.caller_cards`; an
envido: `moves.caller_quantile` in `Seat.envido_chance`). Hard's worlds were drawn among
every deal that agrees with the table, as if a bet said nothing: facing a truco, the caller
held any hand in them, so the search found accepting worth it where normal refuses (hard
took 11 trucos normal refused in 10 duplicate pairs against normal; 3 with the read,
2026-12-07). Here a drawn hand is kept with a chance proportional to how likely the bet
makes it, the read normal makes, so both levels take a bet for the same news.

Everything read is public: the pending call, the cards the caller played, the face-up
card; the weight depends on the drawn hand only (tests/engine/test_bots_never_peek.py).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from engine.bots import infer
from engine.bots.moves import caller_quantile
from engine.bots.seat import card_tables
from engine.bots.style import Style
from engine.core.cards import Card
from engine.core.ruleset import RuleSet
from engine.core.views import View

TRIES = 24  # drawn hands per world at most: past them the last one is kept (a rare bet)


@dataclass(frozen=True, slots=True)
class BetRead:
    """The pending bet of `seat`: `weight(hand)` up to `top`, for the hand drawn for it."""

    seat: int
    top: float
    weight: Callable[[tuple[Card, ...]], float]

    def draw(self, draw: Callable[[], Mapping[int, tuple[Card, ...]]],
             rng: random.Random) -> Mapping[int, tuple[Card, ...]]:
        """Hands from `draw`, kept with a chance weight/top (rejection sampling)."""
        hands = draw()
        for _ in range(TRIES - 1):
            if rng.random() * self.top <= self.weight(hands.get(self.seat, ())):
                break
            hands = draw()
        return hands


def pending(view: View, rules: RuleSet, style: Style) -> BetRead | None:
    """The read of the other side's bet waiting for this seat's answer, or None (no such
    bet, or nothing that a bet is read from: a truco against a side of several players)."""
    me = view.viewer
    assert me is not None
    team = view.teams[me]
    caller = view.envido_pending_seat
    if view.envido_status == "betting" and caller is not None and view.teams[caller] != team:
        return _envido(view, rules, style, caller)
    opps = [c for c in infer.clues(view, rules) if view.teams[c.seat] != team]
    caller = infer.truco_caller(view, opps)
    if caller is not None:
        def truco_weight(held: tuple[Card, ...]) -> float:
            return float(infer.truco_caller_weight(view, rules, caller, held)) if held else 1.0
        return BetRead(caller, float(infer.CALLED_RANGE), truco_weight)
    return None


def _envido(view: View, rules: RuleSet, style: Style, caller: int) -> BetRead:
    """The caller's envido is in the top of the range with the level's `caller_weight`, any
    value otherwise (a bluff): relative to a random hand, a value at or above the
    quantile's weighs w / (share of hands there) + (1 - w), one below 1 - w."""
    values = card_tables(rules, view.face_up).envido
    lo = min(int(caller_quantile(view.envido_calls, rules, style) * len(values)), len(values) - 1)
    threshold = values[lo]
    w = style.caller_weight
    high = w * len(values) / (len(values) - lo) + (1.0 - w)
    played = tuple(card for trick in (*view.tricks, view.current_trick)
                   for seat, card in trick if seat == caller)

    def envido_weight(held: tuple[Card, ...]) -> float:
        if not held:
            return high
        return high if rules.envido((*played, *held), view.face_up) >= threshold else 1.0 - w
    return BetRead(caller, high, envido_weight)
