"""Maldon (OPT-MALDON, docs/RULES.md 1.13, OP-AR-26): a misdeal claim that throws the hand in.
Who may claim it and why a claim is refused, in one place."""

from __future__ import annotations

from engine.core.cards import Card
from engine.core.errors import Reason
from engine.core.ruleset import Maldon
from engine.core.state import EnvidoStatus, FlorStatus, Phase, State
from engine.rules.scoring import ARGENTINE_STRENGTH, MALDON_MAX_STRENGTH


def is_maldon(cards: tuple[Card, ...]) -> bool:
    """Two 4s and a card "without a signal": a 12 or lower, rank classes 8-14 of docs/RULES.md
    1.3, a third 4 included (OP-AR-26). The signalled cards are the bravas, 3s, 2s, false
    aces."""
    fours = sum(1 for c in cards if c.rank == 4)
    if fours < 2:
        return False
    return all(c.rank == 4 or ARGENTINE_STRENGTH[c.code] <= MALDON_MAX_STRENGTH for c in cards)


def refusal(state: State, seat: int) -> Reason | None:
    """OPT-MALDON: may `seat` throw this hand in? Only before anything has happened in it
    (no card played, no bet, no flor announced), and only with a maldon hand."""
    rules = state.rules
    if rules.maldon is Maldon.OFF:
        return Reason("maldon_off", "maldon is not played at this table")
    if rules.maldon is Maldon.MANO and seat != state.mano:
        return Reason("maldon_mano", "only the mano may claim maldon at this table")
    if state.phase is Phase.FLOR:
        untouched = state.flor_status is FlorStatus.ANNOUNCING and state.flor_idx == 0
    else:
        untouched = (
            state.phase is Phase.PLAY
            and state.flor_status is FlorStatus.NONE
            and state.envido_status is EnvidoStatus.OPEN
        )
    if (
        untouched
        and seat in state.players
        and not (state.tricks or state.current or state.truco_level or state.truco_pending)
        and is_maldon(state.dealt[seat])
    ):
        return None
    return Reason("maldon_hand", "maldon needs two 4s and a card without a signal, before anything is played")
