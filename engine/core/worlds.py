"""Complete states that agree with one seat's view: the worlds a searching bot plays out
(engine/bots/hard.py, issue 17).

A bot decides from its seat's view only. A search needs whole states to run `apply` on, so
the table hands the bot a `Worlds` for its seat: `make(hands)` returns the table's state with
EVERY other seat's held cards replaced by the cards the bot proposes (and what the engine
derives from hidden cards rebuilt from them). A `Worlds` keeps no copy of the real state,
only one stripped of what the seat cannot see, so `make` is a function of public information
and the proposal: the bot learns nothing it could not see.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from engine.core.cards import Card
from engine.core.state import FlorStatus, State, freeze, thaw


class NoWorld(Exception):
    """No proposal can be made into a world here, for a reason the seat can see (the bot
    falls back to a search-free decision)."""


_QUIET_FLOR = (FlorStatus.NONE, FlorStatus.DONE)


class Worlds:
    """The worlds of one seat. Built from the table's state, it keeps none of what the seat
    cannot see: the other seats' held cards are replaced at once by a canonical deal of the
    cards the seat has not seen, and every record derived from hidden cards (who holds a flor
    nobody sang, the proofs of a declared envido, a flor forfeited in silence under the
    Venezuelan a-ley rules) is dropped or kept only as what the table shows of it (how many
    cards a seat holds, how many proof cards it will show). So nothing here, not even its
    private fields, can tell a bot a hidden card; tests/engine/test_bots_never_peek.py deals
    the unseen cards again and checks every level decides alike."""

    __slots__ = ("seat", "_public", "_refusal", "_laid_away", "_proofs")

    def __init__(self, state: State, seat: int) -> None:
        self.seat = seat
        self._refusal = _refusal(state, seat)
        played = _played(state)
        # Cards a seat laid away face down (the Uruguayan mano's fourth card): how many is public
        self._laid_away = tuple(len(state.dealt[s]) - len(played.get(s, ())) - len(state.hands[s])
                                for s in range(state.n))
        # The proofs each seat will show at the end of the hand: how many cards (public: a sung
        # flor shows all its cards, a declared envido as many as its value needs); one's own whole.
        self._proofs = tuple((s, cards if s == seat else len(cards)) for s, cards in state.shown)
        self._public = _canonical(state, seat, played)

    def check(self) -> None:
        """Raises NoWorld when no proposal can be made into a world here: the flor round
        (whose holders are hidden), a Venezuelan a-ley flor not settled yet (who lost one in
        silence is hidden), a card laid away face down."""
        if self._refusal:
            raise NoWorld(self._refusal)
        for seat, hidden in enumerate(self._laid_away):
            if seat != self.seat and hidden and self._public.hands[seat]:
                raise NoWorld(f"seat {seat} laid a card away face down")

    def make(self, hands: Mapping[int, Sequence[Card]]) -> State:
        """The state with each other seat holding `hands[seat]`, and what the engine derives
        from hidden cards rebuilt from them.

        Raises NoWorld when the proposal does not fit the public table (a seat missing, a
        wrong number of cards, a card seen elsewhere, a sung flor it does not hold) or the
        state is in a round whose hidden part is not re-dealt here (see ``check``)."""
        self.check()
        return _rebuild(self._public, self.seat, hands, self._proofs)


def _played(state: State) -> dict[int, list[Card]]:
    played: dict[int, list[Card]] = {}
    for trick in state.tricks + (state.current,):
        for seat, card in trick:
            played.setdefault(seat, []).append(card)
    return played


def _refusal(state: State, seat: int) -> str:
    """Why no world can be made now, from what the seat can see ("": they can)."""
    if state.flor_status not in _QUIET_FLOR or state.phase.value != "play":
        return "flor round or not in play"
    if state.deal_kind.value == "blind":
        return "a blind hand: nobody sees his own cards"
    return state.variant_hand.unsettled() if state.variant_hand is not None else ""


def _seen(state: State, seat: int, played: Mapping[int, Sequence[Card]]) -> set[Card]:
    """The cards ``seat`` has seen: its own, those played face up, the face-up card."""
    seen = set(state.dealt[seat]) | {c for cards in played.values() for c in cards}
    if state.face_up is not None:
        seen.add(state.face_up)
    return seen


def _unseen(state: State, seat: int, played: Mapping[int, Sequence[Card]]) -> list[Card]:
    """The cards ``seat`` has not seen, in the deck's order."""
    seen = _seen(state, seat, played)
    return [c for c in state.rules.deck if c not in seen]


def _canonical(state: State, seat: int, played: Mapping[int, Sequence[Card]]) -> State:
    """The state with the other seats' held cards replaced by the unseen cards in the deck's
    order (a function of what ``seat`` saw) and the hidden records dropped."""
    pool = iter(_unseen(state, seat, played))
    hands = list(state.hands)
    dealt = list(state.dealt)
    for s in range(state.n):
        if s == seat:
            continue
        hands[s] = tuple(next(pool) for _ in state.hands[s])
        dealt[s] = tuple(played.get(s, ())) + hands[s]
    w = thaw(state)
    w.hands, w.dealt = tuple(hands), tuple(dealt)
    w.shown = tuple((s, cards) for s, cards in state.shown if s == seat)
    w.flor_holders = tuple(s for s in state.flor_holders if s in state.flor_announced or s == seat)
    if state.variant_hand is not None:  # (the Venezuelan a-ley flores: who holds one, who lost one)
        w.variant_hand = state.variant_hand.seen_by(seat)
    return freeze(w)


def _rebuild(public: State, me: int, hands: Mapping[int, Sequence[Card]],
             proofs: tuple[tuple[int, int | tuple[Card, ...]], ...]) -> State:
    played = _played(public)
    seen = _seen(public, me, played)
    new_hands = list(public.hands)
    new_dealt = list(public.dealt)
    used: set[Card] = set()
    for seat in range(public.n):
        if seat == me or not public.hands[seat]:
            continue
        proposal = tuple(hands.get(seat, ()))
        if len(proposal) != len(public.hands[seat]):
            raise NoWorld(f"seat {seat} holds {len(public.hands[seat])} cards")
        if seen.intersection(proposal) or used.intersection(proposal):
            raise NoWorld("a proposed card is seen or given twice")
        used.update(proposal)
        new_hands[seat] = proposal
        new_dealt[seat] = tuple(played.get(seat, ())) + proposal
    rules = public.rules
    # Proofs waiting to be shown at the end of the hand, rebuilt from the new cards: a whole
    # hand (a sung flor) or the envido's proof.
    shown = tuple(
        (seat, proof) if isinstance(proof, tuple) else
        (seat, new_dealt[seat] if proof == len(new_dealt[seat])
         else tuple(rules.envido_proof(new_dealt[seat], public.face_up)))
        for seat, proof in proofs
    )
    # Only announced flores (and one's own) count once the flor round is over; an announced
    # flor must still be one with the proposed cards.
    for seat in public.flor_holders:
        if seat != me and rules.flor_fn(new_dealt[seat], public.face_up) is None:
            raise NoWorld(f"seat {seat} sang a flor the proposal does not hold")
    w = thaw(public)  # Work: the typed, mutable copy (State's fields come from one list)
    w.hands, w.dealt, w.shown = tuple(new_hands), tuple(new_dealt), shown
    if public.variant_hand is not None:
        flores = tuple(s for s in public.players if rules.flor_fn(new_dealt[s], public.face_up) is not None)
        w.variant_hand = public.variant_hand.dealt_again(flores)
    return freeze(w)
