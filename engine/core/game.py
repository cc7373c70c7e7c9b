"""Transitions: new_match, legal_actions, apply, deal, replay; this module dispatches.

`apply` validates an action with `refusal`, the rules' single check (`legal_actions` lists
the candidates it passes), then runs it on a mutable scratch copy of the state and freezes the result.
Chance is a separate action (`Deal`): `deal(state, rng)` shuffles with the injected rng and
applies the resulting `Deal`, whose event carries every card, so `replay` needs no rng.
The rules live elsewhere: tricks (core/tricks.py), the truco ladder (core/truco.py), the
hand's life cycle (core/hand.py), and the envido and flor families a variant plugs in
through its RuleSet's hooks (core/hooks.py).
"""

from __future__ import annotations

import random
from collections.abc import Iterable

from engine.core.actions import Action, Deal, action as mk
from engine.core.calls import AMOUNT_CALLS, Call
from engine.core.cards import Card
from engine.core.errors import IllegalAction, Reason
from engine.core.events import Acted, Event, HandDealt, MatchStarted, Scoring, SeatCovered
from engine.core.hand import apply_deal, discard, end_hand, initial_state, solo_mano
from engine.core.ruleset import Maldon, RuleSet
from engine.core.state import EnvidoStatus, Phase, State, freeze, thaw
from engine.core.tricks import CARD_CALLS, card_actions, card_refusal, pasar, play
from engine.core.truco import TRUCO_FAMILY, mazo_refusal, truco, truco_actions, truco_refusal

# Enum members the hot path compares with, as module globals (a member lookup on the
# enum class costs ~60 ns, a global ~8 ns; legal_actions runs them for every seat).
_NO_MALDON = Maldon.OFF
_PLAY, _FLOR, _DISCARD = Phase.PLAY, Phase.FLOR, Phase.DISCARD
_MATCH_OVER, _DEAL = Phase.MATCH_OVER, Phase.DEAL
_DECLARING, _BETTING = EnvidoStatus.DECLARING, EnvidoStatus.BETTING
_MALDON, _DISCARD_CALL, _DECLARE, _SON_BUENAS = Call.MALDON, Call.DISCARD, Call.DECLARE_ENVIDO, Call.SON_BUENAS
_PLAY_CALL, _PLAY_BLIND, _PINTAN, _PASAR = Call.PLAY, Call.PLAY_BLIND, Call.LAS_QUE_PINTAN, Call.PASAR


def new_match(rules: RuleSet, n_players: int, rng: random.Random,
              first_dealer: int | None = None, entropy: tuple[str, ...] = ()) -> tuple[State, list[Event]]:
    """A fresh match with its first deal; the first dealer is drawn from `rng` (OP-AR-24)
    unless given (a rematch passes the deal on, so the mano alternates between matches).
    Either way it is recorded in `match_started`, so a replay needs no rng. `entropy`: what the
    players added to the deals' secret, recorded there too (the caller's rng already draws on it)."""
    if n_players not in rules.player_counts:
        raise ValueError(f"{rules.variant} is played by {rules.player_counts} players")
    if first_dealer is None:
        first_dealer = rng.randrange(n_players)
    elif not 0 <= first_dealer < n_players:
        raise ValueError(f"no seat {first_dealer} at a table of {n_players}")
    state = initial_state(rules, n_players, first_dealer)
    events: list[Event] = [MatchStarted(rules.variant, rules.options, n_players, first_dealer, entropy)]
    state, more = deal(state, rng)
    return state, events + more


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
    hands: list[tuple[Card, ...]] = [()] * n
    for i in range(n):
        seat = (state.dealer + 1 + i) % n
        hands[seat] = tuple(cards[i + k * n] for k in range(per))
    used = n * per
    if solo_mano(state.rules, n):
        # docs/RULES.md 2.12.2 / OP-UY-6: the mano's fourth card comes in the normal deal.
        mano = (state.dealer + 1) % n
        hands[mano] = hands[mano] + (cards[used],)
        used += 1
    face_up = cards[used] if state.rules.has_face_up else None
    state, events = apply(state, Deal(tuple(hands), face_up))
    if state.phase is Phase.DEAL:
        # The deal itself ended the hand (Venezuelan estar cantando: the cantando team's
        # envite was not beaten, docs/RULES.md 4.12.1): chance acts again, so that a caller of
        # `deal` always gets a state in which a player is to act (or the match is over).
        state, more = deal(state, rng)
        events = events + more
    return state, events


