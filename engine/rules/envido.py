"""The envido ladder (docs/RULES.md 1.7.2, 1.8.2): openings, answers, and declaring values.

Values are declared in mano order; a player facing a better value may say "son buenas"
instead of revealing his own, and a player whose partner holds the best value is skipped
until an opponent beats it (example AR-19). So a value is revealed only when it must be.
"""

from __future__ import annotations

from engine.core.actions import Action, action as mk
from engine.core.errors import Reason
from engine.core.calls import Call
from engine.core.events import Acted, Event, Scoring
from engine.core.hand import end_hand_now
from engine.core.ledger import credit, leader_needs
from engine.core.ruleset import TrucoTiming
from engine.core.truco import TRUCO_WAITING
from engine.core.ruleset import EnvidoReplies
from engine.core.state import EnvidoStatus, HandState, State, Work

# Enum members the hot path compares with, as module globals (a member lookup on the
# enum class costs ~60 ns, a global ~8 ns; legal_actions runs them for every seat).
_ANY_TIME = TrucoTiming.ANY_TIME


_DONE = Reason("envido_done", "the envido has already been played in this hand")
_FLOR = Reason("envido_flor", "a flor was announced: there is no envido in this hand")
_FIRST_TRICK = Reason("envido_first_trick", "envido is only possible during the first trick")
_NOT_NOW = Reason("not_now", "envido is not possible now")
_BARRED = Reason("envido_barred", "you can no longer call envido: you have played a card or bet on the truco")
_OWN_TURN = Reason("own_turn_envido", "envido may only be called on your own turn at this table")
_OPEN = EnvidoStatus.OPEN


def opening_gate(state: State, seat: int) -> Reason | None:
    """May `seat` open the envido now (whatever the call)? The seat-level half of
    `opening_refusal`, shared with the Venezuelan envite: run once per seat by the lists of
    legal openings, and first by every opening's check."""
    status = state.envido_status
    if status is not _OPEN:
        if status is EnvidoStatus.DONE:
            return _DONE
        if status is EnvidoStatus.CLOSED:
            return _FLOR if state.flor_announced else _FIRST_TRICK
        return _NOT_NOW
    if seat in state.envido_barred:
        return _BARRED
    if state.truco_pending:
        if state.team_of[seat] == state.truco_by:
            return TRUCO_WAITING
        return None  # a player facing a truco may always open envido first (OP-AR-6)
    if state.rules.truco_timing is _ANY_TIME or state.turn == seat:
        return None
    return _OWN_TURN


def opening_refusal(state: State, action: Action) -> Reason | None:
    """An envido-ladder opening (the caller routes only the ladder's calls here)."""
    return opening_gate(state, action.seat)


def legal_openings(state: State, seat: int) -> list[Action]:
    if opening_gate(state, seat) is not None:
        return []
    return [mk(seat, step.call) for step in state.rules.envido_ladder]


def _stake(state: HandState, calls: tuple[Call, ...]) -> int:
    rules = state.rules
    return sum(s.points for c in calls if (s := rules.envido_step(c)) is not None)


_ANSWER = Reason("envido_answer", "answer the envido first (quiero, no quiero or a raise)")


def answer_refusal(state: State, action: Action) -> Reason | None:
    """An answer to the other team's envido bet: quiero, no quiero or a raise the table's
    mode allows (OP-AR-4) below the target."""
    call = action.call
    if call is Call.QUIERO or call is Call.NO_QUIERO:
        return None
    rules = state.rules
    step = rules.envido_step(call)
    calls = state.envido_calls
    last = rules.envido_step(calls[-1])
    assert last is not None
    if step is None or last.call is Call.FALTA_ENVIDO or step.level < last.level:
        return _ANSWER  # falta envido cannot be raised
    mode = rules.envido_max_replies
    if mode is EnvidoReplies.A and len(calls) >= 3:
        return _ANSWER
    if step.call is not Call.FALTA_ENVIDO:
        if mode is EnvidoReplies.B and step.call is Call.ENVIDO and calls.count(Call.ENVIDO) >= 2:
            return _ANSWER
        if _stake(state, calls) + step.points > rules.target:
            # A stake above the target decides nothing more (engine policy). In every
            # mode: reading b limits only plain envidos, so real envido could repeat
            # forever (two bots did exactly that).
            return _ANSWER
    return None


