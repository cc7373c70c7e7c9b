"""The Venezuelan a-ley hand's own record (State.variant_hand): what the flor declared by
the players needs to remember during one hand (ley.py, ley_end.py). A hand without it
(flor_declaration="automatic", estar cantando, flor off) reads as NO_LEY."""

from __future__ import annotations

from dataclasses import dataclass

from engine.core.events import Scoring
from engine.core.state import HandState, VariantHand


@dataclass(frozen=True, slots=True)
class LeyHand(VariantHand):
    ley_mode: bool = False  # this hand's flor is declared by the players
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


NO_LEY = LeyHand()


def ley_of(state: HandState) -> LeyHand:
    """This hand's a-ley record, or NO_LEY."""
    record = state.variant_hand
    return record if isinstance(record, LeyHand) else NO_LEY
