"""Tricks (docs/RULES.md 1.6): what may be played, a card played, a trick won or tied, and the
hand decided by its tricks."""

from __future__ import annotations

from engine.core.actions import Action, action as mk, play_action
from engine.core.calls import Call
from engine.core.errors import Reason
from engine.core.cards import Card
from engine.core.events import Event, Scoring, TrickEnded
from engine.core.hand import end_hand
from engine.core.ledger import team_score
from engine.core.ruleset import Envite, PardaLeads, ThreePardas, TieRule
from engine.core.truco import TRUCO_WAITING
from engine.core.state import PARDA, DealKind, EnvidoStatus, State, Work


def playable(state: State, seat: int) -> tuple[Card, ...]:
    """The cards `seat` may play: all, except after a tied first trick in Brazil, where each
    player must play his highest card (docs/RULES.md 3.6)."""
    hand = state.hands[seat]
    if state.rules.first_tie_highest and state.trick_results == (PARDA,):
        strength, face_up = state.rules.strength, state.face_up
        top = max(strength(c, face_up) for c in hand)
        return tuple(c for c in hand if strength(c, face_up) == top)
    return hand


def next_in_hand(w: Work, seat: int) -> int:
    """The next seat in playing order that takes part in the trick."""
    players, active = w.players, w.active
    i = players.index(seat)
    for k in range(1, len(players) + 1):
        nxt = players[(i + k) % len(players)]
        if nxt in active:
            return int(nxt)
    return -1


def play(w: Work, events: list[Event], action: Action) -> None:
    seat, card = action.seat, action.card
    assert card is not None  # a card play names its card (legal_actions made it)
    hand = w.hands[seat]
    w.hands = w.hands[:seat] + (tuple(c for c in hand if c != card),) + w.hands[seat + 1 :]
    w.current = w.current + ((seat, card),)
    if seat not in w.envido_barred:
        w.envido_barred = w.envido_barred | {seat}
    if w.rules.perico_locks:
        w.rules.hooks.card_played(w, seat, card)
    if len(w.current) < len(w.active):
        w.turn = next_in_hand(w, seat)
        return
    finish_trick(w, events)


def pasar(w: Work, events: list[Event], seat: int) -> None:
    """OP-VE-23: the three cards go face down (never shown); the player keeps his envite
    rights but takes no part in the tricks. A team with nobody left loses the hand."""
    w.hands = w.hands[:seat] + ((),) + w.hands[seat + 1 :]
    w.rules.hooks.seat_passed(w, seat)
    w.envido_barred = w.envido_barred | {seat}  # his first-card turn is spent
    nxt = next_in_hand(w, seat)
    w.active = tuple(s for s in w.active if s != seat)
    team = w.team_of[seat]
    if not any(w.team_of[s] == team for s in w.active):
        end_hand(w, events, 1 - team, Scoring.PASAR)
        return
    if len(w.current) == len(w.active):
        finish_trick(w, events)
    else:
        w.turn = nxt


def parda_leader(w: Work) -> int:
    if w.rules.parda_leads is PardaLeads.MANO:
        # 001 L46: after a tie El Mano leads (the first in playing order still in the trick).
        for seat in w.players:
            if seat in w.active:
                return int(seat)
    return int(w.leader)


def finish_trick(w: Work, events: list[Event]) -> None:
    rules = w.rules
    strength = rules.strength
    face_up = w.face_up
    number = len(w.tricks) + 1
    restricted = rules.tie_rule is TieRule.VENEZOLANO and number == 3 and w.trick_results == (PARDA, PARDA)
    best = -1
    top: list[int] = []
    for seat, card in w.current:
        s = strength(card, face_up)
        if restricted:
            second = next(c for p, c in w.tricks[1] if p == seat)
            if s > strength(second, face_up):
                # 001 L45: a third card above one's second is a carta pasada (no value).
                s = -1
                rules.hooks.carta_pasada(w, number, seat)
        if s > best:
            best, top = s, [seat]
        elif s == best:
            top.append(seat)
    team_of = w.team_of
    teams = {team_of[seat] for seat in top}
    if len(teams) == 1:
        result = team_of[top[0]]
        # Equal top cards within one team: the first of them to be played leads (OP-AR-19).
        leader = top[0]
    else:
        result = PARDA
        leader = -1
    w.tricks = w.tricks + (w.current,)
    w.trick_results = w.trick_results + (result,)
    w.trick_winners = w.trick_winners + (leader,)
    w.current = ()
    if rules.tie_rule is TieRule.VENEZOLANO and number == 2 and w.trick_results == (PARDA, PARDA):
        # 001 L45: after two ties only the players who tied the second decide the third.
        w.active = tuple(s for s in w.players if s in top)
    if result == PARDA:
        leader = parda_leader(w)
    events.append(TrickEnded(number, None if result == PARDA else result, leader))
    if number == 1 and w.envido_status is EnvidoStatus.OPEN:
        w.envido_status = EnvidoStatus.CLOSED
    if w.trick_results == (PARDA, PARDA, PARDA) and w.rules.three_pardas is not ThreePardas.MANO:
        # Brazil: three ties lose the dealer's side the game (or, as an option, the hand).
        winner = 1 - w.team_of[w.dealer]
        points: int | None = None
        if w.rules.three_pardas is ThreePardas.LOSES_GAME:
            points = max(w.rules.target - team_score(w, winner), 1)
        end_hand(w, events, winner, Scoring.THREE_TIES, points)
        return
    decided = hand_winner(w.trick_results, w.team_of[w.mano])
    if decided is not None:
        end_hand(w, events, decided, Scoring.TRICKS)
        return
    w.leader = w.turn = leader
    if number == 1:
        w.rules.hooks.after_first_trick(w, events)


