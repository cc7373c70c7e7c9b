"""Transitions: new_match, legal_actions, apply, deal, replay.

`apply` validates an action by membership in `legal_actions` (so the two can never
disagree), then runs it on a mutable scratch copy of the state and freezes the result.
Chance is a separate action (`Deal`): `deal(state, rng)` shuffles with the injected rng and
applies the resulting `Deal`, whose event carries every card, so `replay` needs no rng.
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from typing import Any

from engine import envido as env
from engine import envite as ve_env
from engine import flor as flr
from engine import ve_flor, ve_ley
from engine.actions import Action, Deal, action as mk
from engine.calls import AMOUNT_CALLS, TRUCO_CALLS, Call
from engine.errors import IllegalAction, Reason
from engine.events import (
    Acted,
    CardsShown,
    Event,
    GameEnded,
    HandDealt,
    HandEnded,
    HandStarted,
    MatchEnded,
    MatchStarted,
    PointsScored,
    SeatCovered,
    TrickEnded,
)
from engine.cards import Card
from engine.ruleset import RuleSet
from engine.scoring import ARGENTINE_STRENGTH, MALDON_MAX_STRENGTH
from engine.state import (
    NO_TEAM,
    PARDA,
    DealKind,
    EnvidoStatus,
    FlorStatus,
    HandSummary,
    Phase,
    State,
)


class Work:
    """A mutable scratch copy of a State's fields (same attribute names)."""


def thaw(state: State) -> Any:
    w = Work()
    w.__dict__.update(state.__dict__)
    return w


def freeze(w: Any) -> State:
    s = State.__new__(State)
    s.__dict__.update(w.__dict__)
    return s


# ---------------------------------------------------------------- starting a match


def new_match(rules: RuleSet, n_players: int, rng: random.Random,
              first_dealer: int | None = None) -> tuple[State, list[Event]]:
    """A fresh match with its first deal; the first dealer is drawn from `rng` (OP-AR-24)
    unless given (a rematch passes the deal on, so the mano alternates between matches).
    Either way it is recorded in `match_started`, so a replay needs no rng."""
    if n_players not in rules.player_counts:
        raise ValueError(f"{rules.variant} is played by {rules.player_counts} players")
    if first_dealer is None:
        first_dealer = rng.randrange(n_players)
    elif not 0 <= first_dealer < n_players:
        raise ValueError(f"no seat {first_dealer} at a table of {n_players}")
    state = initial_state(rules, n_players, first_dealer)
    events: list[Event] = [MatchStarted(rules.variant, rules.options, n_players, first_dealer)]
    state, more = deal(state, rng)
    return state, events + more


def initial_state(rules: RuleSet, n_players: int, first_dealer: int) -> State:
    empty: tuple[tuple[Any, ...], ...] = tuple(() for _ in range(n_players))
    zeros = (0,) * holder_count(rules, n_players)
    return State(
        rules=rules, n=n_players, phase=Phase.DEAL, scores=zeros, games_won=zeros,
        game_no=1, dealer=first_dealer, deal_no=0,
        deal_kind=DealKind.REDONDA if n_players == 6 else DealKind.NORMAL,
        next_pica=False, duel=0, dealt=empty, face_up=None, winner=None, game_winner=None,
        history=(),
        deferred=(), players=(), mano=-1, hands=empty, tricks=(), trick_results=(),
        current=(), leader=-1, turn=-1, truco_level=0, truco_pending=0, truco_by=NO_TEAM,
        truco_right=NO_TEAM, envido_status=EnvidoStatus.CLOSED, envido_calls=(),
        envido_by=NO_TEAM, envido_decl=(), envido_best=-1, envido_barred=frozenset(),
        envido_result=None, flor_status=FlorStatus.NONE, flor_holders=(),
        flor_announced=(), flor_idx=0, flor_level=0, flor_by=NO_TEAM, flor_accepted=False,
        flor_conceded=NO_TEAM, flor_cf_by=NO_TEAM, flor_passes=0, flor_result=None, shown=(),
        raise_barred=False, team_of=tuple(s % 2 for s in range(n_players)),
    )


def holder_count(rules: RuleSet, n: int) -> int:
    """Score holders: two teams, or the three seats of the Uruguayan 3-player game."""
    return n if solo_mano(rules, n) else 2


def holders(w: Any, team: int) -> tuple[int, ...]:
    """Indices into `scores` credited when `team` (of the current hand) scores."""
    if len(w.scores) == 2:
        return (team,)
    return tuple(s for s in range(w.n) if w.team_of[s] == team)


def team_score(w: Any, team: int) -> int:
    return int(max(w.scores[h] for h in holders(w, team)))


def _add(w: Any, team: int, points: int) -> None:
    scores = list(w.scores)
    for h in holders(w, team):
        scores[h] += points
    w.scores = tuple(scores)


