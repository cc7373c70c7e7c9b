"""The Argentine rule families: the envido ladder, Argentine flor and maldon, plugged into
the shared hand (core/hooks.py). The Uruguayan game uses them as they are; the Venezuelan
hooks (variants/venezolano/hooks.py) replace the envido and flor families."""

from __future__ import annotations

from engine.core.actions import Action
from engine.core.calls import Call
from engine.core.errors import Reason
from engine.core.events import Event
from engine.core.hooks import Hooks
from engine.core.state import HandState, State, Work
from engine.rules import envido, flor, maldon


class ArgentineHooks(Hooks):
    """Envido (RULES.md 1.7), flor (1.9) and maldon (1.13)."""

    def is_envido_call(self, state: State, call: Call) -> bool:
        return state.rules.envido_step(call) is not None

    def envido_refusal(self, state: State, action: Action) -> Reason | None:
        return envido.opening_refusal(state, action)

    def envido_openings(self, state: State, seat: int) -> list[Action]:
        return envido.legal_openings(state, seat)

    def answer_refusal(self, state: State, action: Action) -> Reason | None:
        return envido.answer_refusal(state, action)

    def envido_answers(self, state: State, seat: int) -> list[Action]:
        return envido.legal_answers(state, seat)

    def declare_refusal(self, state: State, action: Action) -> Reason | None:
        return envido.declare_refusal(state, action)

    def envido_declarations(self, state: State, seat: int) -> list[Action]:
        return envido.legal_declare(state, seat)

    def envido_bet(self, w: Work, events: list[Event], action: Action) -> None:
        envido.bet(w, events, action)

    def envido_declare(self, w: Work, events: list[Event], action: Action) -> None:
        envido.declare(w, events, action)

    def envido_accepted(self, state: HandState) -> int:
        return envido.accepted_points(state)

    def envido_declined(self, state: HandState) -> int:
        return envido.declined_points(state)

    def start_flor(self, w: Work, events: list[Event]) -> None:
        flor.start(w)

    def flor_refusal(self, state: State, action: Action) -> Reason | None:
        return flor.refusal(state, action)

    def flor_legal(self, state: State, seat: int) -> list[Action]:
        return flor.legal(state, seat)

    def flor_act(self, w: Work, events: list[Event], action: Action) -> None:
        flor.act(w, events, action)

    def maldon_refusal(self, state: State, seat: int) -> Reason | None:
        return maldon.refusal(state, seat)


ARGENTINE_HOOKS = ArgentineHooks()
