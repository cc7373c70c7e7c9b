"""Venezuelan flor (docs/RULES.md 4.9) and estar cantando (4.12.1).

The engine knows every hand, so flor is compulsory and settled first, as in the Argentine
game (engine/DECISIONS.md, venezolano): each holder says "flor" in mano order (La Reservada, the
perico and perica together, always counts as a flor). If only one team has flores it
collects 3 per flor (V-F4), plus 1 envite point for La Reservada unless the holder's partner
also has a flor (V-R2, V-R7). With opposing flores comes the envite between flores: the
holders, más mano first (V-F8), either shrink ("la mía es chica": CON_FLOR_ME_ACHICO) or bet
with the envite calls of engine/envite.py; any holder of the other team answers (V-F7).
All shrink: the best flor's team collects 3 per own flor (+1 for La Reservada, V-F5).
Declined: the bettor's team collects its flores plus the previous stake (V-F6, VE-11).
Accepted: the best flor's team collects its flores plus the stake (OP-VE-18).
A flor cancels the envite sin ley for the whole hand (V-F3).
"""

from __future__ import annotations

from dataclasses import replace


from engine.core.actions import Action, action as mk
from engine.core.errors import Reason
from engine.core.calls import Call
from engine.core.events import Event, Scoring
from engine.core.hand import end_hand_now
from engine.core.ledger import credit
from engine.core.state import NO_TEAM, EnvidoStatus, FlorStatus, Phase, State, Work
from engine.variants.venezolano.record import hand_of
from engine.variants.venezolano import envite
from engine.variants.venezolano.cards import is_reservada

FLOR_POINTS = 3


def _seat_refusal(state: State, seat: int) -> Reason | None:
    """Who speaks now: holders say flor in mano order, then each shrinks or bets (más mano
    first, V-F8); any holder of the other team answers the bet (V-F7)."""
    status = state.flor_status
    if seat not in state.flor_holders:
        return Reason("flor_round", "the flor is being settled: only players holding a flor speak now")
    if status is FlorStatus.ANSWERING:
        if seat % 2 == state.envido_by:
            return Reason("flor_waiting", "your team's envite between flores is waiting for an answer")
        return None
    if status is not FlorStatus.ANNOUNCING and status is not FlorStatus.ROUND_TWO:
        return Reason("not_now", "the flor is not being settled now")
    if state.flor_holders[state.flor_idx] != seat:
        return Reason("flor_other_turn", "it is another flor holder's turn to speak")
    return None


def refusal(state: State, action: Action) -> Reason | None:
    """Every action of the flor round: the speaker (`_seat_refusal`), then what he says."""
    reason = _seat_refusal(state, action.seat)
    if reason is not None:
        return reason
    status, call = state.flor_status, action.call
    if status is FlorStatus.ANSWERING:
        if envite.answer_ok(state, action):
            return None
        return Reason("flor_answer", "answer the envite between flores: quiero, no quiero or a raise")
    if status is FlorStatus.ANNOUNCING:
        if call is Call.FLOR:
            return None
        return Reason("flor_announce", "you hold a flor: say flor")
    if call is Call.CON_FLOR_ME_ACHICO or envite.opening_ok(state, action, with_card=False):
        return None
    return Reason("flor_shrink_or_bet", "shrink (la mía es chica) or make an envite between flores")


def legal(state: State, seat: int) -> list[Action]:
    """What passes `refusal`: the speaker's check once, then the calls of the status (the
    envite's, filtered by the envite's own checks)."""
    if _seat_refusal(state, seat) is not None:
        return []
    status = state.flor_status
    if status is FlorStatus.ANSWERING:
        return envite.answer_actions(state, seat)
    if status is FlorStatus.ANNOUNCING:
        return [mk(seat, Call.FLOR)]
    return [mk(seat, Call.CON_FLOR_ME_ACHICO), *envite.opening_calls(state, seat, with_card=False)]


def act(w: Work, events: list[Event], action: Action) -> None:
    seat, call = action.seat, action.call
    status = w.flor_status
    if status is FlorStatus.ANNOUNCING:
        w.flor_announced = w.flor_announced + (seat,)
        w.flor_idx += 1
        if w.flor_idx == len(w.flor_holders):
            if len({s % 2 for s in w.flor_announced}) == 1:
                resolve(w, events, None)
            else:
                w.flor_status = FlorStatus.ROUND_TWO
                w.flor_idx = 0
        return
    if status is FlorStatus.ROUND_TWO:
        if call is Call.CON_FLOR_ME_ACHICO:
            w.flor_passes += 1
            w.flor_idx += 1
            if w.flor_idx == len(w.flor_holders):
                resolve(w, events, None)  # everybody shrank
            return
        envite.open_bet(w, seat, call, envite.opening_stake(w, action))
        w.flor_status = FlorStatus.ANSWERING
        return
    # ANSWERING: the envite between flores
    if call is Call.QUIERO:
        w.flor_accepted = True
        resolve(w, events, None)
    elif call is Call.NO_QUIERO:
        resolve(w, events, w.envido_by)
    else:
        envite.raise_bet(w, action)


def _value(w: Work, seat: int) -> int:
    value = w.rules.flor_fn(w.dealt[seat], w.face_up)
    assert value is not None
    return int(value)


