"""The Argentine rule families: the envido ladder, Argentine flor and maldon, plugged into
the shared hand (core/hooks.py). The Uruguayan game uses them as they are; the Venezuelan
hooks (variants/venezolano/hooks.py) replace the envido and flor families."""

from __future__ import annotations

from engine.core.actions import Action
from engine.core.calls import Call
from engine.core.events import Event
from engine.core.hooks import Hooks
from engine.core.state import HandState, State, Work
from engine.rules import envido, flor, maldon


class ArgentineHooks(Hooks):
    """Envido (docs/RULES.md 1.7), flor (1.9) and maldon (1.13)."""

    def is_envido_call(self, state: State, call: Call) -> bool:
        return state.rules.envido_step(call) is not None

    # The rule families' functions themselves (staticmethods: no extra frame on the
    # legal-action path, which runs for every seat after every action).
    envido_refusal = staticmethod(envido.opening_refusal)
    envido_openings = staticmethod(envido.legal_openings)
    answer_refusal = staticmethod(envido.answer_refusal)
    envido_answers = staticmethod(envido.legal_answers)
    declare_refusal = staticmethod(envido.declare_refusal)
    envido_declarations = staticmethod(envido.legal_declare)

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

    flor_refusal = staticmethod(flor.refusal)
    flor_legal = staticmethod(flor.legal)

    def flor_act(self, w: Work, events: list[Event], action: Action) -> None:
        flor.act(w, events, action)

    maldon_refusal = staticmethod(maldon.refusal)


ARGENTINE_HOOKS = ArgentineHooks()
