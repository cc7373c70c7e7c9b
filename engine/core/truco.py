"""The truco ladder: raising, accepting, declining and the mazo (RULES.md 1.8)."""

from __future__ import annotations

from engine.core.actions import Action, action as mk
from engine.core.calls import TRUCO_CALLS, Call
from engine.core.errors import Reason
from engine.core.events import Event, Scoring
from engine.core.hand import end_hand
from engine.core.ruleset import TrucoTiming
from engine.core.state import NO_TEAM, DealKind, State, Work

# Enum members the hot path compares with, as module globals (a member lookup on the
# enum class costs ~60 ns, a global ~8 ns; legal_actions runs them for every seat).
_ANY_TIME = TrucoTiming.ANY_TIME


def timing_ok(state: State, seat: int) -> bool:
    return state.rules.truco_timing is _ANY_TIME or state.turn == seat


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
        why = Scoring.ELEVEN_DECLINED if w.deal_kind is DealKind.ELEVEN else Scoring.TRUCO_DECLINED
        end_hand(w, events, w.truco_by, why, step.declined)
    elif call is Call.MAZO:
        end_hand(w, events, 1 - team, Scoring.MAZO)
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


def truco_refusal(state: State, action: Action) -> Reason | None:
    """A truco-ladder call, an answer to a truco or the mazo (no envido bet pending)."""
    seat, call = action.seat, action.call
    team = state.team_of[seat]
    if call in TRUCO_CALLS:
        return _raise_refusal(state, seat, call, team)
    pending = state.truco_pending
    if call is Call.QUIERO or call is Call.NO_QUIERO:
        if not pending or team == state.truco_by:
            return Reason("no_bet", "there is no bet for you to answer")
        if call is Call.NO_QUIERO and state.truco_forced:
            return Reason("truco_forced", "the truco must be played: it cannot be declined (estar cantando)")
        return None
    if not state.rules.mazo_allowed(state.n):
        return Reason("mazo_off", "me voy al mazo is not allowed at this table")
    if (team != state.truco_by) if pending else (state.turn == seat):
        return None  # answering a truco, or on one's own turn (OP-AR-10)
    return Reason("mazo_when", "you may go to the mazo only on your turn or when answering a truco")


def truco_actions(state: State, seat: int) -> list[Action]:
    """`seat`'s answers to a truco and raises that pass `truco_refusal` (the mazo apart:
    it comes last in a player's list)."""
    ladder = state.rules.truco_ladder
    pending = state.truco_pending
    if pending:
        if state.team_of[seat] == state.truco_by:
            return []  # every answer's check starts with this
        candidates = [mk(seat, Call.QUIERO), mk(seat, Call.NO_QUIERO)]
        if pending < len(ladder):
            candidates.append(mk(seat, ladder[pending].call))
    elif state.truco_level < len(ladder):
        candidates = [mk(seat, ladder[state.truco_level].call)]
    else:
        return []
    return [a for a in candidates if truco_refusal(state, a) is None]


def mazo_actions(state: State, seat: int) -> list[Action]:
    mazo = mk(seat, Call.MAZO)
    return [mazo] if truco_refusal(state, mazo) is None else []


def _raise_refusal(state: State, seat: int, call: Call, team: int) -> Reason | None:
    rules = state.rules
    ladder = rules.truco_ladder
    if call not in [step.call for step in ladder]:
        return Reason("not_in_variant", f"{call.value} is not a call of this game")
    if state.perico_lock:
        return Reason("perico_lock", "the perico was played by a trick winner: no more raises (001 L37)")
    if state.raise_barred:
        return Reason("no_raises", "no raising in this hand (eleven rule)")
    pending = state.truco_pending
    if pending and team != state.truco_by:
        if rules.counter_raise:
            # A counter-raise answers the bet and accepts it (Brazil OP-BR-3, OP-BR-9;
            # Venezuela "quiero y retruco", 001 L34-36).
            if pending < len(ladder):
                if call is ladder[pending].call:
                    return None
                return Reason("raise_is", f"the raise now is {ladder[pending].call.value}")
            return Reason("bet_highest", "the bet is at its highest")
        return Reason("quiero_first", "say quiero first: a raise is only allowed after accepting the bet")
    if pending:
        return Reason("truco_waiting", "your team's truco call is waiting for an answer")
    if state.truco_right not in (NO_TEAM, team):
        return Reason("no_right", "your team does not hold the right to raise: the other team accepted last")
    if state.truco_level >= len(ladder):
        return Reason("bet_highest", f"{ladder[-1].call.value} is the highest bet")
    if state.truco_right != NO_TEAM and not rules.late_raises:
        return Reason("raise_with_quiero", "raises only together with quiero at this table")
    if not timing_ok(state, seat):
        return Reason("own_turn_truco", "truco may only be called on your own turn at this table")
    if call is not ladder[state.truco_level].call:
        return Reason("next_bet", f"the next bet is {ladder[state.truco_level].call.value}")
    return None