def deal(state: State, rng: random.Random) -> tuple[State, list[Event]]:
    """Shuffle with `rng` and deal: three cards each, one at a time, starting at the mano;
    then the face-up card (vira) where the variant has one. Deals again if the deal alone
    ended the hand (see below), so the result never needs another deal."""
    if state.phase is not Phase.DEAL:
        raise IllegalAction("it is not time to deal")
    cards = list(state.rules.deck)
    rng.shuffle(cards)
    n = state.n
    per = state.rules.cards_per_hand
    hands: list[tuple[Any, ...]] = [()] * n
    for i in range(n):
        seat = (state.dealer + 1 + i) % n
        hands[seat] = tuple(cards[i + k * n] for k in range(per))
    used = n * per
    if solo_mano(state.rules, n):
        # RULES.md 2.12.2 / OP-UY-6: the mano's fourth card comes in the normal deal.
        mano = (state.dealer + 1) % n
        hands[mano] = hands[mano] + (cards[used],)
        used += 1
    face_up = cards[used] if state.rules.has_face_up else None
    state, events = apply(state, Deal(tuple(hands), face_up))
    if state.phase is Phase.DEAL:
        # The deal itself ended the hand (Venezuelan estar cantando: the cantando team's
        # envite was not beaten, RULES.md 4.12.1): chance acts again, so that a caller of
        # `deal` always gets a state in which a player is to act (or the match is over).
        state, more = deal(state, rng)
        events = events + more
    return state, events


# ---------------------------------------------------------------- legal actions


def legal_actions(state: State, seat: int) -> list[Action]:
    """Everything `seat` may do now (possibly nothing). Several seats may act at once:
    any player of a team may answer a bet made to it."""
    phase = state.phase
    if phase is Phase.PLAY:
        acts = _legal_play(state, seat)
    elif phase is Phase.FLOR:
        if state.rules.flor_style == "venezolano":
            acts = ve_flor.legal(state, seat)
        else:
            acts = flr.legal(state, seat)
    elif phase is Phase.DISCARD:
        if seat != state.mano:
            return []
        return [mk(seat, Call.DISCARD, card) for card in state.hands[seat]]
    else:
        return []
    if state.rules.maldon != "off" and maldon_ok(state, seat):
        acts.append(mk(seat, Call.MALDON))
    return acts


def all_legal_actions(state: State) -> list[Action]:
    out: list[Action] = []
    for seat in range(state.n):
        out.extend(legal_actions(state, seat))
    return out


def maldon_ok(state: State, seat: int) -> bool:
    """OPT-MALDON: may `seat` throw this hand in? Only before anything has happened in it
    (no card played, no bet, no flor announced), and only with a maldon hand."""
    rules = state.rules
    if rules.maldon == "off" or seat not in state.players:
        return False
    if rules.maldon == "mano" and seat != state.mano:
        return False
    if state.tricks or state.current or state.truco_level or state.truco_pending:
        return False
    if state.phase is Phase.FLOR:
        untouched = state.flor_status is FlorStatus.ANNOUNCING and state.flor_idx == 0
    else:
        untouched = state.flor_status is FlorStatus.NONE and state.envido_status is EnvidoStatus.OPEN
    return untouched and is_maldon(state.dealt[seat])


def is_maldon(cards: tuple[Card, ...]) -> bool:
    """Two 4s and a card "without a signal": a 12 or lower, rank classes 8-14 of RULES.md
    1.3, a third 4 included (OP-AR-26). The signalled cards are the bravas, 3s, 2s, false
    aces."""
    fours = sum(1 for c in cards if c.rank == 4)
    if fours < 2:
        return False
    return all(c.rank == 4 or ARGENTINE_STRENGTH[c.code] <= MALDON_MAX_STRENGTH for c in cards)


def playable(state: State, seat: int) -> tuple[Card, ...]:
    """The cards `seat` may play: all, except after a tied first trick in Brazil, where each
    player must play his highest card (RULES.md 3.6)."""
    hand = state.hands[seat]
    if state.rules.first_tie_highest and state.trick_results == (PARDA,):
        strength, face_up = state.rules.strength, state.face_up
        top = max(strength(c, face_up) for c in hand)
        return tuple(c for c in hand if strength(c, face_up) == top)
    return hand


def solo_mano(rules: RuleSet, n: int) -> bool:
    """The Uruguayan 3-player game: the mano alone, with a fourth card to discard."""
    return rules.solo_mano_three and n == 3


def eleven_kind(scores: tuple[int, ...], target: int) -> DealKind:
    """Brazilian eleven rules (RULES.md 3.11): one team on 11, or both (blind hand)."""
    on = [s == target - 1 for s in scores]
    if all(on):
        return DealKind.BLIND
    return DealKind.ELEVEN if any(on) else DealKind.NORMAL


def _timing_ok(state: State, seat: int) -> bool:
    return state.rules.truco_timing == "any_time" or state.turn == seat


def _openings(state: State, seat: int, answering_truco: bool) -> list[Action]:
    if state.rules.envite == "piedras":
        return ve_env.legal_openings(state, seat, answering_truco)
    return env.legal_openings(state, seat, answering_truco)