def _reservada_point(w: Work, team: int) -> int:
    """V-R2: 1 envite point for La Reservada, unless the holder's partner also has a flor
    (V-R7: then the envite sin ley is worth nothing and the team collects the 6 flor)."""
    holders = [s for s in w.flor_holders if s % 2 == team]
    if len(holders) == 1 and is_reservada(w.dealt[holders[0]], w.face_up):
        return 1
    return 0


def resolve(w: Work, events: list[Event], declined_to: int | None) -> None:

    holders = w.flor_holders
    per_team = [sum(1 for s in holders if s % 2 == t) for t in (0, 1)]
    stake = 0
    if declined_to is not None:
        winner = declined_to
        stake = hand_of(w).envido_prev
        reason = Scoring.FLOR_ENVITE_DECLINED
    else:
        # Best flor; equal values go to the holder nearer El Mano (OP-VE-16).
        best = max(holders, key=lambda s: (_value(w, s), -holders.index(s)))
        winner = best % 2
        if w.flor_accepted:
            stake = envite.current_stake(w)
            reason = Scoring.FLOR_ENVITE
        else:
            stake = _reservada_point(w, winner)
            reason = Scoring.FLOR
    if w.flor_accepted or declined_to is not None:
        w.envido_status = EnvidoStatus.DONE
        w.envido_result = (winner, stake)
    points = FLOR_POINTS * per_team[winner] + stake
    w.flor_status = FlorStatus.DONE
    w.flor_result = (winner, points)
    w.shown = w.shown + tuple((s, w.dealt[s]) for s in holders if s % 2 == winner)
    w.phase = Phase.PLAY
    if not hand_of(w).ley_mode:
        w.turn = w.leader = w.mano
    # (a ley: settled after trick 1, whose winner leads on; the points wait for the hand end)
    if credit(w, events, winner, points, reason):
        end_hand_now(w, events)


# ---------------------------------------------------------------- estar cantando (4.12.1)


def cantando_team(w: Work) -> int:
    """The team needing one point when the other does not (OP-VE-20); NO_TEAM otherwise.
    With both teams on target - 1 the hand is played normally: any point wins."""
    need = w.rules.target - 1
    a, b = w.scores
    if (a == need) != (b == need):
        return 0 if a == need else 1
    return NO_TEAM


def _standing(w: Work, seat: int) -> tuple[int, int]:
    """(kind, value): kind 2 La Reservada, 1 a flor, 0 the envite value alone."""
    rules = w.rules
    if rules.flor:
        flor = rules.flor_fn(w.dealt[seat], w.face_up)
        if flor is not None:
            return (2 if is_reservada(w.dealt[seat], w.face_up) else 1), int(flor)
    return 0, rules.envido(w.dealt[seat], w.face_up)


def start_cantando(w: Work, events: list[Event], team: int) -> None:
    """The cantando team's envite value is compared at once (V-C2): if the opponents do not
    beat it ("privar"; equal goes to the player nearer El Mano, "domina de mano"), the
    cantando team scores and wins. Otherwise the opponents score their envite or flor
    (V-C5: 1 envite point, 3 per flor, +1 when flor meets flor or for La Reservada) and
    must say "privo y truco": the hand starts with their truco (3 piedras) pending."""

    w.variant_hand = replace(hand_of(w), cantando=team)
    w.envido_status = EnvidoStatus.CLOSED  # the envite is this comparison (V-C1)
    players = w.players

    def key(seat: int) -> tuple[int, int, int]:
        kind, value = _standing(w, seat)
        return kind, value, -players.index(seat)

    best = {t: max((s for s in players if s % 2 == t), key=key) for t in (0, 1)}
    other = 1 - team
    kind_c = _standing(w, best[team])[0]
    kind_o = _standing(w, best[other])[0]
    priva = key(best[other]) > key(best[team])
    scorer = other if priva else team
    kind = kind_o if priva else kind_c
    if kind == 0:
        points, reason = 1, Scoring.CANTANDO_ENVITE
        w.shown = w.shown + ((best[scorer], w.rules.envido_proof(w.dealt[best[scorer]], w.face_up)),)
    else:
        flores = [s for s in players if s % 2 == scorer and _standing(w, s)[0] > 0]
        extra = 1 if (kind == 2 or (priva and kind_c > 0)) else 0
        points, reason = FLOR_POINTS * len(flores) + extra, Scoring.CANTANDO_FLOR
        w.shown = w.shown + tuple((s, w.dealt[s]) for s in flores)
    w.envido_result = (scorer, points)
    before = w.scores[other]
    if credit(w, events, scorer, points, reason):
        end_hand_now(w, events)
        return
    # "privo y truco": the truco is pending against the cantando team from the start.
    w.truco_pending = 1
    w.truco_by = other
    # V-C3 (opponent on 20 with a flor: after "pido flor" the truco is obligatory) and V-C4
    # (opponent on 22): the cantando team may not decline. Relative to the target.
    target = w.rules.target
    forced = before == target - 2 or (before == target - 4 and kind_o > 0)
    w.variant_hand = replace(hand_of(w), truco_forced=forced)
