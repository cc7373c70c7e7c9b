"""The Venezuelan hand's own record (State.variant_hand): the envite's stake (envite.py),
what the flor declared by the players needs to remember during one hand (ley.py,
ley_end.py), estar cantando, the perico's lock and the cards passed. A hand without one
yet reads as EMPTY; the shared State has none of these fields."""

from __future__ import annotations

from dataclasses import dataclass, replace

from engine.core.events import Scoring
from engine.core.state import NO_TEAM, HandState, VariantHand


@dataclass(frozen=True, slots=True)
class VenezuelanHand(VariantHand):
    envido_stake: int = 0  # the envite's stake if accepted (see envido_falta)
    envido_prev: int = 0  # ... and what a "no quiero" pays the bettor
    envido_falta: bool = False  # the stake is la falta: computed when it is settled
    ley_mode: bool = False  # this hand's flor is declared by the players
    flor_seats: tuple[int, ...] = ()  # hidden: who holds a flor (a ley hand, from the deal)
    ley_seats: tuple[int, ...] = ()  # seats that played a ley (public)
    ley_spoken: tuple[int, ...] = ()  # a-ley seats that said tengo flor or passed
    flor_lost: tuple[tuple[int, str], ...] = ()  # hidden: (holder, rule) flores forfeited
    ley_closed: bool = False  # the flor was settled (after trick 1)
    envite_ley: bool = False  # the current (or last) envite is con ley
    conley_stake: int = 0  # an accepted envite con ley, settled with the flores
    conley_done: bool = False  # an envite con ley was made in this hand
    sinley_seats: tuple[int, ...] = ()  # seats that bet or answered in the envite sin ley
    ley_deferred: tuple[tuple[int, int, Scoring], ...] = ()  # envite and flor credits, hand end
    flor_asked: bool = False  # "pido flor" was said in this hand (001 L48)
    # ---- estar cantando, the perico, passed cards and the a-ley penalties ----
    cantando: int = NO_TEAM  # the team "cantando" in this hand (4.12.1)
    truco_forced: bool = False  # the "privo y truco" may not be declined (V-C3, V-C4)
    perico_lock: bool = False  # 001 L37: the perico played by a trick winner, no more raises
    passed: tuple[tuple[int, int], ...] = ()  # (trick number, seat): a carta pasada, face up
    passed_seats: tuple[int, ...] = ()  # seats that passed all three cards (face down)
    penalties: tuple[tuple[int, str, int], ...] = ()  # (team, rule, points withheld)

    def seen_by(self, seat: int) -> VenezuelanHand:
        """Who holds a flor and who lost one in silence are hidden, but for one's own."""
        return replace(self, flor_seats=tuple(s for s in self.flor_seats if s == seat),
                       flor_lost=tuple((s, rule) for s, rule in self.flor_lost if s == seat))

    def unsettled(self) -> str:
        # Until the a-ley flor is settled, who lost a flor by what he did is hidden
        return "a flor a ley not settled yet" if self.ley_mode and not self.ley_closed else ""

    def dealt_again(self, flor_seats: tuple[int, ...]) -> VenezuelanHand:
        # An a-ley hand keeps who holds a flor from the deal: else a seat would sing a flor
        # it no longer holds
        return replace(self, flor_seats=flor_seats) if self.ley_mode else self


EMPTY = VenezuelanHand()


def hand_of(state: HandState) -> VenezuelanHand:
    """This hand's record, or EMPTY."""
    record = state.variant_hand
    return record if isinstance(record, VenezuelanHand) else EMPTY


def in_ley(state: HandState) -> bool:
    """Is this an a-ley hand (the flor declared by the players)? Asked on every legal-action
    query of a Venezuelan hand, so it reads the record without building EMPTY."""
    record = state.variant_hand
    return isinstance(record, VenezuelanHand) and record.ley_mode