def _may_raise(state: State, seat: int) -> bool:
    """The next truco step by `seat`'s team, without a pending bet."""
    rules = state.rules
    right = state.truco_right
    return (
        state.truco_level < len(rules.truco_ladder)
        and (right == NO_TEAM or (right == state.team_of[seat] and rules.late_raises))
        and not state.raise_barred
        and _timing_ok(state, seat)
    )


def _legal_play(state: State, seat: int) -> list[Action]:
    if seat not in state.players:
        return []
    team = state.team_of[seat]
    status = state.envido_status
    rules = state.rules
    if status is EnvidoStatus.DECLARING:
        return env.legal_declare(state, seat)
    if status is EnvidoStatus.BETTING:
        if team == state.envido_by:
            return []
        if state.envite_ley:
            acts = ve_ley.conley_answers(state, seat)
        elif rules.envite == "piedras":
            acts = ve_env.legal_answers(state, seat)
        else:
            return env.legal_answers(state, seat)
        return ve_ley.extend(state, seat, acts)
    acts = _legal_bets(state, seat)
    return ve_ley.extend(state, seat, acts) if state.ley_mode else acts


def _legal_bets(state: State, seat: int) -> list[Action]:
    """Cards, truco and envite calls (no envite bet pending)."""
    team = state.team_of[seat]
    status = state.envido_status
    rules = state.rules
    acts: list[Action] = []
    mazo = rules.mazo_allowed(state.n)
    ladder = rules.truco_ladder
    if state.truco_pending:
        if team != state.truco_by:
            acts.append(mk(seat, Call.QUIERO))
            if not state.truco_forced:  # estar cantando (RULES.md 4.12.1 V-C3, V-C4)
                acts.append(mk(seat, Call.NO_QUIERO))
            if (
                rules.counter_raise
                and not state.raise_barred
                and state.truco_pending < len(ladder)
            ):
                # A counter-raise answers the bet and accepts it (Brazil OP-BR-3, OP-BR-9;
                # Venezuela "quiero y retruco", 001 L34-36).
                acts.append(mk(seat, ladder[state.truco_pending].call))
            acts.extend(_openings(state, seat, answering_truco=True))
            if mazo:
                acts.append(mk(seat, Call.MAZO))
        return acts
    if state.turn == seat:
        if state.deal_kind is DealKind.BLIND:
            acts.append(mk(seat, Call.PLAY_BLIND))
        else:
            acts.extend(mk(seat, Call.PLAY, card) for card in playable(state, seat))
        if rules.pasar and len(state.hands[seat]) == rules.cards_per_hand:
            acts.append(mk(seat, Call.PASAR))
    if _may_raise(state, seat):
        acts.append(mk(seat, ladder[state.truco_level].call))
    if status is EnvidoStatus.OPEN:
        acts.extend(_openings(state, seat, answering_truco=False))
    elif state.ley_mode:
        acts.extend(ve_ley.conley_openings(state, seat))
    if mazo and state.turn == seat:
        acts.append(mk(seat, Call.MAZO))
    return acts


