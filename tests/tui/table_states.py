"""Table states for the layout and snapshot tests: real engine games, fixed seeds,
16-character player names, chosen for the longest call labels on screen.

Everything here is deterministic (seeded engine, no clock, no timer), so the screens
drawn from it are the same on every run.
"""
from __future__ import annotations

import dataclasses
import random
from dataclasses import dataclass
from typing import Any

import engine
import protocol as p
from tui.calls import answers_a_bet, call_label
from tui.i18n import Translator

from tests.tui.kit import update_for

# protocol NAME_MAX (16) characters each, all different in their first five.
LONG_NAMES = ("Anastasia_Robles", "Bartolomeo_Funes", "Carolina_Zapiola",
              "Demetrio_Quiroga", "Esmeralda_Ibarra", "Filomena_Aguirre")
RESUME = "RSM-7Q2K-9XWD"
CARD_CALLS = ("play", "discard")


@dataclass(frozen=True)
class Shown:
    """One table as a seat sees it, and the update that shows it."""

    variant: str
    players: int
    seat: int | None
    state: Any
    events: tuple[Any, ...]
    names: tuple[str, ...]

    @property
    def info(self) -> p.TableInfo:
        return p.TableInfo(table_id="t1", title="la mesa larga de los sábados", variant=self.variant,
                           owner=self.names[0], seats=self.names, options={}, status="playing")

    def update(self, seq: int = 3) -> p.TableUpdate:
        update = update_for(self.state, self.seat, seq, self.events, names=self.names)
        return dataclasses.replace(update, resume_code=RESUME if self.seat is not None else "")

    def calls(self) -> list[str]:
        """The calls (not plain plays) this seat may make now, as the screen lists them."""
        if self.seat is None:
            return []
        return list(dict.fromkeys(a.call.value for a in engine.legal_actions(self.state, self.seat)
                                  if a.call.value not in CARD_CALLS))


def _label_room(variant: str, calls: list[str], lang: str) -> int:
    tr = Translator(lang)
    answering = answers_a_bet(calls)
    return sum(len(call_label(tr, variant, c, answering=answering)) + 3 for c in calls)


def longest_calls(variant: str, players: int, lang: str = "en", seed: int = 7, steps: int = 160) -> Shown:
    """The state of a seeded random game where some seat has the most call text to show
    (with at least one card on the table, so the trick grid is not empty)."""
    rules = engine.get_ruleset(variant)
    rng = random.Random(seed)
    state, events = engine.new_match(rules, players, rng)
    history: list[Any] = list(events)
    best: tuple[int, Shown] | None = None
    for _ in range(steps):
        if state.match_over:
            break
        view0 = engine.view(state, None)
        on_table = sum(len(t) for t in view0.tricks) + len(view0.current_trick)
        for seat in range(players):
            calls = list(dict.fromkeys(a.call.value for a in engine.legal_actions(state, seat)
                                       if a.call.value not in CARD_CALLS))
            if on_table and calls:
                score = _label_room(variant, calls, lang)
                if best is None or score > best[0]:
                    best = (score, Shown(variant, players, seat, state, tuple(history), LONG_NAMES[:players]))
        mover = next(s for s in range(players) if engine.legal_actions(state, s))
        bot = engine.choose_action(engine.view(state, mover), rules, rng)
        action = bot if bot is not None and rng.random() < 0.6 else rng.choice(engine.all_legal_actions(state))
        state, more = engine.advance(state, action, rng)
        history += more
        if any(getattr(e, "kind", "") == "hand_dealt" for e in more):
            history = [e for e in more]  # the screen's log starts with the hand
    assert best is not None, (variant, players)
    return best[1]


def spectator(shown: Shown) -> Shown:
    return Shown(shown.variant, shown.players, None, shown.state, shown.events, shown.names)


def to_play(variant: str, players: int, seed: int = 3, steps: int = 400) -> Shown:
    """A seeded game at the moment seat 0 is to play its second card with no bet waiting
    for an answer: what a player sees most of a hand (the calls beside the cards are few)."""
    rules = engine.get_ruleset(variant)
    rng = random.Random(seed)
    state, events = engine.new_match(rules, players, rng)
    history: list[Any] = list(events)
    for _ in range(steps):
        if state.needs_deal:
            state, more = engine.deal(state, rng)
            history = list(more)
            continue
        if (state.turn == 0 and len(state.hands[0]) == 2 and not state.truco_pending
                and engine.view(state, 0).envido_status != "betting"):
            return Shown(variant, players, 0, state, tuple(history), LONG_NAMES[:players])
        mover = next(s for s in range(players) if engine.legal_actions(state, s))
        action = engine.choose_action(engine.view(state, mover), rules, rng) or engine.legal_actions(state, mover)[0]
        state, more = engine.apply(state, action)
        history += more
    raise AssertionError(f"seat 0 never came to play its second card ({variant}, {players})")