def legal_actions(state: State, seat: int) -> list[Action]:
    """Everything `seat` may do now (possibly nothing). Several seats may act at once:
    any player of a team answers a bet made to it. Each rule family lists its candidates
    that pass its own check, the one `refusal` runs (the seat-level part of a check once
    per seat, not once per candidate); tests/engine/test_refusal_property.py checks that
    an action is listed exactly when `refusal` finds nothing against it."""
    phase = state.phase
    if seat not in state.players:
        return []
    rules = state.rules
    if phase is _PLAY:
        acts = _ordinary_actions(state, seat)
        hooks = rules.hooks
        if hooks.own_calls:
            own = hooks.own_actions(state, seat, lambda: bool(acts))
            if own:
                acts = own + acts
    elif phase is _FLOR:
        acts = rules.hooks.flor_legal(state, seat)
    elif phase is _DISCARD:
        return [mk(seat, Call.DISCARD, card) for card in state.hands[seat] if seat == state.mano]
    else:
        return []
    if rules.maldon is not _NO_MALDON and rules.hooks.maldon_refusal(state, seat) is None:
        acts.append(mk(seat, Call.MALDON))
    return acts


def all_legal_actions(state: State) -> list[Action]:
    out: list[Action] = []
    for seat in range(state.n):
        out.extend(legal_actions(state, seat))
    return out


def _ordinary_actions(state: State, seat: int) -> list[Action]:
    """Trick play without the variant's own calls: the same branches as `_play_refusal`."""
    status = state.envido_status
    hooks = state.rules.hooks
    if status is _DECLARING:
        return hooks.envido_declarations(state, seat)
    if status is _BETTING:
        if state.team_of[seat] == state.envido_by:
            return []
        return hooks.envido_answers(state, seat)
    # Cards (with passing), the truco ladder, the envido openings, the mazo, in that order.
    acts = card_actions(state, seat)
    acts += truco_actions(state, seat)
    acts += hooks.envido_openings(state, seat)
    if mazo_refusal(state, seat) is None:
        acts.append(mk(seat, Call.MAZO))
    return acts


# Calls that name a card (Action.card): every other call must not.
_CARD_NAMED = (Call.PLAY, Call.DISCARD, Call.LAS_QUE_PINTAN)  # tuples: see core/truco.py


def refusal(state: State, action: Action) -> Reason | None:
    """The single check of an action: None when it is legal now, else why it is refused (a
    Reason: an English sentence with a stable code). `apply` raises IllegalAction with
    this reason and `legal_actions` lists exactly the actions it passes. Each rule family
    checks its own calls: tricks (core/tricks.py), the truco ladder (core/truco.py),
    envido, flor, maldon and a variant's own calls through the RuleSet's hooks
    (core/hooks.py)."""
    seat, call = action.seat, action.call
    if state.phase is _MATCH_OVER:
        return Reason("match_over", "the match is over")
    if state.phase is _DEAL:
        return Reason("not_dealt", "the cards have not been dealt yet")
    if not 0 <= seat < state.n:
        return Reason("no_seat", f"there is no seat {seat}")
    if seat not in state.players:
        return Reason("not_in_hand", "you are not playing this hand")
    if (action.card is not None) != (call in _CARD_NAMED) or (action.amount is not None) != (call in AMOUNT_CALLS):
        return Reason("not_now", f"{call.value} is not possible now")  # a malformed action
    hooks = state.rules.hooks
    if call is _MALDON:
        return hooks.maldon_refusal(state, seat)
    if state.phase is _DISCARD:
        if seat != state.mano:
            return Reason("discarding", "the mano is laying away his fourth card")
        if call is _DISCARD_CALL and action.card in state.hands[seat]:
            return None
        return Reason("discard_first", "lay away one of your four cards first")
    if state.phase is _FLOR:
        return hooks.flor_refusal(state, action)
    return _play_refusal(state, action)