def legal_answers(state: State, seat: int) -> list[Action]:
    candidates = [mk(seat, Call.QUIERO), mk(seat, Call.NO_QUIERO)]
    candidates += [mk(seat, step.call) for step in state.rules.envido_ladder]
    return [a for a in candidates if answer_refusal(state, a) is None]


def accepted_points(w: HandState) -> int:
    if w.envido_calls[-1] is Call.FALTA_ENVIDO:
        return leader_needs(w, w.rules.target)
    return _stake(w, w.envido_calls)


def declined_points(w: HandState) -> int:
    calls = w.envido_calls
    return 1 if len(calls) == 1 else _stake(w, calls[:-1])


def bet(w: Work, events: list[Event], action: Action) -> None:
    seat, call = action.seat, action.call
    team = w.team_of[seat]
    if w.envido_status is EnvidoStatus.OPEN:
        w.envido_calls = (call,)
        w.envido_by = team
        w.envido_seat = seat
        w.envido_status = EnvidoStatus.BETTING
        w.envido_barred = w.envido_barred | {seat}
        return
    if call is Call.QUIERO:
        w.envido_status = EnvidoStatus.DECLARING
        return
    if call is Call.NO_QUIERO:
        points = declined_points(w)
        w.envido_status = EnvidoStatus.DONE
        w.envido_result = (w.envido_by, points)
        if credit(w, events, w.envido_by, points, Scoring.ENVIDO_DECLINED):
            end_hand_now(w, events)
        return
    w.envido_calls = w.envido_calls + (call,)
    w.envido_by = team
    w.envido_seat = seat


def next_declarer(state: HandState) -> int:
    declared = {seat for seat, _ in state.envido_decl}
    best = state.envido_best
    for seat in state.players:
        if seat in declared or (best >= 0 and state.team_of[seat] == state.team_of[best]):
            continue
        return seat
    return -1


def _value(state: HandState, seat: int) -> int:
    return state.rules.envido(state.dealt[seat], state.face_up)


def _best_value(state: HandState) -> int:
    for seat, value in state.envido_decl:
        if seat == state.envido_best:
            assert value is not None
            return value
    return -1


def beats(state: HandState, seat: int) -> bool:
    best = state.envido_best
    if best < 0:
        return True
    value, best_value = _value(state, seat), _best_value(state)
    if value != best_value:
        return value > best_value
    # Equal values: the player nearer the mano wins (docs/RULES.md 1.7.2).
    return state.players.index(seat) < state.players.index(best)


_DECLARING = Reason("envido_declaring", "the envido values are being declared")


def declare_refusal(state: State, action: Action) -> Reason | None:
    """Declaring a value (only one that beats the best so far) or son buenas (only once a
    value was declared), by the next declarer in mano order."""
    seat = action.seat
    reason = _declarer_gate(state, seat)
    if reason is not None:
        return reason
    if action.call is Call.SON_BUENAS:
        return None if state.envido_best >= 0 else _DECLARING
    return None if beats(state, seat) else _DECLARING


def _declarer_gate(state: State, seat: int) -> Reason | None:
    """Is it `seat`'s turn to declare? The seat-level half of `declare_refusal`."""
    if state.envido_status is not EnvidoStatus.DECLARING:
        return Reason("no_declaring", "no envido values are being declared")
    return None if next_declarer(state) == seat else _DECLARING


def legal_declare(state: State, seat: int) -> list[Action]:
    if _declarer_gate(state, seat) is not None:
        return []
    candidates = [mk(seat, Call.SON_BUENAS), mk(seat, Call.DECLARE_ENVIDO)]
    return [a for a in candidates if declare_refusal(state, a) is None]


def declare(w: Work, events: list[Event], action: Action) -> None:
    seat = action.seat
    if action.call is Call.DECLARE_ENVIDO:
        value = _value(w, seat)
        w.envido_decl = w.envido_decl + ((seat, value),)
        w.envido_best = seat
        events.append(Acted(seat, action.call.value, None, value))
    else:
        w.envido_decl = w.envido_decl + ((seat, None),)
        events.append(Acted(seat, action.call.value))
    if next_declarer(w) >= 0:
        return
    best = w.envido_best
    team = w.team_of[best]
    points = w.rules.hooks.envido_accepted(w)  # the Venezuelan envite declares here too
    w.envido_status = EnvidoStatus.DONE
    w.envido_result = (team, points)
    w.shown = w.shown + ((best, w.rules.envido_proof(w.dealt[best], w.face_up)),)
    if credit(w, events, team, points, Scoring.ENVIDO):
        end_hand_now(w, events)
