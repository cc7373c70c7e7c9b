"""What a variant plugs into the shared hand: its rule families and its life-cycle hooks.

The core (tricks, the truco ladder, the hand's life cycle, `game.py`) knows no variant by
name. Where a rule family differs (envido or the Venezuelan envite, Argentine or Venezuelan
flor) or a variant adds a step to the hand (the Venezuelan a-ley flor), the core calls the
`Hooks` object its RuleSet carries. This base class is a game without envido and flor whose
hooks change nothing; `engine/rules/hooks.py` adds the Argentine envido and flor, and
`engine/variants/venezolano/hooks.py` the Venezuelan envite, flor and ley on top of it.

Methods named `*_refusal` are a family's single check of an action: None when it is legal,
else the reason (pokerkit's verify_*). The family's list of legal actions (`envido_openings`,
`flor_legal` ...) is its candidates filtered by that check, so the two cannot disagree.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from engine.core.actions import Action
from engine.core.calls import Call
from engine.core.cards import Card
from engine.core.errors import Reason
from engine.core.events import Event, Scoring

if TYPE_CHECKING:  # types only: State holds the RuleSet that holds these hooks
    from engine.core.state import HandState, State, Work


class Hooks:
    """No envido, no flor, and nothing added to the hand's life cycle."""

    # The variant's own calls in trick play (the Venezuelan a-ley flor): their check is
    # `own_refusal`, the ones it passes `own_actions`. Empty: the shared code skips both
    # (legal_actions runs for every seat after every action).
    own_calls: tuple[Call, ...] = ()

    # ---- the envido family (Argentine ladder, or the Venezuelan envite) ----

    def is_envido_call(self, state: State, call: Call) -> bool:
        """Is `call` an opening or raise of this game's envido?"""
        return False

    def envido_refusal(self, state: State, action: Action) -> Reason | None:
        """The check of an envido opening (`is_envido_call`) while no envido bet is pending."""
        return Reason("not_in_variant", "there is no envido in this game")

    def envido_openings(self, state: State, seat: int) -> list[Action]:
        """`seat`'s opening candidates that pass `envido_refusal`."""
        return []

    def answer_refusal(self, state: State, action: Action) -> Reason | None:
        """The check of an answer to a pending envido bet by the other team."""
        return Reason("envido_answer", "answer the envido first (quiero, no quiero or a raise)")

    def envido_answers(self, state: State, seat: int) -> list[Action]:
        """The answer candidates that pass `answer_refusal`."""
        return []

    def declare_refusal(self, state: State, action: Action) -> Reason | None:
        """The check of declaring an envido value (or son buenas)."""
        return Reason("no_declaring", "no envido values are being declared")

    def envido_declarations(self, state: State, seat: int) -> list[Action]:
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

    # ---- the flor family ----

    def start_flor(self, w: Work, events: list[Event]) -> None:
        """The cards are known: open the flor round where someone holds a flor."""

    def flor_refusal(self, state: State, action: Action) -> Reason | None:
        """The check of every action in the flor phase."""
        return Reason("not_now", f"{action.call.value} is not possible now")

    def flor_legal(self, state: State, seat: int) -> list[Action]:
        """The flor-phase candidates that pass `flor_refusal`."""
        return []

    def flor_act(self, w: Work, events: list[Event], action: Action) -> None:
        raise AssertionError("no flor in this game")

    # ---- maldon (OPT-MALDON, an Argentine option) ----

    def maldon_refusal(self, state: State, seat: int) -> Reason | None:
        return Reason("maldon_off", "maldon is not played at this table")

    # ---- the variant's own calls in trick play ----

    def own_refusal(self, state: State, action: Action, may_act: Callable[[], bool]) -> Reason | None:
        """The check of one of `own_calls` in trick play; `may_act()` says whether the seat
        has an ordinary legal action now (some own calls go only with one)."""
        return Reason("not_now", f"{action.call.value} is not possible now")

    def own_actions(self, state: State, seat: int, may_act: Callable[[], bool]) -> list[Action]:
        """`seat`'s own calls that pass `own_refusal` now."""
        return []

    def pasar_refusal(self, state: State, seat: int) -> Reason | None:
        """A variant's bar on passing the cards where the trick rules allow it."""
        return None

    # ---- the truco ladder and the tricks: what a variant adds ----

    def truco_declinable(self, state: HandState) -> bool:
        """May the pending truco be declined? (Not the Venezuelan "privo y truco" against a
        team on 22, or on 20 with a flor: 4.12.1 V-C3, V-C4.)"""
        return True

    def raise_bar_reason(self, state: State) -> Reason | None:
        """The variant's own reason why raises are barred in this hand (State.raise_barred)."""
        return None

    def card_played(self, w: Work, seat: int, card: Card) -> None:
        """A card was played (RuleSet.perico_locks: the Venezuelan perico may bar raises)."""

    def carta_pasada(self, w: Work, number: int, seat: int) -> None:
        """In trick `number`, `seat`'s card counted for nothing (TieRule.VENEZOLANO)."""

    def seat_passed(self, w: Work, seat: int) -> None:
        """`seat` passed his three cards face down (RuleSet.pasar)."""

    def cantando(self, state: HandState) -> int:
        """The team "cantando" in this hand (Venezuela 4.12.1), NO_TEAM (-1) for none."""
        return -1

    def passed_cards(self, state: HandState) -> tuple[tuple[int, int], ...]:
        """(trick number, seat) of each card that counted for nothing, for the view."""
        return ()

    def passed_seats(self, state: HandState) -> tuple[int, ...]:
        """Seats that passed all three cards (face down), for the view."""
        return ()

    def penalties(self, state: HandState) -> tuple[tuple[int, str, int], ...]:
        """(team, rule, points withheld) of this hand, for the view and the hand summary."""
        return ()

    # ---- life-cycle hooks (no-op here) ----

    def before_action(self, w: Work, events: list[Event], action: Action) -> bool:
        """Runs before a legal action is applied; True when the hook applied it itself."""
        return False

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
