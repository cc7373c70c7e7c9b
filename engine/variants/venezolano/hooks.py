"""The Venezuelan game plugged into the shared hand (core/hooks.py): the envite instead of
the envido ladder (envite.py), its flor (flor.py), estar cantando, and the flor declared by
the players a ley (ley.py). Envido values are declared as in the Argentine game."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace


from engine.core.actions import Action
from engine.core.calls import Call
from engine.core.cards import Card
from engine.core.errors import Reason
from engine.core.events import Acted, Event, Scoring
from engine.core.ruleset import FlorDeclaration
from engine.core.state import NO_TEAM, EnvidoStatus, FlorStatus, HandState, Phase, State, Work
from engine.rules import envido
from engine.rules import flor as argentine_flor
from engine.rules.hooks import ArgentineHooks
from engine.variants.venezolano.record import VenezuelanHand, hand_of, in_ley
from engine.variants.venezolano import envite, ley, ley_end
from engine.variants.venezolano import flor as ve_flor

_OPENINGS = (Call.ENVIDO, Call.ENVIDO_PUNTOS, Call.FALTA_ENVIDO, Call.HASTA_IGUALAR)
# The a-ley calls, applied by ley.act (before_action) instead of the ordinary code.
_LEY_CALLS = ley.OWN_CALLS
_PERICO = Reason("perico_lock", "the perico was played by a trick winner: no more raises (001 L37)")


class VenezuelanHooks(ArgentineHooks):
    """docs/RULES.md section 4."""

    own_calls = ley.OWN_CALLS

    # ---- the envite (piedras) ----

    def is_envido_call(self, state: State, call: Call) -> bool:
        return call in _OPENINGS or call is Call.PIEDRAS

    def envido_refusal(self, state: State, action: Action) -> Reason | None:
        if state.envido_status is EnvidoStatus.DONE and in_ley(state) and ley.conley_ok(state, action):
            return None  # the envite con ley after one sin ley (V-R9)
        reason = envido.opening_gate(state, action.seat)
        if reason is not None:
            return reason
        # Past the gate a pending truco is the other team's: las que pintan needs a card play.
        if envite.opening_ok(state, action, with_card=not state.truco_pending):
            return None
        return Reason("not_now", f"{action.call.value} is not possible now")

    def envido_openings(self, state: State, seat: int) -> list[Action]:
        if state.envido_status is EnvidoStatus.DONE:
            if in_ley(state) and ley.conley_gate(state, seat):
                return envite.opening_calls(state, seat, with_card=True)
            return []
        if envido.opening_gate(state, seat) is not None:
            return []
        return envite.opening_calls(state, seat, with_card=not state.truco_pending)

    def answer_refusal(self, state: State, action: Action) -> Reason | None:
        # An envite con ley is answered only by the a-ley calls (V-L4, own_refusal).
        if not hand_of(state).envite_ley and envite.answer_ok(state, action):
            return None
        return Reason("envido_answer", "answer the envido first (quiero, no quiero or a raise)")

    def envido_answers(self, state: State, seat: int) -> list[Action]:
        return [] if hand_of(state).envite_ley else envite.answer_actions(state, seat)

    def envido_bet(self, w: Work, events: list[Event], action: Action) -> None:
        """An envite call; in a ley hand, note whether it is con ley (ley.py)."""
        if in_ley(w) and w.envido_status is EnvidoStatus.DONE:
            w.envido_status = EnvidoStatus.OPEN  # the envite con ley after one sin ley (V-R9)
        opening = w.envido_status is EnvidoStatus.OPEN
        envite.bet(w, events, action)
        if opening:
            ley.opened(w, action.seat)
        else:
            ley.answered(w, action.seat)

    def envido_accepted(self, state: HandState) -> int:
        return envite.accepted_points(state)

    def envido_declined(self, state: HandState) -> int:
        return int(hand_of(state).envido_prev)

    def envido_stake(self, state: State) -> int | None:
        return envite.current_stake(state)

    # ---- flor: estar cantando, a ley, and the envite between flores ----

    def start_flor(self, w: Work, events: list[Event]) -> None:
        rules = w.rules
        team = ve_flor.cantando_team(w) if rules.cantando else NO_TEAM
        argentine_flor.start(w)  # the same flor round; its betting differs (flor.py)
        if team == NO_TEAM and rules.flor and rules.flor_declaration is FlorDeclaration.A_LEY:
            # The players declare their flores (ley.py): the hand starts with the tricks.
            flor_fn = rules.flor_fn
            seats = tuple(s for s in w.players if flor_fn(w.dealt[s], w.face_up) is not None)
            w.variant_hand = VenezuelanHand(ley_mode=True, flor_seats=seats)
            w.phase = Phase.PLAY
            w.flor_status = FlorStatus.NONE
            w.envido_status = EnvidoStatus.OPEN
            return
        if team != NO_TEAM:
            # Estar cantando: the flores count in the team comparison, not in a flor round.
            w.phase = Phase.PLAY
            w.flor_status = FlorStatus.NONE
            ve_flor.start_cantando(w, events, team)

    def flor_refusal(self, state: State, action: Action) -> Reason | None:
        if state.flor_status is FlorStatus.LEY:
            return ley.close_refusal(state, action)
        return ve_flor.refusal(state, action)

    def flor_legal(self, state: State, seat: int) -> list[Action]:
        if state.flor_status is FlorStatus.LEY:
            return ley.legal_close(state, seat)
        return ve_flor.legal(state, seat)

    def flor_act(self, w: Work, events: list[Event], action: Action) -> None:
        if w.flor_status is FlorStatus.LEY:
            ley.act_close(w, events, action)
        else:
            ve_flor.act(w, events, action)

    # ---- the a-ley hand's life cycle ----

    def own_refusal(self, state: State, action: Action, may_act: Callable[[], bool]) -> Reason | None:
        return ley.refusal(state, action, may_act)

    def own_actions(self, state: State, seat: int, may_act: Callable[[], bool]) -> list[Action]:
        return ley.legal(state, seat, may_act)

    def pasar_refusal(self, state: State, seat: int) -> Reason | None:
        return ley.pasar_refusal(state, seat) if in_ley(state) else None

    def before_action(self, w: Work, events: list[Event], action: Action) -> bool:
        if not (in_ley(w) and w.phase is Phase.PLAY):
            return False
        ley.before(w, action)
        if action.call not in _LEY_CALLS:
            return False
        events.append(Acted(action.seat, action.call.value))
        ley.act(w, events, action)
        return True

    def defer_credit(self, w: Work, team: int, points: int, reason: Scoring) -> bool:
        if in_ley(w) and reason in ley.DEFERRED:
            w.variant_hand = replace(hand_of(w), ley_deferred=hand_of(w).ley_deferred + ((team, points, reason),))
            return True
        return False

    def after_first_trick(self, w: Work, events: list[Event]) -> None:
        if in_ley(w):
            ley.close(w, events)  # the a-ley players speak, the declared flores are settled

    def before_hand_end(self, w: Work, events: list[Event], game_over: bool) -> bool:
        # Envite and flor points first (001 L22), with the hidden-flor penalties.
        return ley_end.final(w, events, game_over) if in_ley(w) else game_over

    def truco_points(self, w: Work, events: list[Event], winner: int, points: int, reason: Scoring) -> int:
        return ley_end.truco_points(w, events, winner, points, reason) if in_ley(w) else points

    # ---- estar cantando, the perico, passed cards: kept in the record ----

    def truco_declinable(self, state: HandState) -> bool:
        # Only the opening "privo y truco" can be forced; once accepted the ladder is free.
        return not (hand_of(state).truco_forced and state.truco_level == 0)

    def raise_bar_reason(self, state: State) -> Reason | None:
        return _PERICO if hand_of(state).perico_lock else None

    def card_played(self, w: Work, seat: int, card: Card) -> None:
        # 001 L37 (OP-VE-25): a player who won the first or second trick plays the perico.
        if seat in w.trick_winners and not hand_of(w).perico_lock:
            specials = w.rules.specials(w.face_up)
            if specials and card == specials[0]:
                w.variant_hand = replace(hand_of(w), perico_lock=True)
                w.raise_barred = True

    def carta_pasada(self, w: Work, number: int, seat: int) -> None:
        w.variant_hand = replace(hand_of(w), passed=hand_of(w).passed + ((number, seat),))

    def seat_passed(self, w: Work, seat: int) -> None:
        w.variant_hand = replace(hand_of(w), passed_seats=hand_of(w).passed_seats + (seat,))

    def cantando(self, state: HandState) -> int:
        return hand_of(state).cantando

    def passed_cards(self, state: HandState) -> tuple[tuple[int, int], ...]:
        return hand_of(state).passed

    def passed_seats(self, state: HandState) -> tuple[int, ...]:
        return hand_of(state).passed_seats

    def penalties(self, state: HandState) -> tuple[tuple[int, str, int], ...]:
        return hand_of(state).penalties

    def ley_seats(self, state: State) -> tuple[int, ...]:
        return hand_of(state).ley_seats

    def envite_ley(self, state: State) -> bool | None:
        record = hand_of(state)
        return record.envite_ley if record.ley_mode and state.envido_calls else None

    def shown_kind(self, w: Work, seat: int, kind: str) -> str:
        if in_ley(w) and ley.lost(w, seat):
            return "hidden_flor"  # a flor kept quiet, shown at the end (V-F9, V-R4)
        return kind


VENEZUELAN_HOOKS = VenezuelanHooks()