def explain(state: State, action: Action) -> str:
    """Why `action` is not legal now, in words for the player."""
    seat, call = action.seat, action.call
    if state.phase is Phase.MATCH_OVER:
        return Reason("match_over", "the match is over")
    if state.phase is Phase.DEAL:
        return Reason("not_dealt", "the cards have not been dealt yet")
    if not 0 <= seat < state.n:
        return Reason("no_seat", f"there is no seat {seat}")
    if seat not in state.players:
        return Reason("not_in_hand", "you are not playing this hand")
    team = state.team_of[seat]
    if call is Call.MALDON:
        if state.rules.maldon == "off":
            return Reason("maldon_off", "maldon is not played at this table")
        if state.rules.maldon == "mano" and seat != state.mano:
            return Reason("maldon_mano", "only the mano may claim maldon at this table")
        return Reason("maldon_hand", "maldon needs two 4s and a card without a signal, before anything is played")
    if state.phase is Phase.DISCARD:
        if seat != state.mano:
            return Reason("discarding", "the mano is laying away his fourth card")
        return Reason("discard_first", "lay away one of your four cards first")
    if state.phase is Phase.FLOR:
        if state.rules.flor_style == "venezolano":
            return ve_flor.explain(state, action)
        return flr.explain(state, action)
    ley_reason = ve_ley.explain(state, action)
    if ley_reason is not None:
        return ley_reason
    if state.envido_status is EnvidoStatus.DECLARING:
        return Reason("envido_declaring", "the envido values are being declared")
    if state.envido_status is EnvidoStatus.BETTING:
        if team == state.envido_by:
            return Reason("envido_waiting", "your team's envido call is waiting for an answer")
        return Reason("envido_answer", "answer the envido first (quiero, no quiero or a raise)")
    if call in (Call.PLAY, Call.PLAY_BLIND, Call.LAS_QUE_PINTAN, Call.PASAR):
        if (call is Call.PASAR and not state.rules.pasar) or (
            call is Call.LAS_QUE_PINTAN and state.rules.envite != "piedras"
        ):
            return Reason("not_in_variant", f"{call.value} is not part of this variant")
        if state.truco_pending:
            if team == state.truco_by:
                return Reason("truco_waiting", "your team's truco call is waiting for an answer")
            return Reason("truco_answer", "the truco call must be answered before anyone plays")
        if state.turn != seat:
            return Reason("not_your_turn", "it is not your turn to play")
        if call is Call.PASAR:
            return Reason("pasar_first_turn", "all three cards may be passed only on your first turn")
        if call is Call.LAS_QUE_PINTAN:
            return Reason("pintan_not_now", "las que pintan opens the envite: not possible now or with that card")
        if state.deal_kind is DealKind.BLIND:
            return Reason("blind_hand", "this hand is played blind: play your next card unseen")
        if call is Call.PLAY_BLIND:
            return Reason("face_up_hand", "cards are played face up in this hand")
        if action.card in state.hands[seat]:
            return Reason("highest_card", "after a tied first trick you must play your highest card")
        return Reason("not_held", f"you do not hold {action.card}")
    if call in TRUCO_CALLS:
        if call not in [step.call for step in state.rules.truco_ladder]:
            return Reason("not_in_variant", f"{call.value} is not a call of this game")
        if state.perico_lock:
            return Reason("perico_lock", "the perico was played by a trick winner: no more raises (001 L37)")
        if state.raise_barred:
            return Reason("no_raises", "no raising in this hand (eleven rule)")
        if state.truco_pending and team != state.truco_by:
            if state.rules.counter_raise:
                ladder = state.rules.truco_ladder
                if state.truco_pending < len(ladder):
                    return Reason("raise_is", f"the raise now is {ladder[state.truco_pending].call.value}")
                return Reason("bet_highest", "the bet is at its highest")
            return Reason("quiero_first", "say quiero first: a raise is only allowed after accepting the bet")
        if state.truco_pending:
            return Reason("truco_waiting", "your team's truco call is waiting for an answer")
        if state.truco_right not in (NO_TEAM, team):
            return Reason("no_right", "your team does not hold the right to raise: the other team accepted last")
        if state.truco_level >= len(state.rules.truco_ladder):
            return Reason("bet_highest", f"{state.rules.truco_ladder[-1].call.value} is the highest bet")
        if state.truco_right != NO_TEAM and not state.rules.late_raises:
            return Reason("raise_with_quiero", "raises only together with quiero at this table")
        if not _timing_ok(state, seat):
            return Reason("own_turn_truco", "truco may only be called on your own turn at this table")
        return Reason("next_bet", f"the next bet is {state.rules.truco_ladder[state.truco_level].call.value}")
    if call in (Call.QUIERO, Call.NO_QUIERO):
        if state.truco_pending and state.truco_forced and team != state.truco_by:
            return Reason("truco_forced", "the truco must be played: it cannot be declined (estar cantando)")
        return Reason("no_bet", "there is no bet for you to answer")
    if _is_envite_call(state, call):
        return env.explain_opening(state, seat)
    if call is Call.MAZO:
        if not state.rules.mazo_allowed(state.n):
            return Reason("mazo_off", "me voy al mazo is not allowed at this table")
        return Reason("mazo_when", "you may go to the mazo only on your turn or when answering a truco")
    if call in (Call.DECLARE_ENVIDO, Call.SON_BUENAS):
        return Reason("no_declaring", "no envido values are being declared")
    return Reason("not_now", f"{call.value} is not possible now")


# ---------------------------------------------------------------- apply


def apply(state: State, action: Action | Deal) -> tuple[State, list[Event]]:
    """The state after `action`, and the events it caused. Raises IllegalAction."""
    if isinstance(action, Deal):
        return _apply_deal(state, action)
    if not isinstance(action, Action):
        raise IllegalAction("not an action")
    if action not in legal_actions(state, action.seat):
        raise IllegalAction(explain(state, action))
    w = thaw(state)
    events: list[Event] = []
    call = action.call
    if state.ley_mode and state.phase is Phase.PLAY:
        ve_ley.before(w, action)
        if call in _LEY_CALLS:
            events.append(Acted(action.seat, call.value))
            ve_ley.act(w, events, action)
            return freeze(w), events
    if call is Call.DISCARD:
        events.append(Acted(action.seat, call.value, action.card))
        _discard(w, action)
    elif call is Call.MALDON:
        events.append(Acted(action.seat, call.value))
        # The claimant proves the hand; it is thrown in without points and the deal moves on.
        w.shown = w.shown + ((action.seat, state.dealt[action.seat]),)
        _end_hand(w, events, None, "maldon")
    elif state.phase is Phase.FLOR:
        events.append(Acted(action.seat, call.value, None, action.amount))
        if state.rules.flor_style == "venezolano":
            ve_flor.act(w, events, action)
        else:
            flr.act(w, events, action)
    elif call is Call.PLAY:
        events.append(Acted(action.seat, call.value, action.card))
        _play(w, events, action)
    elif call is Call.PLAY_BLIND:
        # The seat's next card, in dealt order; it becomes public as it is played.
        card = state.hands[action.seat][0]
        events.append(Acted(action.seat, call.value, card))
        _play(w, events, Action(action.seat, Call.PLAY, card))
    elif call is Call.LAS_QUE_PINTAN:
        # The card is played and the envite opened at its value (001 L28).
        events.append(Acted(action.seat, call.value, action.card))
        _envite(w, events, action)
        _play(w, events, action)
    elif call is Call.PASAR:
        events.append(Acted(action.seat, call.value))
        _pasar(w, events, action.seat)
    elif call is Call.DECLARE_ENVIDO or call is Call.SON_BUENAS:
        env.declare(w, events, action)
    elif state.envido_status is EnvidoStatus.BETTING or _is_envite_call(state, call):
        events.append(Acted(action.seat, call.value, None, action.amount))
        if state.rules.envite == "piedras":
            _envite(w, events, action)
        else:
            env.bet(w, events, action)
    else:
        events.append(Acted(action.seat, call.value))
        _truco(w, events, action)
    return freeze(w), events


