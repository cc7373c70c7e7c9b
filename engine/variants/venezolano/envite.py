"""The Venezuelan envite (docs/RULES.md 4.7.2, 4.8.2): stakes in piedras instead of a ladder.

Only the betting differs from the Argentine envido: once a stake is accepted, the values
are declared in mano order by the shared machinery of engine/envido.py (El Mano first,
"son buenas" for a lost value, ties to the player nearer El Mano: OP-VE-16), and the
winner's proof is shown at the end of the hand.

Openings (each player on his first-card turn, or any player facing a truco, 001 L21, L24):
envido (2), envido N puntos (N >= 3), la falta / mi falta (OP-VE-6), hasta igualar, las que
pintan (played with a card). Raises: "quiero y envido" (only on a plain envido, OP-VE-9),
"quiero y N piedras más", "quiero y la falta". A decline pays the previous stake, 1 for an
opening (OP-VE-10). No envite is worth a single piedra (001 L20): results of 1 become 2.
The same betting serves the envite between flores (flor.py).
"""

from __future__ import annotations

from dataclasses import replace


from engine.core.actions import Action, action as mk
from engine.core.calls import Call
from engine.core.cards import Card
from engine.core.events import Event, Scoring
from engine.core.hand import end_hand_now
from engine.core.ledger import credit
from engine.core.ruleset import Allowed
from engine.core.state import EnvidoStatus, HandState, State, Work
from engine.variants.venezolano.record import hand_of
from engine.variants.venezolano.cards import absolute_value

MIN_STAKE = 2  # "an envite of a single point is not allowed" (001 L20)


def falta(state: HandState) -> int:
    """La falta: what the leader still needs (at 0-0 the whole game, 001 L23)."""
    return max(state.rules.target - max(state.scores), MIN_STAKE)


def _igualar(state: HandState) -> int | None:
    a, b = state.scores
    diff = abs(a - b)
    if diff == 0:
        return MIN_STAKE if state.rules.hasta_igualar_level is Allowed.TWO else None  # OP-VE-7
    return max(diff, MIN_STAKE)


def pintan(state: HandState, card: Card) -> int | None:
    """Stake of "las que pintan" on `card`: its absolute value, an ace makes 2 (001 L28)."""
    value = absolute_value(card, state.face_up)
    if value == 0:
        return MIN_STAKE if state.rules.pintan_figure is Allowed.TWO else None  # OP-VE-8
    return max(value, MIN_STAKE)


def puntos(state: HandState) -> range:
    """The stakes "envido N puntos" may name: 3 up to the target (engine policy: a stake
    above the game decides nothing more)."""
    return range(3, state.rules.target + 1)


def opening_ok(state: HandState, action: Action, with_card: bool) -> bool:
    """The per-call half of an opening's check (the seat may open: envido.opening_gate);
    las que pintan only `with_card` (not as an answer to a truco, nor between flores)."""
    call = action.call
    if call is Call.ENVIDO or call is Call.FALTA_ENVIDO:
        return True
    if call is Call.ENVIDO_PUNTOS:
        return action.amount in puntos(state)
    if call is Call.HASTA_IGUALAR:
        return _igualar(state) is not None
    if call is Call.LAS_QUE_PINTAN:
        card = action.card  # played with the opening (001 L28)
        return (with_card and card is not None and card in state.hands[action.seat]
                and pintan(state, card) is not None)
    return False


_AMOUNTS: dict[tuple[int, int, int, int], tuple[Action, ...]] = {}


def amount_actions(seat: int, call: Call, amounts: range) -> tuple[Action, ...]:
    """The actions of `call` with each of `amounts`, built once per range (the legal lists
    are rebuilt after every action, and an envite has some twenty amounts). The key holds
    the call's id, as engine.core.actions.action does."""
    key = (seat, id(call), amounts.start, amounts.stop)
    found = _AMOUNTS.get(key)
    if found is None:
        found = _AMOUNTS[key] = tuple(mk(seat, call, None, n) for n in amounts)
    return found


def opening_calls(state: State, seat: int, with_card: bool) -> list[Action]:
    """The openings that pass `opening_ok`, in the order a player reads them (the amounts
    of "envido N puntos" are taken from `puntos`, the range its check reads, so they are
    not checked one by one: there are some twenty)."""
    envido = mk(seat, Call.ENVIDO)
    acts = [envido] if opening_ok(state, envido, with_card) else []
    acts.extend(amount_actions(seat, Call.ENVIDO_PUNTOS, puntos(state)))
    rest = [mk(seat, Call.FALTA_ENVIDO), mk(seat, Call.HASTA_IGUALAR)]
    if with_card:
        rest.extend(mk(seat, Call.LAS_QUE_PINTAN, card) for card in state.hands[seat])
    acts.extend(a for a in rest if opening_ok(state, a, with_card))
    return acts


