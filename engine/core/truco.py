"""The truco ladder: raising, accepting, declining and the mazo (docs/RULES.md 1.8)."""

from __future__ import annotations

from engine.core.actions import Action, action as mk
from engine.core.calls import TRUCO_CALLS, Call
from engine.core.errors import Reason
from engine.core.events import Event, Scoring
from engine.core.hand import end_hand
from engine.core.ruleset import TrucoStep, TrucoTiming
from engine.core.state import NO_TEAM, DealKind, State, Work

# Enum members the hot path compares with, as module globals (a member lookup on the
# enum class costs ~60 ns, a global ~8 ns; legal_actions runs them for every seat).
_ANY_TIME = TrucoTiming.ANY_TIME
_QUIERO, _NO_QUIERO = Call.QUIERO, Call.NO_QUIERO
# Tuples, not frozensets: `in` on a few enum members compares identities in C, while a set
# lookup runs Enum.__hash__ in Python (about three times slower).
TRUCO_FAMILY = (*TRUCO_CALLS, Call.QUIERO, Call.NO_QUIERO, Call.MAZO)
_RAISES = TRUCO_CALLS

# Refusals without a detail, built once (a check that fails returns one of these).
_NO_BET = Reason("no_bet", "there is no bet for you to answer")
_FORCED = Reason("truco_forced", "the truco must be played: it cannot be declined (estar cantando)")
_MAZO_OFF = Reason("mazo_off", "me voy al mazo is not allowed at this table")
_MAZO_WHEN = Reason("mazo_when", "you may go to the mazo only on your turn or when answering a truco")
_NO_RAISES = Reason("no_raises", "no raising in this hand (eleven rule)")
_QUIERO_FIRST = Reason("quiero_first", "say quiero first: a raise is only allowed after accepting the bet")
TRUCO_WAITING = Reason("truco_waiting", "your team's truco call is waiting for an answer")
_NO_RIGHT = Reason("no_right", "your team does not hold the right to raise: the other team accepted last")
_WITH_QUIERO = Reason("raise_with_quiero", "raises only together with quiero at this table")
_OWN_TURN = Reason("own_turn_truco", "truco may only be called on your own turn at this table")


def truco(w: Work, events: list[Event], action: Action) -> None:
    seat, call = action.seat, action.call
    team = w.team_of[seat]
    ladder = w.rules.truco_ladder
    first_trick = not w.tricks
    if call is Call.QUIERO:
        w.truco_level = w.truco_pending
        w.truco_pending = 0
        w.truco_right = team
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
        w.truco_pending = w.truco_level + 1
        w.truco_by = team
        w.truco_seat = seat
        if first_trick:
            w.envido_barred = w.envido_barred | {seat}


def truco_refusal(state: State, action: Action) -> Reason | None:
    """A truco-ladder call, an answer to a truco or the mazo (no envido bet pending)."""
    seat, call = action.seat, action.call
    team = state.team_of[seat]
    if call in _RAISES:
        if call not in _ladder_calls(state.rules.truco_ladder):
            return Reason("not_in_variant", f"{call.value} is not a call of this game")
        return _raise_refusal(state, seat, call, team)
    if call is _QUIERO or call is _NO_QUIERO:
        return _answer_refusal(state, call, team)
    return mazo_refusal(state, seat)


def _answer_refusal(state: State, call: Call, team: int) -> Reason | None:
    if not state.truco_pending or team == state.truco_by:
        return _NO_BET
    if call is _NO_QUIERO and not state.rules.hooks.truco_declinable(state):
        return _FORCED
    return None


def mazo_refusal(state: State, seat: int) -> Reason | None:
    """Me voy al mazo: where the table allows it, on one's own turn or answering a truco
    (OP-AR-10)."""
    if not state.rules.mazo_allowed(state.n):
        return _MAZO_OFF
    if (state.team_of[seat] != state.truco_by) if state.truco_pending else (state.turn == seat):
        return None
    return _MAZO_WHEN


_LADDER_CALLS: dict[int, tuple[tuple[TrucoStep, ...], tuple[Call, ...]]] = {}


def _ladder_calls(ladder: tuple[TrucoStep, ...]) -> tuple[Call, ...]:
    """The calls of a ladder, built once per ladder (the entry keeps the ladder, so an id
    reused by another ladder is noticed)."""
    entry = _LADDER_CALLS.get(id(ladder))
    if entry is None or entry[0] is not ladder:
        entry = _LADDER_CALLS[id(ladder)] = (ladder, tuple(step.call for step in ladder))
    return entry[1]


def truco_actions(state: State, seat: int) -> list[Action]:
    """`seat`'s answers to a truco and raises that pass `truco_refusal` (the mazo apart:
    it comes last in a player's list)."""
    ladder = state.rules.truco_ladder
    pending = state.truco_pending
    team = state.team_of[seat]
    if pending:
        if team == state.truco_by:
            return []  # every answer's check starts with this
        acts = [mk(seat, call) for call in (_QUIERO, _NO_QUIERO) if _answer_refusal(state, call, team) is None]
        step = pending  # a counter-raise (the raise's check says where the table has none)
    else:
        acts = []
        step = state.truco_level
    if step < len(ladder):
        call = ladder[step].call
        if _raise_refusal(state, seat, call, team) is None:
            acts.append(mk(seat, call))
    return acts


def _raise_refusal(state: State, seat: int, call: Call, team: int) -> Reason | None:
    """A step of this game's ladder (`truco_refusal` routes only those here)."""
    rules = state.rules
    ladder = rules.truco_ladder
    if state.raise_barred:
        return rules.hooks.raise_bar_reason(state) or _NO_RAISES
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
        return _QUIERO_FIRST
    if pending:
        return TRUCO_WAITING
    right = state.truco_right
    if right != NO_TEAM and right != team:
        return _NO_RIGHT
    if state.truco_level >= len(ladder):
        return Reason("bet_highest", f"{ladder[-1].call.value} is the highest bet")
    if right != NO_TEAM and not rules.late_raises:
        return _WITH_QUIERO
    if rules.truco_timing is not _ANY_TIME and state.turn != seat:
        return _OWN_TURN
    if call is not ladder[state.truco_level].call:
        return Reason("next_bet", f"the next bet is {ladder[state.truco_level].call.value}")
    return None
