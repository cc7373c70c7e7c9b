"""The truco ladder: raising, accepting, declining and the mazo (RULES.md 1.8)."""

from __future__ import annotations

from engine.core.actions import Action
from engine.core.calls import Call
from engine.core.events import Event
from engine.core.hand import end_hand
from engine.core.state import NO_TEAM, DealKind, State, Work


def timing_ok(state: State, seat: int) -> bool:
    return state.rules.truco_timing == "any_time" or state.turn == seat


def may_raise(state: State, seat: int) -> bool:
    """The next truco step by `seat`'s team, without a pending bet."""
    rules = state.rules
    right = state.truco_right
    return (
        state.truco_level < len(rules.truco_ladder)
        and (right == NO_TEAM or (right == state.team_of[seat] and rules.late_raises))
        and not state.raise_barred
        and timing_ok(state, seat)
    )


def truco(w: Work, events: list[Event], action: Action) -> None:
    seat, call = action.seat, action.call
    team = w.team_of[seat]
    ladder = w.rules.truco_ladder
    first_trick = not w.tricks
    if call is Call.QUIERO:
        w.truco_level = w.truco_pending
        w.truco_pending = 0
        w.truco_right = team
        w.truco_forced = False
        if first_trick and w.rules.accept_bars_envido:
            w.envido_barred = w.envido_barred | {seat}
    elif call is Call.NO_QUIERO:
        step = ladder[w.truco_pending - 1]
        w.truco_pending = 0
        why = "eleven_declined" if w.deal_kind is DealKind.ELEVEN else "truco_declined"
        end_hand(w, events, w.truco_by, why, step.declined)
    elif call is Call.MAZO:
        end_hand(w, events, 1 - team, "mazo")
    else:
        if w.truco_pending:
            # A counter-raise accepts the pending step before raising it (Brazil; the
            # Venezuelan "quiero y retruco").
            w.truco_level = w.truco_pending
            w.truco_forced = False
        w.truco_pending = w.truco_level + 1
        w.truco_by = team
        w.truco_seat = seat
        if first_trick:
            w.envido_barred = w.envido_barred | {seat}