def current_stake(state: HandState) -> int:
    record = hand_of(state)
    return falta(state) if record.envido_falta else record.envido_stake


def raises(state: HandState) -> range:
    """The piedras "quiero y N piedras más" may add: up to a stake of the target."""
    return range(1, state.rules.target - hand_of(state).envido_stake + 1)


def answer_ok(state: HandState, action: Action) -> bool:
    """An answer to a pending envite: quiero, no quiero, "quiero y envido" on a plain
    envido (001 L12, OP-VE-9), piedras más, or la falta above the stake."""
    call = action.call
    if call is Call.QUIERO or call is Call.NO_QUIERO:
        return True
    record = hand_of(state)
    if record.envido_falta:
        return False  # la falta is the whole game: nothing above it
    if call is Call.ENVIDO:
        return state.envido_calls == (Call.ENVIDO,)
    if call is Call.PIEDRAS:
        return action.amount in raises(state)
    return call is Call.FALTA_ENVIDO and falta(state) > record.envido_stake


def answer_actions(state: State, seat: int) -> list[Action]:
    """The answers that pass `answer_ok` (piedras from `raises`, the range it reads)."""
    acts = [a for a in (mk(seat, Call.QUIERO), mk(seat, Call.NO_QUIERO), mk(seat, Call.ENVIDO))
            if answer_ok(state, a)]
    if not hand_of(state).envido_falta:
        acts.extend(amount_actions(seat, Call.PIEDRAS, raises(state)))
    falta_ = mk(seat, Call.FALTA_ENVIDO)
    if answer_ok(state, falta_):
        acts.append(falta_)
    return acts


def open_bet(w: Work, seat: int, call: Call, stake: int) -> None:
    w.envido_calls = (call,)
    w.envido_by = seat % 2
    w.envido_seat = seat
    w.envido_status = EnvidoStatus.BETTING
    w.envido_barred = w.envido_barred | {seat}
    # A declined opening pays 1 (001 L11; OP-VE-10).
    w.variant_hand = replace(
        hand_of(w), envido_falta=call is Call.FALTA_ENVIDO, envido_stake=stake, envido_prev=1
    )


def opening_stake(w: Work, action: Action) -> int:
    call = action.call
    if call is Call.ENVIDO:
        return 2
    if call is Call.ENVIDO_PUNTOS:
        assert action.amount is not None
        return action.amount
    if call is Call.FALTA_ENVIDO:
        return 0  # computed when settled
    if call is Call.HASTA_IGUALAR:
        value = _igualar(w)
        assert value is not None
        return value
    assert call is Call.LAS_QUE_PINTAN and action.card is not None
    value = pintan(w, action.card)
    assert value is not None
    return value


def raise_bet(w: Work, action: Action) -> None:
    """A raise is "quiero y ...": the old stake becomes what a decline pays."""
    old = current_stake(w)
    call = action.call
    w.envido_calls = w.envido_calls + (call,)
    w.envido_by = action.seat % 2
    w.envido_seat = action.seat
    record = hand_of(w)
    if call is Call.ENVIDO:
        w.variant_hand = replace(record, envido_prev=old, envido_stake=4)  # quiero y envido: 4 / 2 (VE-04)
    elif call is Call.PIEDRAS:
        assert action.amount is not None
        w.variant_hand = replace(record, envido_prev=old, envido_stake=old + action.amount)
    else:
        w.variant_hand = replace(record, envido_prev=old, envido_falta=True)


def bet(w: Work, events: list[Event], action: Action) -> None:
    """An envite call or answer during trick play (the flor envite is in flor.py)."""
    call = action.call
    if w.envido_status is EnvidoStatus.OPEN:
        open_bet(w, action.seat, call, opening_stake(w, action))
        return
    if call is Call.QUIERO:
        w.envido_status = EnvidoStatus.DECLARING
        return
    if call is Call.NO_QUIERO:
        points = hand_of(w).envido_prev
        w.envido_status = EnvidoStatus.DONE
        w.envido_result = (w.envido_by, points)
        if credit(w, events, w.envido_by, points, Scoring.ENVIDO_DECLINED):
            end_hand_now(w, events)
        return
    raise_bet(w, action)


def accepted_points(w: HandState) -> int:
    return current_stake(w)