_LEY_CALLS = frozenset(
    (Call.A_LEY, Call.FLOR, Call.TENGO_FLOR, Call.CON_LEY_QUIERO, Call.SIN_LEY_NO_QUIERO,
     Call.PEDIR_FLOR)
)


def _envite(w: Any, events: list[Event], action: Action) -> None:
    """A Venezuelan envite call; in a ley hand, note whether it is con ley (ve_ley.py)."""
    if w.ley_mode and w.envido_status is EnvidoStatus.DONE:
        w.envido_status = EnvidoStatus.OPEN  # the envite con ley after one sin ley (V-R9)
    opening = w.envido_status is EnvidoStatus.OPEN
    ve_env.bet(w, events, action)
    if opening:
        ve_ley.opened(w, action.seat)
    else:
        ve_ley.answered(w, action.seat)


_PIEDRAS_OPENINGS = frozenset(
    (Call.ENVIDO, Call.ENVIDO_PUNTOS, Call.FALTA_ENVIDO, Call.HASTA_IGUALAR)
)


def _is_envite_call(state: State, call: Call) -> bool:
    if state.rules.envite == "piedras":
        return call in _PIEDRAS_OPENINGS or call is Call.PIEDRAS
    return state.rules.envido_step(call) is not None


def _apply_deal(state: State, d: Deal) -> tuple[State, list[Event]]:
    if state.phase is not Phase.DEAL:
        raise IllegalAction("it is not time to deal")
    rules = state.rules
    sizes = [rules.cards_per_hand] * state.n
    if solo_mano(rules, state.n):
        sizes[(state.dealer + 1) % state.n] += 1
    if len(d.hands) != state.n or [len(h) for h in d.hands] != sizes:
        raise IllegalAction(f"a deal gives {rules.cards_per_hand} cards to each of {state.n} seats")
    seen = [c.code for h in d.hands for c in h] + ([] if d.face_up is None else [d.face_up.code])
    codes = set(seen)
    if len(codes) != len(seen) or not codes <= rules.deck_codes:
        raise IllegalAction("a deal must use distinct cards of the deck")
    if (d.face_up is not None) != rules.has_face_up:
        raise IllegalAction("wrong face-up card for this variant")
    w = thaw(state)
    if w.game_winner is not None:
        w.scores = (0,) * len(w.scores)
        w.game_no += 1
        w.history = ()
        w.next_pica = False
        w.game_winner = None
    w.deal_no += 1
    if state.n == 6:
        # Pica-pica stops once a team has 10 buenas (25 of 30; target - 5 in general).
        pica_allowed = max(w.scores) < rules.target - 5
        w.deal_kind = DealKind.PICA_PICA if (w.next_pica and pica_allowed) else DealKind.REDONDA
        w.next_pica = w.deal_kind is DealKind.REDONDA
    if rules.eleven_rule:
        w.deal_kind = eleven_kind(w.scores, rules.target)
    w.dealt = d.hands
    w.hands = d.hands
    w.face_up = d.face_up
    w.duel = 0
    events: list[Event] = [HandDealt(w.deal_no, w.dealer, w.deal_kind.value, d.hands, d.face_up)]
    _start_hand(w, events)
    return freeze(w), events