def _play_refusal(state: State, action: Action) -> Reason | None:
    seat, call = action.seat, action.call
    hooks = state.rules.hooks
    if call in hooks.own_calls:
        return hooks.own_refusal(state, action, lambda: bool(_ordinary_actions(state, seat)))
    status = state.envido_status
    if status is _DECLARING:
        if call is _DECLARE or call is _SON_BUENAS:
            return hooks.declare_refusal(state, action)
        return Reason("envido_declaring", "the envido values are being declared")
    if status is _BETTING:
        if state.team_of[seat] == state.envido_by:
            return Reason("envido_waiting", "your team's envido call is waiting for an answer")
        return hooks.answer_refusal(state, action)
    if call in CARD_CALLS:
        return card_refusal(state, action)
    if call in TRUCO_FAMILY:
        return truco_refusal(state, action)
    if hooks.is_envido_call(state, call):
        return hooks.envido_refusal(state, action)
    if call is _DECLARE or call is _SON_BUENAS:
        return Reason("no_declaring", "no envido values are being declared")
    return Reason("not_now", f"{call.value} is not possible now")


def apply(state: State, action: Action | Deal) -> tuple[State, list[Event]]:
    """The state after `action`, and the events it caused. Raises IllegalAction."""
    if isinstance(action, Deal):
        return apply_deal(state, action)
    if not isinstance(action, Action):
        raise IllegalAction("not an action")
    reason = refusal(state, action)
    if reason is not None:
        raise IllegalAction(reason)
    w = thaw(state)
    events: list[Event] = []
    call = action.call
    value: str = call._value_  # the wire name (Enum.value is a Python-level property)
    hooks = state.rules.hooks
    if hooks.before_action(w, events, action):
        return freeze(w), events
    if call is _DISCARD_CALL:
        events.append(Acted(action.seat, value, action.card))
        discard(w, events, action)
    elif call is _MALDON:
        events.append(Acted(action.seat, value))
        # The claimant proves the hand; it is thrown in without points and the deal moves on.
        w.shown = w.shown + ((action.seat, state.dealt[action.seat]),)
        end_hand(w, events, None, Scoring.MALDON)
    elif state.phase is _FLOR:
        events.append(Acted(action.seat, value, None, action.amount))
        hooks.flor_act(w, events, action)
    elif call is _PLAY_CALL:
        events.append(Acted(action.seat, value, action.card))
        play(w, events, action)
    elif call is _PLAY_BLIND:
        # The seat's next card, in dealt order; it becomes public as it is played.
        card = state.hands[action.seat][0]
        events.append(Acted(action.seat, value, card))
        play(w, events, Action(action.seat, _PLAY_CALL, card))
    elif call is _PINTAN:
        # The card is played and the envite opened at its value (001 L28).
        events.append(Acted(action.seat, value, action.card))
        hooks.envido_bet(w, events, action)
        play(w, events, action)
    elif call is _PASAR:
        events.append(Acted(action.seat, value))
        pasar(w, events, action.seat)
    elif call is _DECLARE or call is _SON_BUENAS:
        hooks.envido_declare(w, events, action)
    elif state.envido_status is _BETTING or hooks.is_envido_call(state, call):
        events.append(Acted(action.seat, value, None, action.amount))
        hooks.envido_bet(w, events, action)
    else:
        events.append(Acted(action.seat, value))
        truco(w, events, action)
    return freeze(w), events


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
