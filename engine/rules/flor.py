"""Flor (docs/RULES.md 1.9): announcements and the flor betting states of 1.9.4.

Flor is mandatory and the engine knows every hand, so the flor round comes first in a hand
in which anyone holds a flor: "flor betting is settled at once, before anything else"
(engine/DECISIONS.md, flor). Holders speak in mano order (round one); a concession made before a
partner has spoken is cancelled if that partner announces (table row 5). If both teams
announced plainly, each holder may then raise, concede or pass (round two). A pending
contraflor is answered by any holder of the other team.
"""

from __future__ import annotations

from engine.core.actions import Action, action as mk
from engine.core.errors import Reason
from engine.core.calls import Call
from engine.core.events import Event, Scoring
from engine.core.hand import end_hand_now
from engine.core.ledger import contraflor_stake, credit, team_score
from engine.core.state import NO_TEAM, EnvidoStatus, FlorStatus, Phase, State, Work


def start(w: Work) -> None:
    w.flor_holders = ()
    w.flor_announced = ()
    w.flor_idx = 0
    w.flor_level = 0
    w.flor_by = NO_TEAM
    w.flor_seat = -1
    w.flor_accepted = False
    w.flor_conceded = NO_TEAM
    w.flor_cf_by = NO_TEAM
    w.flor_passes = 0
    w.flor_status = FlorStatus.NONE
    rules = w.rules
    if not rules.flor:
        return
    holders = tuple(p for p in w.players if rules.flor_fn(w.dealt[p], w.face_up) is not None)
    if not holders:
        return
    # OPT-FLOR-OPTIONAL: every player of the hand speaks in round one (a non-holder can
    # only pass), so staying quiet with a flor looks exactly like holding none.
    w.flor_holders = tuple(w.players) if rules.flor_optional else holders
    w.flor_status = FlorStatus.ANNOUNCING
    w.phase = Phase.FLOR
    w.envido_status = EnvidoStatus.CLOSED  # a flor cancels envido for the whole hand


def holds_flor(state: State, seat: int) -> bool:
    return state.rules.flor_fn(state.dealt[seat], state.face_up) is not None


def _raise_ok(state: State, call: Call) -> bool:
    """Contraflor only over a plain flor, contraflor al resto over anything below it."""
    if call is Call.CONTRAFLOR:
        return state.flor_level < 1
    return call is Call.CONTRAFLOR_AL_RESTO and state.flor_level < 2


def _announcing_ok(state: State, call: Call, team: int) -> bool:
    """A holder's choices in round one: announce, or answer what the other team said."""
    if call is Call.FLOR:
        return True
    if state.flor_accepted:
        return False
    if state.flor_conceded != NO_TEAM:
        return call is Call.CON_FLOR_ME_ACHICO and state.flor_conceded == team
    if not any(state.team_of[h] != team for h in state.flor_announced):
        return False
    if call is Call.CON_FLOR_ME_ACHICO:
        return True
    if call is Call.CON_FLOR_QUIERO:
        return state.flor_by == 1 - team
    return state.flor_by != team and _raise_ok(state, call)


# The refusals, built once (the legal list checks several candidates per seat).
_FLOR_ROUND = Reason("flor_round", "the flor is being settled: only players holding a flor speak now")
_FLOR_WAITING = Reason("flor_waiting", "your team's flor bet is waiting for an answer")
_FLOR_ANSWER = Reason(
    "flor_answer", "answer the flor bet: con flor quiero, con flor me achico or contraflor al resto"
)
_OTHER_TURN = Reason("flor_other_turn", "it is another flor holder's turn to speak")
_PASS_ONLY = Reason("flor_pass_only", "the flor round: you may only pass")
_NO_BET = Reason("flor_no_bet", "there is no flor bet for you to accept")
_NOT_NOW = Reason("not_now", "that flor bet is not possible now")
_SETTLE = Reason("flor_settle", "the flors are settled first: contraflor, con flor me achico or pass")
_ANNOUNCE = Reason("flor_announce", "you hold a flor: announce it before anything else")


