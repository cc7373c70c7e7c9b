"""Complete states that agree with one seat's view: the worlds a searching bot plays out
(engine/bots/hard.py, issue 17).

A bot decides from its seat's view only. A search needs whole states to run `apply` on, so
the table hands the bot a `Worlds` for its seat: `make(hands)` returns the real state with
EVERY other seat's held cards replaced by the cards the bot proposes (and what the engine
derives from hidden cards rebuilt from them). The result is therefore a function of public
information and the proposal: the bot learns nothing it could not see, which the bots'
view-only test checks by re-dealing the hidden cards and comparing decisions.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence

from engine.core.cards import Card
from engine.core.state import FlorStatus, State, freeze, thaw


class NoWorld(Exception):
    """The state holds hidden information this module cannot re-deal (the bot falls back
    to a search-free decision)."""


_QUIET_FLOR = (FlorStatus.NONE, FlorStatus.DONE)


class Worlds:
    __slots__ = ("_state", "seat")

    def __init__(self, state: State, seat: int) -> None:
        self._state = state
        self.seat = seat

    def check(self) -> None:
        """Raises NoWorld when no proposal can be made into a world here: the flor round
        (whose holders are hidden), a hidden forfeited flor, a card laid away face down."""
        state = self._state
        if state.flor_status not in _QUIET_FLOR or state.phase.value != "play":
            raise NoWorld("flor round or not in play")
        if getattr(state.variant_hand, "flor_lost", ()):
            raise NoWorld("a hidden forfeited flor")
        for seat in range(state.n):
            shown = sum(1 for trick in state.tricks + (state.current,) for s, _ in trick if s == seat)
            if seat != self.seat and state.hands[seat] and len(state.dealt[seat]) != shown + len(state.hands[seat]):
                raise NoWorld(f"seat {seat} laid a card away face down")

    def make(self, hands: Mapping[int, Sequence[Card]]) -> State:
        """The state with each other seat holding `hands[seat]` instead of its cards.

        Raises NoWorld when the proposal does not fit the public table (a seat missing, a
        wrong number of cards, a card seen elsewhere) or the state is in a round whose
        hidden part is not re-dealt here (the flor round, a hidden forfeited flor)."""
        self.check()
        state = self._state
        me = self.seat
        played: dict[int, list[Card]] = {}
        for trick in state.tricks + (state.current,):
            for seat, card in trick:
                played.setdefault(seat, []).append(card)
        seen = set(state.hands[me]) | {c for cards in played.values() for c in cards}
        if state.face_up is not None:
            seen.add(state.face_up)
        new_hands = list(state.hands)
        new_dealt = list(state.dealt)
        used: set[Card] = set()
        for seat in range(state.n):
            if seat == me or not state.hands[seat]:
                continue
            proposal = tuple(hands.get(seat, ()))
            mine = tuple(played.get(seat, ()))
            if len(proposal) != len(state.hands[seat]):
                raise NoWorld(f"seat {seat} holds {len(state.hands[seat])} cards")
            if len(state.dealt[seat]) != len(mine) + len(proposal):
                raise NoWorld(f"seat {seat} laid a card away face down")
            if seen.intersection(proposal) or used.intersection(proposal):
                raise NoWorld("a proposed card is seen or given twice")
            used.update(proposal)
            new_hands[seat] = proposal
            new_dealt[seat] = mine + proposal
        rules = state.rules
        # Proofs waiting to be shown at the end of the hand, rebuilt from the new cards.
        shown = tuple(
            (seat, cards) if new_dealt[seat] is state.dealt[seat] else
            (seat, new_dealt[seat] if len(cards) == len(new_dealt[seat])
             else tuple(rules.envido_proof(new_dealt[seat], state.face_up)))
            for seat, cards in state.shown
        )
        # Only announced flores (and one's own) count once the flor round is over; an
        # announced flor must still be one with the proposed cards.
        holders = tuple(s for s in state.flor_holders if s in state.flor_announced or s == me)
        for seat in holders:
            if new_dealt[seat] is not state.dealt[seat] and rules.flor_fn(
                    new_dealt[seat], state.face_up) is None:
                raise NoWorld(f"seat {seat} sang a flor the proposal does not hold")
        w = thaw(state)  # Work: the typed, mutable copy (State's fields come from one list)
        w.hands, w.dealt, w.shown, w.flor_holders = tuple(new_hands), tuple(new_dealt), shown, holders
        record = state.variant_hand
        if getattr(record, "ley_mode", False) and hasattr(record, "flor_seats"):
            # A Venezuelan a-ley hand keeps who holds a flor from the deal (hidden): rebuilt
            # from the proposed cards, else a seat would sing a flor it no longer holds.
            seats = tuple(s for s in state.players
                          if rules.flor_fn(new_dealt[s], state.face_up) is not None)
            w.variant_hand = dataclasses.replace(record, flor_seats=seats)  # type: ignore[type-var]
        return freeze(w)
