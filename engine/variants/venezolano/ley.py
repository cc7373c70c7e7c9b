"""Venezuelan flor declared by the players: "a ley", "con ley / sin ley", La Reservada kept
silent, and the hidden-flor penalties (docs/RULES.md 4.9; option flor_declaration="a_ley").

The engine knows every hand, but a flor counts only when its holder declares it:

* On his first-card turn a holder says FLOR (before his card), or, if he is not El Pie,
  any player may say A_LEY before his first card (V-L1, V-L3: "it may hide a flor").
* After trick 1 (before anybody's second card, V-F2, V-L6) every a-ley player says
  TENGO_FLOR (holders only) or PASS_FLOR ("no"); a holder may say TENGO_FLOR earlier.
* A holder who plays his first card, or bets or answers a bet, without having identified
  his flor (a ley warns but does not identify) loses it (V-F1, V-F2, V-F9, V-F10); the
  V-F10 exception: a truco call or "quiero y retruco" on one's first-card turn after one's
  partner played a ley. La Reservada kept quiet is not lost but settled by V-R4..V-R6.
* An envite is con ley when its bettor played a ley or a flor has been declared; it is
  answered only with CON_LEY_QUIERO (declares a flor) or SIN_LEY_NO_QUIERO (V-L4). It is
  settled with the flores. A flor declared makes an envite sin ley worth nothing (V-F3,
  except La Reservada cases, V-R8, V-R9).
* "Pido flor" (001 L48): facing a truco (or raise) from a team on 20 that could still
  declare a flor, an opponent may ask before answering; the engine answers for the callers,
  truthfully (FlorAnswered), and a flor they can still declare is thereby declared.
* Flores declared are settled after trick 1 (one team: 3 each; both: the envite between
  flores of flor.py). Every envite and flor point is collected at the end of the hand,
  before the truco points, when the hidden flores are shown and the penalties applied
  (PointsWithheld events, the record's penalties and HandSummary.penalties say why): ley_end.py.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace


from engine.core.actions import Action, action as mk
from engine.core.errors import Reason
from engine.core.calls import TRUCO_CALLS, Call
from engine.core.events import Event, FlorAnswered, Scoring
from engine.core.ledger import credit
from engine.core.state import EnvidoStatus, FlorStatus, HandState, Phase, State, Work
from engine.variants.venezolano.record import VenezuelanHand, hand_of
from engine.variants.venezolano import envite
from engine.variants.venezolano import flor as ve_flor
from engine.variants.venezolano.cards import is_reservada

FLOR_POINTS = 3
# Credits collected at the end of the hand in a ley hand (the ledger defers them through VenezuelanHooks.defer_credit).
ENVITE_SIN_LEY = frozenset((Scoring.ENVIDO, Scoring.ENVIDO_DECLINED))
DEFERRED = ENVITE_SIN_LEY | {
    Scoring.FLOR, Scoring.FLOR_ENVITE, Scoring.FLOR_ENVITE_DECLINED, Scoring.CON_LEY_DECLINED
}


# ---------------------------------------------------------------- who may say what


def holds(state: HandState, seat: int) -> bool:
    record = state.variant_hand
    if isinstance(record, VenezuelanHand) and record.ley_mode:
        return seat in record.flor_seats  # computed once at the deal (asked on every step)
    return state.rules.flor_fn(state.dealt[seat], state.face_up) is not None


def reservada(state: HandState, seat: int) -> bool:
    return is_reservada(state.dealt[seat], state.face_up)


def el_pie(state: HandState) -> int:
    return int(state.players[-1])


def lost(state: HandState, seat: int) -> bool:
    return _lost(hand_of(state), seat)


def _lost(record: VenezuelanHand, seat: int) -> bool:
    return any(s == seat for s, _ in record.flor_lost)


def fresh(state: HandState, seat: int) -> bool:
    """Before his first card, with nothing said about flor yet."""
    record = hand_of(state)
    return (
        seat not in record.ley_seats
        and seat not in state.flor_announced
        and not _lost(record, seat)
        and seat not in hand_of(state).passed_seats
        and len(state.hands[seat]) == state.rules.cards_per_hand
    )


def undecided(state: HandState, seat: int) -> bool:
    """A holder who may still say FLOR."""
    return fresh(state, seat) and holds(state, seat)


def ley_open(state: HandState, seat: int) -> bool:
    """An a-ley holder who may still say TENGO_FLOR."""
    rec = hand_of(state)
    return (
        seat in rec.ley_seats
        and seat not in rec.ley_spoken
        and seat not in state.flor_announced
        and not _lost(rec, seat)
        and holds(state, seat)
    )


def active(state: HandState) -> bool:
    rec = hand_of(state)
    return bool(rec.ley_mode) and not rec.ley_closed


def first_card_turn(state: HandState, seat: int) -> bool:
    return (
        state.turn == seat
        and not state.truco_pending
        and state.envido_status is not EnvidoStatus.BETTING
        and len(state.hands[seat]) == state.rules.cards_per_hand
    )


def con_ley_opener(state: HandState, seat: int) -> bool:
    """An envite by `seat` now would be con ley (V-L3): he played a ley, or a flor is out."""
    return seat in hand_of(state).ley_seats or bool(state.flor_announced)


# ---------------------------------------------------------------- legal actions


def pasar_refusal(state: State, seat: int) -> Reason | None:
    """A ley is "juego": its player plays his first card, he does not pass the three."""
    if active(state) and seat in hand_of(state).ley_seats and first_card_turn(state, seat):
        return Reason("pasar_first_turn", "all three cards may be passed only on your first turn")
    return None


def pedir_ok(state: State, seat: int) -> bool:
    """001 L48: a truco (or raise) is pending from a team on 20 (target - 4) that has not
    declared a flor and could still declare one; `seat`, who may answer it, may ask first.
    Only public facts decide it, so the offer itself reveals nothing about anybody's cards."""
    team = state.truco_by
    members = [s for s in state.players if s % 2 == team]
    return (
        bool(state.truco_pending)
        and not hand_of(state).flor_asked
        and state.envido_status is not EnvidoStatus.BETTING
        and seat % 2 != team
        and state.scores[team] == state.rules.target - 4
        and not any(s in state.flor_announced for s in members)
        and any(_may_declare(state, s) for s in members)
    )