def _start_hand(w: Any, events: list[Event]) -> None:
    n, d = w.n, w.dealer
    if w.deal_kind is DealKind.PICA_PICA:
        # Duels of opposite seats: mano vs his opposite, then their right-hand neighbours,
        # then the dealer vs his opposite (RULES.md 1.12.6; duel mano per OP-AR-21).
        first = (d + 1 + w.duel) % n
        w.players = (first, (first + 3) % n)
    else:
        w.players = tuple((d + 1 + i) % n for i in range(n))
    w.mano = w.players[0]
    if solo_mano(w.rules, n):
        w.team_of = tuple(0 if s == w.mano else 1 for s in range(n))
    w.tricks = ()
    w.trick_results = ()
    w.current = ()
    w.leader = w.turn = w.mano
    w.truco_level = w.truco_pending = 0
    w.truco_by = w.truco_right = NO_TEAM
    w.truco_seat = w.envido_seat = -1
    w.envido_status = EnvidoStatus.OPEN
    w.envido_calls = ()
    w.envido_by = NO_TEAM
    w.envido_decl = ()
    w.envido_best = -1
    w.envido_barred = frozenset()
    w.envido_result = None
    w.flor_result = None
    w.shown = ()
    w.active = w.players
    w.trick_winners = ()
    w.passed = ()
    w.passed_seats = ()
    w.envido_stake = w.envido_prev = 0
    w.envido_falta = False
    w.perico_lock = False
    w.truco_forced = False
    w.cantando = NO_TEAM
    w.ley_mode = w.ley_closed = w.envite_ley = w.conley_done = False
    w.ley_seats = w.ley_spoken = w.sinley_seats = ()
    w.flor_lost = w.ley_deferred = w.penalties = ()
    w.conley_stake = 0
    w.flor_asked = False
    w.phase = Phase.PLAY
    if not w.rules.envido_ladder:
        w.envido_status = EnvidoStatus.CLOSED  # a game without envido (Brazil)
    w.raise_barred = w.deal_kind in (DealKind.ELEVEN, DealKind.BLIND)
    if w.deal_kind is DealKind.ELEVEN:
        # The eleven rule is an offer the team on 11 answers like a truco from the other
        # team: quiero plays the hand for 3, no quiero gives the others 1 (RULES.md 3.11).
        on_eleven = 0 if w.scores[0] == w.rules.target - 1 else 1
        w.truco_pending = 1
        w.truco_by = 1 - on_eleven
    events.append(HandStarted(w.mano, w.players, w.duel))
    if solo_mano(w.rules, n) and len(w.hands[w.mano]) > w.rules.cards_per_hand:
        w.phase = Phase.DISCARD  # flor is known only once the mano has kept his three
        w.turn = -1
        return
    _start_flor(w, events)


def _start_flor(w: Any, events: list[Event]) -> None:
    rules = w.rules
    if rules.flor_style != "venezolano":
        flr.start(w)
        return
    team = ve_flor.cantando_team(w) if rules.cantando else NO_TEAM
    flr.start(w)  # the same flor round; its betting differs (ve_flor.legal / act)
    if team == NO_TEAM and rules.flor and rules.flor_declaration == "a_ley":
        # The players declare their flores (ve_ley.py): the hand starts with the tricks.
        w.ley_mode = True
        w.phase = Phase.PLAY
        w.flor_status = FlorStatus.NONE
        w.envido_status = EnvidoStatus.OPEN
        return
    if team != NO_TEAM:
        # Estar cantando: the flores count in the team comparison, not in a flor round.
        w.phase = Phase.PLAY
        w.flor_status = FlorStatus.NONE
        ve_flor.start_cantando(w, events, team)


def _discard(w: Any, action: Action) -> None:
    """The mano lays one card away, face down and out of play (OP-UY-6); the hand then
    starts as usual, with envido and flor counted on the three cards he kept."""
    seat = action.seat
    kept = tuple(c for c in w.hands[seat] if c != action.card)
    w.hands = w.hands[:seat] + (kept,) + w.hands[seat + 1 :]
    w.dealt = w.dealt[:seat] + (kept,) + w.dealt[seat + 1 :]
    w.phase = Phase.PLAY
    w.turn = w.leader = w.mano
    flr.start(w)


# ---------------------------------------------------------------- tricks


def _next_in_hand(w: Any, seat: int) -> int:
    """The next seat in playing order that takes part in the trick."""
    players, active = w.players, w.active
    i = players.index(seat)
    for k in range(1, len(players) + 1):
        nxt = players[(i + k) % len(players)]
        if nxt in active:
            return int(nxt)
    return -1


def _play(w: Any, events: list[Event], action: Action) -> None:
    seat, card = action.seat, action.card
    hand = w.hands[seat]
    w.hands = w.hands[:seat] + (tuple(c for c in hand if c != card),) + w.hands[seat + 1 :]
    w.current = w.current + ((seat, card),)
    if seat not in w.envido_barred:
        w.envido_barred = w.envido_barred | {seat}
    rules = w.rules
    if rules.perico_locks and not w.perico_lock and seat in w.trick_winners:
        # 001 L37 (OP-VE-25): a player who won the first or second trick plays the perico.
        specials = rules.specials(w.face_up)
        if specials and card == specials[0]:
            w.perico_lock = w.raise_barred = True
    if len(w.current) < len(w.active):
        w.turn = _next_in_hand(w, seat)
        return
    _finish_trick(w, events)


def _pasar(w: Any, events: list[Event], seat: int) -> None:
    """OP-VE-23: the three cards go face down (never shown); the player keeps his envite
    rights but takes no part in the tricks. A team with nobody left loses the hand."""
    w.hands = w.hands[:seat] + ((),) + w.hands[seat + 1 :]
    w.passed_seats = w.passed_seats + (seat,)
    w.envido_barred = w.envido_barred | {seat}  # his first-card turn is spent
    nxt = _next_in_hand(w, seat)
    w.active = tuple(s for s in w.active if s != seat)
    team = w.team_of[seat]
    if not any(w.team_of[s] == team for s in w.active):
        _end_hand(w, events, 1 - team, "pasar")
        return
    if len(w.current) == len(w.active):
        _finish_trick(w, events)
    else:
        w.turn = nxt