def refusal(state: State, action: Action) -> Reason | None:
    """Every action of the flor phase: who speaks (holders in mano order, or any holder of
    the other team answering a contraflor) and what each may say (docs/RULES.md 1.9.4)."""
    seat, call = action.seat, action.call
    status = state.flor_status
    holders = state.flor_holders
    if seat not in holders:
        return _FLOR_ROUND
    if status is FlorStatus.ANSWERING:
        if state.team_of[seat] == state.flor_by:
            return _FLOR_WAITING
        if call is Call.CON_FLOR_QUIERO or call is Call.CON_FLOR_ME_ACHICO or (
            call is Call.CONTRAFLOR_AL_RESTO and state.flor_level < 2
        ):
            return None
        return _FLOR_ANSWER
    if status is not FlorStatus.ANNOUNCING and status is not FlorStatus.ROUND_TWO:
        return Reason("not_now", f"{call.value} is not possible now")
    if holders[state.flor_idx] != seat:
        return _OTHER_TURN
    if status is FlorStatus.ANNOUNCING:
        if state.rules.flor_optional:
            if call is Call.PASS_FLOR:
                return None  # OPT-FLOR-OPTIONAL: every player may stay quiet
            if not holds_flor(state, seat):
                return _PASS_ONLY
        if _announcing_ok(state, call, state.team_of[seat]):
            return None
    elif call is Call.CON_FLOR_ME_ACHICO or call is Call.PASS_FLOR or _raise_ok(state, call):
        return None  # round two: raise, concede or pass
    if call is Call.CON_FLOR_QUIERO:
        return _NO_BET
    if call in (Call.CONTRAFLOR, Call.CONTRAFLOR_AL_RESTO, Call.CON_FLOR_ME_ACHICO):
        return _NOT_NOW
    if seat in state.flor_announced:  # sung already: now the flors are settled, cards wait
        return _SETTLE
    return _ANNOUNCE


# The candidates of each flor status, in the order a player reads them.
_CANDIDATES = {
    FlorStatus.ANNOUNCING: (Call.FLOR, Call.CON_FLOR_ME_ACHICO, Call.CON_FLOR_QUIERO, Call.CONTRAFLOR,
                            Call.CONTRAFLOR_AL_RESTO, Call.PASS_FLOR),
    FlorStatus.ANSWERING: (Call.CON_FLOR_QUIERO, Call.CON_FLOR_ME_ACHICO, Call.CONTRAFLOR_AL_RESTO),
    FlorStatus.ROUND_TWO: (Call.CONTRAFLOR, Call.CONTRAFLOR_AL_RESTO, Call.CON_FLOR_ME_ACHICO, Call.PASS_FLOR),
}


def legal(state: State, seat: int) -> list[Action]:
    calls = _CANDIDATES.get(state.flor_status, ())
    if seat not in state.flor_holders:
        return []  # the first check of `refusal`, once for the seat
    return [a for call in calls if refusal(state, a := mk(seat, call)) is None]


def act(w: Work, events: list[Event], action: Action) -> None:
    seat, call = action.seat, action.call
    team = w.team_of[seat]
    status = w.flor_status
    if status is FlorStatus.ANNOUNCING:
        if call is not Call.PASS_FLOR:  # a silent player (OPT-FLOR-OPTIONAL) announces nothing
            w.flor_announced = w.flor_announced + (seat,)
        if call is Call.PASS_FLOR:
            pass
        elif call is Call.FLOR:
            if w.flor_conceded == team:
                w.flor_conceded = NO_TEAM  # a partner's flor cancels an early concession
        elif call is Call.CON_FLOR_ME_ACHICO:
            w.flor_conceded = team
        elif call is Call.CON_FLOR_QUIERO:
            w.flor_accepted = True
        else:
            _raise(w, call, seat, team)
        w.flor_idx += 1
        if w.flor_idx == len(w.flor_holders):
            _after_round_one(w, events)
        return
    if call is Call.CON_FLOR_QUIERO:
        w.flor_accepted = True
        resolve(w, events)
    elif call is Call.CON_FLOR_ME_ACHICO:
        w.flor_conceded = team
        resolve(w, events)
    elif call is Call.PASS_FLOR:
        w.flor_passes += 1
        w.flor_idx = (w.flor_idx + 1) % len(w.flor_holders)
        if w.flor_passes == len(w.flor_holders):
            resolve(w, events)
    else:
        _raise(w, call, seat, team)
        w.flor_status = FlorStatus.ANSWERING