def _may_declare(state: State, seat: int) -> bool:
    """As far as the table can tell, `seat` may still declare a flor: he has not passed, and
    has not played his first card unless a ley (then he has not said pass yet)."""
    if seat in hand_of(state).passed_seats:
        return False
    if seat in hand_of(state).ley_seats:
        return seat not in hand_of(state).ley_spoken
    return len(state.hands[seat]) == state.rules.cards_per_hand


def conley_gate(state: State, seat: int) -> bool:
    """May `seat` open a second envite, con ley, after an envite sin ley was settled (V-R9)?
    The seat-level half of `conley_ok`."""
    rec = hand_of(state)
    return (
        state.envido_status is EnvidoStatus.DONE
        and first_card_turn(state, seat)  # cheap tests first: asked for every seat
        and active(state)
        and not rec.conley_done
        and not rec.envite_ley
        and seat not in state.envido_barred
        and con_ley_opener(state, seat)
    )


def conley_ok(state: State, action: Action) -> bool:
    return conley_gate(state, action.seat) and envite.opening_ok(state, action, with_card=True)


def _why(state: State, action: Action) -> Reason:
    """Why an a-ley call is refused."""
    rec = hand_of(state)
    call, seat = action.call, action.seat
    if call is Call.A_LEY:
        if not rec.ley_mode:
            return Reason("ley_off", "a ley is played only when the players declare their flor")
        if seat == el_pie(state):
            return Reason("ley_el_pie", "El Pie cannot play a ley (V-L1): he answers con ley or sin ley")
        return Reason("ley_first_card", "a ley goes with your first card, on your turn")
    if call is Call.TENGO_FLOR:
        return Reason("tengo_flor_when", "tengo flor is said by a holder who played a ley, before his second card")
    if call in (Call.CON_LEY_QUIERO, Call.SIN_LEY_NO_QUIERO):
        if state.envido_status is EnvidoStatus.BETTING and rec.envite_ley:
            return Reason("con_ley_holder", "only a flor holder may answer con ley quiero")
        return Reason("no_con_ley", "there is no envite con ley to answer")
    if call is Call.FLOR and rec.ley_mode:
        return Reason("flor_first_card", "flor is said by its holder with his first card (or before it)")
    if call is Call.PEDIR_FLOR:
        return Reason("pedir_flor_when", "pido flor is asked, once, before answering a truco from a "
                      f"team on {state.rules.target - 4} that could still declare a flor (001 L48)")
    return Reason("not_now", f"{call.value} is not possible now")