def _parda_leader(w: Any) -> int:
    if w.rules.parda_leads == "mano":
        # 001 L46: after a tie El Mano leads (the first in playing order still in the trick).
        for seat in w.players:
            if seat in w.active:
                return int(seat)
    return int(w.leader)


def _finish_trick(w: Any, events: list[Event]) -> None:
    rules = w.rules
    strength = rules.strength
    face_up = w.face_up
    number = len(w.tricks) + 1
    restricted = rules.tie_rule == "venezolano" and number == 3 and w.trick_results == (PARDA, PARDA)
    best = -1
    top: list[int] = []
    for seat, card in w.current:
        s = strength(card, face_up)
        if restricted:
            second = next(c for p, c in w.tricks[1] if p == seat)
            if s > strength(second, face_up):
                # 001 L45: a third card above one's second is a carta pasada (no value).
                s = -1
                w.passed = w.passed + ((number, seat),)
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
    if rules.tie_rule == "venezolano" and number == 2 and w.trick_results == (PARDA, PARDA):
        # 001 L45: after two ties only the players who tied the second decide the third.
        w.active = tuple(s for s in w.players if s in top)
    if result == PARDA:
        leader = _parda_leader(w)
    events.append(TrickEnded(number, None if result == PARDA else result, leader))
    if number == 1 and w.envido_status is EnvidoStatus.OPEN:
        w.envido_status = EnvidoStatus.CLOSED
    if w.trick_results == (PARDA, PARDA, PARDA) and w.rules.three_pardas != "mano":
        # Brazil: three ties lose the dealer's side the game (or, as an option, the hand).
        winner = 1 - w.team_of[w.dealer]
        points = None
        if w.rules.three_pardas == "loses_game":
            points = max(w.rules.target - team_score(w, winner), 1)
        _end_hand(w, events, winner, "three_ties", points)
        return
    winner = hand_winner(w.trick_results, w.team_of[w.mano])
    if winner is not None:
        _end_hand(w, events, winner, "tricks")
        return
    w.leader = w.turn = leader
    if number == 1 and w.ley_mode:
        ve_ley.close(w, events)  # the a-ley players speak, the declared flores are settled


def hand_winner(results: tuple[int, ...], mano_team: int) -> int | None:
    """RULES.md 1.6 table: the winning team once decided, else None."""
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


# ---------------------------------------------------------------- truco ladder


def _truco(w: Any, events: list[Event], action: Action) -> None:
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
        _end_hand(w, events, w.truco_by, why, step.declined)
    elif call is Call.MAZO:
        _end_hand(w, events, 1 - team, "mazo")
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


# ---------------------------------------------------------------- scoring and hand end


def truco_value(w: Any) -> int:
    """What the hand is worth now; a game-deciding step shows the whole target."""
    level = w.truco_level
    if not level:
        return 1
    step = w.rules.truco_ladder[level - 1]
    return int(w.rules.target if step.wins_game else step.accepted)


def credit(w: Any, events: list[Event], team: int, points: int, reason: str) -> bool:
    """Add points now (or defer them under OPT-SIMULTANEOUS, or to the end of an a-ley
    hand); True if the game just ended."""
    if points <= 0:
        return False
    if w.rules.simultaneous and reason != "truco" and reason != "truco_declined" and reason != "mazo":
        w.deferred = w.deferred + ((team, points, reason),)
        return False
    if w.ley_mode and reason in ve_ley.DEFERRED:
        w.ley_deferred = w.ley_deferred + ((team, points, reason),)
        return False
    return credit_now(w, events, team, points, reason)


def credit_now(w: Any, events: list[Event], team: int, points: int, reason: str) -> bool:
    if points <= 0:
        return False
    _add(w, team, points)
    events.append(PointsScored(team, points, reason, w.scores))
    return not w.rules.simultaneous and team_score(w, team) >= w.rules.target


def leader_needs(w: Any, goal: int) -> int:
    """Points the leading team still needs to reach `goal` (falta envido, al resto)."""
    return int(max(goal - max(w.scores), 1))


# What the tricks of a hand score, by deal: the special Brazilian hands are named for what
# they are (RULES.md 3.11): nobody called truco in a mão de onze (the team on 11 chose to
# play it for 3) nor in the blind mão de ferro.
_HAND_POINTS = {DealKind.ELEVEN: "mao_de_onze", DealKind.BLIND: "mao_de_ferro"}