def _raise(w: Work, call: Call, seat: int, team: int) -> None:
    w.flor_level = 1 if call is Call.CONTRAFLOR else 2
    w.flor_by = team
    w.flor_seat = seat
    if call is Call.CONTRAFLOR:
        w.flor_cf_by = team


def _after_round_one(w: Work, events: list[Event]) -> None:
    if w.rules.flor_optional:
        # Only announced flores take part from here on (round two, answers, comparison).
        w.flor_holders = w.flor_announced
        if not w.flor_announced:
            # Nobody announced: the hand goes on as a hand without flor, envido included.
            w.flor_status = FlorStatus.DONE
            w.envido_status = EnvidoStatus.OPEN
            w.phase = Phase.PLAY
            w.turn = w.leader = w.mano
            return
    teams = {w.team_of[seat] for seat in w.flor_announced}
    if len(teams) == 1 or w.flor_conceded != NO_TEAM or w.flor_accepted:
        resolve(w, events)
    elif w.flor_by != NO_TEAM:
        w.flor_status = FlorStatus.ANSWERING
    else:
        w.flor_status = FlorStatus.ROUND_TWO
        w.flor_idx = 0
        w.flor_passes = 0


def _flor_of(w: Work, seat: int) -> int:
    value = w.rules.flor_fn(w.dealt[seat], w.face_up)
    assert value is not None
    return int(value)


def resolve(w: Work, events: list[Event]) -> None:
    """Score the flor (section 1.9.3/1.9.4 and the CFAR options) and resume the hand."""

    rules = w.rules
    announced = w.flor_announced
    total = len(announced)
    team_of = w.team_of
    per_team = [sum(1 for s in announced if team_of[s] == t) for t in (0, 1)]
    teams = {team_of[seat] for seat in announced}
    if len(teams) == 1:
        winner = next(iter(teams))
        points, reason = 3 * total, Scoring.FLOR
        proofs = [s for s in announced if team_of[s] == winner]
    elif w.flor_conceded != NO_TEAM:
        loser = w.flor_conceded
        winner = 1 - loser
        if rules.cfar_achico_all_flores and w.flor_level == 2 and w.flor_cf_by == loser:
            points = 3 * total
        else:
            points = 3 * per_team[winner] + 1
        reason = Scoring.FLOR_ACHICO
        proofs = [s for s in announced if team_of[s] == winner]
    else:
        # Best flor; equal values go to the holder nearer the mano (holders are in mano order).
        best = max(w.flor_holders, key=lambda s: (_flor_of(w, s), -w.flor_holders.index(s)))
        winner = team_of[best]
        proofs = [best]
        if w.flor_accepted and w.flor_level == 2:
            reason = Scoring.CONTRAFLOR_AL_RESTO
            if rules.cfar_wins_chico:
                points = max(rules.target - team_score(w, winner), 1)
            else:
                points = contraflor_stake(w)
        else:
            reason = Scoring.CONTRAFLOR if w.flor_accepted else Scoring.FLOR
            points = 3 * total
    w.flor_status = FlorStatus.DONE
    w.flor_result = (winner, points)
    w.shown = w.shown + tuple((s, w.dealt[s]) for s in proofs)
    w.phase = Phase.PLAY
    w.turn = w.leader = w.mano
    if credit(w, events, winner, points, reason):
        end_hand_now(w, events)