def _conley_answer_ok(state: State, seat: int, call: Call, rec: VenezuelanHand) -> bool:
    """V-L4: an envite con ley is answered con ley quiero (a flor) or sin ley no quiero."""
    return state.envido_status is EnvidoStatus.BETTING and rec.envite_ley and seat % 2 != state.envido_by and (
        call is Call.SIN_LEY_NO_QUIERO
        or seat in state.flor_announced or undecided(state, seat) or ley_open(state, seat)
    )


def _speaks(state: State, seat: int, rec: VenezuelanHand) -> bool:
    """The seat-level half of the other a-ley calls: the flor is still open, no values are
    being declared, and no envite con ley (answered by the two calls above) nor the seat's
    own team's envite is pending."""
    if not rec.ley_mode or rec.ley_closed:
        return False
    status = state.envido_status
    if status is EnvidoStatus.DECLARING:
        return False
    return status is not EnvidoStatus.BETTING or not (rec.envite_ley or seat % 2 == state.envido_by)


def _call_ok(state: State, seat: int, call: Call, may_act: Callable[[], bool]) -> bool:
    """The per-call half (cheap tests first: `may_act` is a list's truth in legal_actions)."""
    if call is Call.A_LEY:
        return first_card_turn(state, seat) and seat != el_pie(state) and fresh(state, seat)
    if call is Call.FLOR:
        return may_act() and undecided(state, seat)
    if call is Call.TENGO_FLOR:
        return may_act() and ley_open(state, seat)
    return call is Call.PEDIR_FLOR and may_act() and pedir_ok(state, seat)


def allowed(state: State, action: Action, may_act: Callable[[], bool]) -> bool:
    """The a-ley calls in trick play (OWN_CALLS). FLOR, TENGO_FLOR and PEDIR_FLOR go only
    with an ordinary action of the seat (`may_act`: he is to play or to answer); A_LEY on
    one's first-card turn; the answers to an envite con ley replace quiero and no quiero."""
    call, seat = action.call, action.seat
    rec = hand_of(state)
    if call is Call.CON_LEY_QUIERO or call is Call.SIN_LEY_NO_QUIERO:
        return _conley_answer_ok(state, seat, call, rec)
    return _speaks(state, seat, rec) and _call_ok(state, seat, call, may_act)


def refusal(state: State, action: Action, may_act: Callable[[], bool]) -> Reason | None:
    """`allowed`, with the reason when it is not."""
    return None if allowed(state, action, may_act) else _why(state, action)


def legal(state: State, seat: int, may_act: Callable[[], bool]) -> list[Action]:
    """The a-ley calls `allowed` passes, its seat-level half once per seat (no reason is
    built for a call that is simply not offered)."""
    rec = state.variant_hand
    if not isinstance(rec, VenezuelanHand) or not rec.ley_mode:
        return []
    if state.envido_status is EnvidoStatus.BETTING and rec.envite_ley:
        return [mk(seat, c) for c in _ANSWERS if _conley_answer_ok(state, seat, c, rec)]
    if not _speaks(state, seat, rec):
        return []
    return [mk(seat, c) for c in _CALLS if _call_ok(state, seat, c, may_act)]


# The a-ley calls of trick play, in the order a player's list shows them.
OWN_CALLS = (Call.FLOR, Call.TENGO_FLOR, Call.A_LEY, Call.PEDIR_FLOR, Call.CON_LEY_QUIERO, Call.SIN_LEY_NO_QUIERO)


