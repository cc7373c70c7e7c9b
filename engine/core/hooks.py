"""What a variant plugs into the shared hand: its rule families and its life-cycle hooks.

The core (tricks, the truco ladder, the hand's life cycle, `game.py`) knows no variant by
name. Where a rule family differs (envido or the Venezuelan envite, Argentine or Venezuelan
flor) or a variant adds a step to the hand (the Venezuelan a-ley flor), the core calls the
`Hooks` object its RuleSet carries. This base class is a game without envido and flor whose
hooks change nothing; `engine/rules/hooks.py` adds the Argentine envido and flor, and
`engine/variants/venezolano/hooks.py` the Venezuelan envite, flor and ley on top of it.

Methods named `*_refusal` return the reason a call of that family is refused (core/game.py
asks them only for an action that is not legal).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine.core.actions import Action
from engine.core.calls import Call
from engine.core.errors import Reason
from engine.core.events import Event, Scoring

if TYPE_CHECKING:  # types only: State holds the RuleSet that holds these hooks
    from engine.core.state import HandState, State, Work


class Hooks:
    """No envido, no flor, and nothing added to the hand's life cycle."""

    # Whether `late_openings` and `extend_play` can add anything: the shared code skips the
    # call otherwise (legal_actions runs for every seat after every action).
    has_late_openings = False
    extends_play = False

    # ---- the envido family (Argentine ladder, or the Venezuelan envite) ----

    def is_envido_call(self, state: State, call: Call) -> bool:
        """Is `call` an opening or raise of this game's envido?"""
        return False

    def envido_openings(self, state: State, seat: int, answering_truco: bool) -> list[Action]:
        return []

    def envido_answers(self, state: State, seat: int) -> list[Action]:
        """The answers to a pending envido bet by the other team (and what goes with them)."""
        return []

    def envido_declarations(self, state: State, seat: int) -> list[Action]:
        return []

    def late_openings(self, state: State, seat: int) -> list[Action]:
        """Envido openings after the envido window closed (the Venezuelan envite con ley)."""
        return []

    def envido_bet(self, w: Work, events: list[Event], action: Action) -> None:
        raise AssertionError("no envido in this game")

    def envido_declare(self, w: Work, events: list[Event], action: Action) -> None:
        raise AssertionError("no envido in this game")

    def envido_accepted(self, state: HandState) -> int:
        """What the pending (or accepted) envido bet pays its winner."""
        return 0

    def envido_declined(self, state: HandState) -> int:
        """What the pending envido bet pays the bettor if it is declined."""
        return 0

    def envido_stake(self, state: State) -> int | None:
        """The stake shown at the table while an envite is live (None: not shown)."""
        return None

    def envido_refusal(self, state: State, seat: int) -> str:
        return Reason("not_in_variant", "there is no envido in this game")

    # ---- the flor family ----

    def start_flor(self, w: Work, events: list[Event]) -> None:
        """The cards are known: open the flor round where someone holds a flor."""

    def flor_legal(self, state: State, seat: int) -> list[Action]:
        return []

    def flor_act(self, w: Work, events: list[Event], action: Action) -> None:
        raise AssertionError("no flor in this game")

    def flor_refusal(self, state: State, action: Action) -> str:
        return Reason("not_now", f"{action.call.value} is not possible now")

    # ---- maldon (OPT-MALDON, an Argentine option) ----

    def maldon_ok(self, state: State, seat: int) -> bool:
        return False

    def maldon_refusal(self, state: State, seat: int) -> str:
        return Reason("maldon_off", "maldon is not played at this table")

    # ---- life-cycle hooks (no-op here) ----

    def extend_play(self, state: State, seat: int, acts: list[Action]) -> list[Action]:
        """`seat`'s legal actions in trick play with the variant's own calls added."""
        return acts

    def before_action(self, w: Work, events: list[Event], action: Action) -> bool:
        """Runs before a legal action is applied; True when the hook applied it itself."""
        return False

    def refusal(self, state: State, action: Action) -> str | None:
        """The reason for refusing one of the variant's own calls, None for other calls."""
        return None

    def defer_credit(self, w: Work, team: int, points: int, reason: Scoring) -> bool:
        """True when the variant keeps these points for the end of the hand."""
        return False

    def after_first_trick(self, w: Work, events: list[Event]) -> None:
        """Trick 1 is over and the hand goes on."""

    def before_hand_end(self, w: Work, events: list[Event], game_over: bool) -> bool:
        """Points the variant kept for the end of the hand; returns whether the game is over."""
        return game_over

    def truco_points(self, w: Work, events: list[Event], winner: int, points: int, reason: Scoring) -> int:
        """The truco points of a hand that just ended, after the variant's own rules."""
        return points

    def ley_seats(self, state: State) -> tuple[int, ...]:
        """Seats that played a ley in this hand (the Venezuelan a-ley flor), for the view."""
        return ()

    def envite_ley(self, state: State) -> bool | None:
        """Whether the envite of an a-ley hand is con ley (None: no such envite)."""
        return None

    def shown_kind(self, w: Work, seat: int, kind: str) -> str:
        """What the cards `seat` shows at the end of the hand prove."""
        return kind