def hand_winner(results: tuple[int, ...], mano_team: int) -> int | None:
    """docs/RULES.md 1.6 table: the winning team once decided, else None."""
    if len(results) < 2:
        return None
    r1, r2 = results[0], results[1]
    if len(results) == 2:
        if r1 == r2 and r1 != PARDA:
            return r1
        if r1 == PARDA and r2 != PARDA:
            return r2
        if r2 == PARDA and r1 != PARDA:
            return r1
        return None
    r3 = results[2]
    if r1 != PARDA and r2 != PARDA:  # split 1-1
        return r3 if r3 != PARDA else r1
    # parda, parda: the third decides, three pardas go to the mano's team
    return r3 if r3 != PARDA else mano_team


# The calls that play a card (or all three, passed): checked by `card_refusal`.
CARD_CALLS = (Call.PLAY, Call.PLAY_BLIND, Call.LAS_QUE_PINTAN, Call.PASAR)  # a tuple: see truco.py


_BLIND = DealKind.BLIND
_TRUCO_ANSWER = Reason("truco_answer", "the truco call must be answered before anyone plays")
_NOT_YOUR_TURN = Reason("not_your_turn", "it is not your turn to play")


def turn_refusal(state: State, seat: int) -> Reason | None:
    """May `seat` lay a card now (no envido bet is pending)? The seat-level half of
    `card_refusal`, run once per seat by `card_actions`."""
    if state.truco_pending:
        return TRUCO_WAITING if state.team_of[seat] == state.truco_by else _TRUCO_ANSWER
    if state.turn != seat:
        return _NOT_YOUR_TURN
    return None


def card_refusal(state: State, action: Action) -> Reason | None:
    """A card play, a blind play, passing the three cards or las que pintan (no envido bet
    is pending); las que pintan is also an envite opening, checked by the envido family."""
    seat, call = action.seat, action.call
    rules = state.rules
    if (call is Call.PASAR and not rules.pasar) or (
        call is Call.LAS_QUE_PINTAN and rules.envite is not Envite.PIEDRAS
    ):
        return Reason("not_in_variant", f"{call.value} is not part of this variant")
    reason = turn_refusal(state, seat)
    if reason is not None:
        return reason
    if call is Call.PASAR:
        if len(state.hands[seat]) == rules.cards_per_hand:
            return rules.hooks.pasar_refusal(state, seat)
        return Reason("pasar_first_turn", "all three cards may be passed only on your first turn")
    if call is Call.LAS_QUE_PINTAN:
        if rules.hooks.envido_refusal(state, action) is None:
            return None
        return Reason("pintan_not_now", "las que pintan opens the envite: not possible now or with that card")
    if state.deal_kind is DealKind.BLIND:
        if call is Call.PLAY_BLIND:
            return None
        return Reason("blind_hand", "this hand is played blind: play your next card unseen")
    if call is Call.PLAY_BLIND:
        return Reason("face_up_hand", "cards are played face up in this hand")
    if action.card in playable(state, seat):
        return None
    if action.card in state.hands[seat]:
        return Reason("highest_card", "after a tied first trick you must play your highest card")
    return Reason("not_held", f"you do not hold {action.card}")


def card_actions(state: State, seat: int) -> list[Action]:
    """`seat`'s card plays (and passing) that pass `card_refusal` (las que pintan is listed
    with the envite openings)."""
    if turn_refusal(state, seat) is not None:
        return []
    if state.deal_kind is _BLIND:
        acts = [mk(seat, Call.PLAY_BLIND)]
    else:
        # `playable` is the per-card half of card_refusal (cards held, highest after a parda).
        acts = [play_action(seat, card) for card in playable(state, seat)]
    if state.rules.pasar:
        passing = mk(seat, Call.PASAR)
        if card_refusal(state, passing) is None:
            acts.append(passing)
    return acts
