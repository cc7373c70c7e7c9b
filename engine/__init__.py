"""Pure rules engine for truco (docs/ARCHITECTURE.md, "The engine"). No I/O, no asyncio.

Start and drive a match::

    import random, engine
    rules = engine.get_ruleset("argentino", target=30, flor=True)
    rng = random.Random(seed)
    state, events = engine.new_match(rules, n_players=4, rng=rng)   # includes the first deal
    engine.legal_actions(state, seat)           # -> list[Action] for that seat (maybe empty)
    state, events = engine.apply(state, action)  # raises IllegalAction(reason)
    if state.needs_deal:                          # a hand ended: chance acts next
        state, more = engine.deal(state, rng)     # shuffles with rng, records a hand_dealt event
    # or, in one call: state, events = engine.advance(state, action, rng)
    engine.view(state, seat_or_None)             # what one seat (None: spectator) may see
    engine.views(state, seats)                   # the same for several viewers, shared parts once
    engine.project_event(event, seat_or_None)    # the event as that viewer may see it
    engine.replay(rules, n_players, events)      # rebuilds the identical state, no rng needed

Seats are numbered in playing order (counter-clockwise); team = seat % 2. The mano is the
seat after the dealer. Several seats may act at the same time (any player of a team may
answer a bet made to it); `View.awaiting` lists them.

Wire forms (plain msgpack data): `Action.to_wire()` / `action_from_wire(d)`,
`event.to_wire()` / `event_from_wire(d)`, `View.to_wire()`; cards as text ("1e", "12c").
The variant catalog for a "New table" form: `variant_catalog()`.

Layout (engine/DECISIONS.md, "Engine layout"): `core/` the shared hand, `rules/` the rule
families shared by variants, `variants/` one module or package per variant and the registry,
`bots/` the bot; imports run one way, core <- rules <- variants <- bots.
"""

from __future__ import annotations

import random

from engine.bots.bot import choose_action
from engine.core.actions import Action, Deal, action_from_fields, action_from_wire, deal_from_wire
from engine.core.calls import Call
from engine.core.cards import Card, Suit, parse_cards
from engine.core.errors import IllegalAction
from engine.core.events import (
    Acted,
    CardsShown,
    Event,
    FlorAnswered,
    GameEnded,
    HandDealt,
    HandEnded,
    HandStarted,
    MatchEnded,
    MatchStarted,
    PointsScored,
    PointsWithheld,
    SeatCovered,
    TrickEnded,
    event_from_wire,
    project_event,
)
from engine.core.game import all_legal_actions, apply, deal, legal_actions, new_match, replay
from engine.core.ruleset import RuleSet
from engine.core.state import DealKind, EnvidoStatus, FlorStatus, HandSummary, Phase, State
from engine.core.views import View, malas_buenas, view, views
from engine.core.view_wire import view_from_wire
from engine.variants.catalog import OptionSpec, VariantSpec, resolve_options, variant_catalog
from engine.variants.registry import envido_value, flor_value, get_ruleset, trick_strength


def advance(state: State, action: Action, rng: random.Random) -> tuple[State, list[Event]]:
    """`apply`, then deal the next hand with `rng` if the action ended one."""
    state, events = apply(state, action)
    if state.needs_deal:
        state, more = deal(state, rng)
        events = events + more
    return state, events


__all__ = [
    "Acted", "Action", "Call", "Card", "CardsShown", "Deal", "DealKind", "EnvidoStatus",
    "Event", "FlorAnswered", "FlorStatus", "GameEnded", "HandDealt", "HandEnded", "HandStarted",
    "HandSummary", "IllegalAction", "MatchEnded", "MatchStarted", "OptionSpec", "Phase",
    "PointsScored", "PointsWithheld", "RuleSet", "SeatCovered", "State", "Suit", "TrickEnded", "VariantSpec", "View",
    "action_from_fields", "action_from_wire", "advance", "all_legal_actions", "apply", "deal", "deal_from_wire",
    "envido_value", "event_from_wire", "flor_value", "get_ruleset", "legal_actions",
    "malas_buenas", "new_match", "parse_cards", "project_event", "replay", "trick_strength",
    "variant_catalog", "view", "view_from_wire", "views",
]
__all__ += ["choose_action", "resolve_options"]  # the bot of issue 6 (engine/bots/); the option check
# The bot levels of issue 17 and the worlds the hard level searches (engine/bots/levels.py).
from engine.bots.levels import DEFAULT_LEVEL as BOT_DEFAULT_LEVEL, LEVELS as BOT_LEVELS, choose_for_level  # noqa: E402
from engine.core.worlds import NoWorld, Worlds  # noqa: E402

__all__ += ["BOT_DEFAULT_LEVEL", "BOT_LEVELS", "NoWorld", "Worlds", "choose_for_level"]