def _end_hand(
    w: Any, events: list[Event], winner: int | None, reason: str, points: int | None = None
) -> None:
    """Finish the hand: truco points (unless the game already ended), proofs, next step."""
    game_over = reason == "game_over"
    truco_points = 0
    if w.ley_mode:
        # Envite and flor points first (001 L22), with the hidden-flor penalties.
        game_over = ve_ley.final(w, events, game_over)
    if not game_over and winner is not None:
        truco_points = truco_value(w) if points is None else points
        if points is None and w.truco_level and w.rules.truco_ladder[w.truco_level - 1].wins_game:
            # vale el juego accepted: the winner wins the game whatever the score (001 L36)
            truco_points = max(w.rules.target - w.scores[winner], 1)
        why = _HAND_POINTS.get(w.deal_kind, "truco") if reason == "tricks" else reason
        if w.ley_mode:
            truco_points = ve_ley.truco_points(w, events, winner, truco_points, why)
        game_over = credit(w, events, winner, truco_points, why)
    for seat, cards in w.shown:
        kind = "maldon" if reason == "maldon" else "flor" if len(cards) == 3 else "envido"
        if w.ley_mode and ve_ley.lost(w, seat):
            kind = "hidden_flor"  # a flor kept quiet, shown at the end (V-F9, V-R4)
        events.append(CardsShown(seat, cards, kind))
    if w.rules.simultaneous and not game_over:
        for team, pts, why in w.deferred:
            _add(w, team, pts)
            events.append(PointsScored(team, pts, why, w.scores))
        w.deferred = ()
        target = w.rules.target
        a, b = w.scores
        game_over = (a >= target or b >= target) and a != b
    events.append(HandEnded(winner, truco_points, reason, w.scores))
    w.history = w.history + (
        HandSummary(w.deal_no, w.duel, winner, truco_points, w.envido_result, w.flor_result,
                    reason, w.shown, w.penalties),
    )
    w.turn = -1
    if game_over:
        _end_game(w, events)
        return
    if w.deal_kind is DealKind.PICA_PICA and w.duel < 2:
        w.duel += 1
        _start_hand(w, events)
        return
    w.phase = Phase.DEAL
    w.dealer = (w.dealer + w.rules.deal_step) % w.n


def end_hand_now(w: Any, events: list[Event]) -> None:
    """The game was decided by envido or flor points: the hand stops at once (RULES 1.10)."""
    _end_hand(w, events, None, "game_over")


def _end_game(w: Any, events: list[Event]) -> None:
    if len(w.scores) == 2:
        a, b = w.scores
        winner = 0 if a > b else 1
        won_by: tuple[int, ...] = (winner,)
    else:
        # 3 players: the seats that reached the target (partners together), OP-UY-5; the
        # event's team is their team in the hand that ended the game.
        won_by = tuple(s for s in range(w.n) if w.scores[s] >= w.rules.target)
        winner = w.team_of[won_by[0]]
    won = list(w.games_won)
    for h in won_by:
        won[h] += 1
    w.games_won = tuple(won)
    events.append(GameEnded(winner, w.scores, w.games_won))
    w.deferred = ()
    if max(w.games_won[h] for h in won_by) >= w.rules.match_games:
        w.phase = Phase.MATCH_OVER
        w.winner = winner
        events.append(MatchEnded(winner, w.games_won))
        return
    # The final score stays visible until the next game's first deal resets it.
    w.game_winner = winner
    w.phase = Phase.DEAL
    w.dealer = (w.dealer + w.rules.deal_step) % w.n


# ---------------------------------------------------------------- replay


def replay(rules: RuleSet, n_players: int, events: Iterable[Event], start: State | None = None) -> State:
    """Rebuild a state from a log: player actions and deals are re-applied, every derived
    event is checked against the log (ValueError on any difference). No rng is needed.
    With ``start`` (a state saved earlier), ``events`` are the ones that followed it."""
    it = iter(events)
    if start is None:
        first = next(it, None)
        if not isinstance(first, MatchStarted):
            raise ValueError("a log starts with match_started")
        if first.variant != rules.variant or first.options != rules.options or first.n_players != n_players:
            raise ValueError("the log was played with other rules")
        state = initial_state(rules, n_players, first.first_dealer)
    else:
        state = start
    expected: list[Event] = []
    for event in it:
        if isinstance(event, SeatCovered) and not expected:
            continue  # the server's note that its bot chose the next action (not a rule event)
        if expected:
            if event != expected.pop(0):
                raise ValueError(f"the log disagrees with the rules at {event!r}")
            continue
        if isinstance(event, HandDealt):
            hands = tuple(h if h is not None else () for h in event.hands)
            state, produced = apply(state, Deal(hands, event.face_up))
        elif isinstance(event, Acted):
            action = _action_of(event)
            try:
                state, produced = apply(state, action)
            except IllegalAction as exc:
                raise ValueError(f"illegal action in the log: {exc.reason}") from exc
        else:
            raise ValueError(f"unexpected event in the log: {event!r}")
        if produced[0] != event:
            raise ValueError(f"the log disagrees with the rules at {event!r}")
        expected = produced[1:]
    if expected:
        raise ValueError("the log is truncated in the middle of an action's events")
    return state


def _action_of(event: Acted) -> Action:
    try:
        call = Call(event.call)
    except ValueError as exc:
        raise ValueError(f"unknown call {event.call!r} in the log") from exc
    if call in AMOUNT_CALLS:
        return Action(event.seat, call, None, event.value)
    if call is Call.PLAY_BLIND:
        return Action(event.seat, call)  # the event shows the card; the action names none
    return Action(event.seat, call, event.card)