_ANSWERS = (Call.CON_LEY_QUIERO, Call.SIN_LEY_NO_QUIERO)
_CALLS = (Call.FLOR, Call.TENGO_FLOR, Call.A_LEY, Call.PEDIR_FLOR)


def close_refusal(state: State, action: Action) -> Reason | None:
    """The step after trick 1: the next a-ley player says tengo flor (a holder) or passes."""
    pending = _unspoken(state)
    if pending and pending[0] == action.seat and (
        action.call is Call.PASS_FLOR or (action.call is Call.TENGO_FLOR and ley_open(state, action.seat))
    ):
        return None
    return Reason("ley_speaking", "the players who played a ley say now whether they have a flor")


def legal_close(state: State, seat: int) -> list[Action]:
    return [a for a in (mk(seat, Call.TENGO_FLOR), mk(seat, Call.PASS_FLOR)) if close_refusal(state, a) is None]


def _unspoken(state: HandState) -> list[int]:
    rec = hand_of(state)
    return [s for s in state.players if s in rec.ley_seats and s not in rec.ley_spoken]


# ---------------------------------------------------------------- acting


def before(w: Work, action: Action) -> None:
    """Forfeits caused by an action about to be applied (V-F1, V-F2, V-F9, V-F10)."""
    if not active(w):
        return
    seat, call = action.seat, action.call
    if call in _NEUTRAL:
        return
    if undecided(w, seat):
        if call in (Call.PLAY, Call.LAS_QUE_PINTAN, Call.PASAR):
            _forfeit(w, seat, "V-F1")
        elif call in TRUCO_CALLS or (call in (Call.QUIERO, Call.NO_QUIERO) and _truco_answer(w)):
            # V-F10, and its exception: a truco call or "quiero y retruco" on one's first
            # card after one's partner played a ley counts normally (the flor may follow).
            partner_ley = any(s in hand_of(w).ley_seats for s in w.players if s != seat and s % 2 == seat % 2)
            if not (call in TRUCO_CALLS and partner_ley):
                _forfeit(w, seat, "V-F10")
        else:
            _forfeit(w, seat, "V-F9")  # an envite bet or answer sin ley
    elif ley_open(w, seat):
        answering = w.envido_status is EnvidoStatus.BETTING or bool(w.truco_pending)
        if answering or (call is Call.PLAY and len(w.hands[seat]) < w.rules.cards_per_hand):
            _forfeit(w, seat, "V-F2")


# Calls that never forfeit: the flor calls, and declaring envite values (compulsory).
_NEUTRAL = (Call.FLOR, Call.TENGO_FLOR, Call.A_LEY, Call.CON_LEY_QUIERO,
            Call.PASS_FLOR, Call.DECLARE_ENVIDO, Call.SON_BUENAS, Call.PEDIR_FLOR)  # a tuple: core/truco.py


def _truco_answer(w: Work) -> bool:
    return bool(w.truco_pending) and w.envido_status is not EnvidoStatus.BETTING


def _forfeit(w: Work, seat: int, rule: str) -> None:
    if reservada(w, seat):
        rule = "V-R4" if seat == el_pie(w) else "V-R5"  # kept quiet: settled at the end
    w.variant_hand = replace(hand_of(w), flor_lost=hand_of(w).flor_lost + ((seat, rule),))


def act(w: Work, events: list[Event], action: Action) -> bool:
    """Apply an a-ley call (True), or leave the action to the ordinary code (False)."""
    seat, call = action.seat, action.call
    if call is Call.A_LEY:
        w.variant_hand = replace(hand_of(w), ley_seats=hand_of(w).ley_seats + (seat,))
    elif call is Call.FLOR or call is Call.TENGO_FLOR:
        _declare(w, seat)
    elif call is Call.CON_LEY_QUIERO:
        if seat not in w.flor_announced:
            _declare(w, seat)
        w.variant_hand = replace(hand_of(w), conley_stake=envite.current_stake(w))
        w.envido_status = EnvidoStatus.DONE
    elif call is Call.SIN_LEY_NO_QUIERO:  # a holder saying it lost his flor in before()
        w.envido_status = EnvidoStatus.DONE
        w.envido_result = (w.envido_by, hand_of(w).envido_prev)
        credit(w, events, w.envido_by, hand_of(w).envido_prev, Scoring.CON_LEY_DECLINED)
    elif call is Call.PEDIR_FLOR:
        _answer_pedir(w, events)
    else:
        return False
    return True


def _answer_pedir(w: Work, events: list[Event]) -> None:
    """001 L48: the callers say whether they hold a flor; the engine says it for them,
    truthfully. A flor its holder may still declare is thereby declared (and scored by the
    flor rules); one already lost stays lost (only its penalties apply, at the hand end)."""
    w.variant_hand = replace(hand_of(w), flor_asked=True)
    team = w.truco_by
    holders = [s for s in w.players if s % 2 == team and holds(w, s)]
    for seat in holders:
        if undecided(w, seat) or ley_open(w, seat):
            _declare(w, seat)
    events.append(FlorAnswered(team, bool(holders)))


def _declare(w: Work, seat: int) -> None:
    w.flor_announced = w.flor_announced + (seat,)
    if seat in hand_of(w).ley_seats and seat not in hand_of(w).ley_spoken:
        w.variant_hand = replace(hand_of(w), ley_spoken=hand_of(w).ley_spoken + (seat,))
    if w.envido_status is EnvidoStatus.BETTING and not hand_of(w).envite_ley:
        # V-F3: a flor makes the pending envite sin ley worth nothing.
        w.envido_status = EnvidoStatus.DONE
        w.envido_result = None


def opened(w: Work, seat: int) -> None:
    """An envite was just opened by `seat`: is it con ley?"""
    record = hand_of(w)
    if not record.ley_mode:
        return
    if con_ley_opener(w, seat) and active(w):
        w.variant_hand = replace(record, envite_ley=True, conley_done=True)
    else:
        w.variant_hand = replace(record, envite_ley=False, sinley_seats=record.sinley_seats + (seat,))


def answered(w: Work, seat: int) -> None:
    """`seat` answered or raised the envite sin ley (V-R8 needs to know who)."""
    record = hand_of(w)
    if record.ley_mode and not record.envite_ley and seat not in record.sinley_seats:
        w.variant_hand = replace(record, sinley_seats=record.sinley_seats + (seat,))


# ---------------------------------------------------------------- after trick 1


def close(w: Work, events: list[Event]) -> None:
    """Trick 1 is over: the a-ley players speak, then the declared flores are settled."""
    if not active(w):
        return
    if _unspoken(w):
        w.phase = Phase.FLOR
        w.flor_status = FlorStatus.LEY
        return
    settle(w, events, betting=True)


def act_close(w: Work, events: list[Event], action: Action) -> None:
    seat = action.seat
    if action.call is Call.TENGO_FLOR:
        _declare(w, seat)
    else:
        if ley_open(w, seat):
            _forfeit(w, seat, "V-F2")
        w.variant_hand = replace(hand_of(w), ley_spoken=hand_of(w).ley_spoken + (seat,))
    if not _unspoken(w):
        w.phase = Phase.PLAY
        w.flor_status = FlorStatus.NONE
        settle(w, events, betting=True)


def settle(w: Work, events: list[Event], betting: bool) -> None:
    """The declared flores: one team collects 3 each (with its envite con ley); both teams
    bet between their flores (flor.py) unless the hand is over (then as if all shrank)."""
    w.variant_hand = replace(hand_of(w), ley_closed=True)
    declared = tuple(s for s in w.players if s in w.flor_announced)
    w.flor_holders = declared
    if not declared:
        w.flor_status = FlorStatus.NONE
        return
    teams = {s % 2 for s in declared}
    if hand_of(w).conley_stake:
        w.flor_accepted = True
    elif len(teams) == 2 and betting:
        w.variant_hand = replace(hand_of(w), envite_ley=True)  # the envite between flores is con ley
        w.phase = Phase.FLOR
        w.flor_status = FlorStatus.ROUND_TWO
        w.flor_idx = 0
        return
    ve_flor.resolve(w, events, None)
