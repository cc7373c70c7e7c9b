"""What a player needs to read this hand: its special cards, its card ranking, how its envido
is counted and what each pending bet is worth.

These feed the view (engine/core/views.py) so that a UI can explain the variant at the table
without knowing a rule: every value here comes from the RuleSet's own functions or from the
engine's scoring code (the bet values by applying the answer to a copy of the state), never
from a second copy of the rules.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.core.actions import Action, action as mk
from engine.core.calls import Call
from engine.core.cards import Card, CardMark
from engine.core.errors import IllegalAction
from engine.core.game import apply, legal_actions, refusal
from engine.core.ledger import contraflor_stake
from engine.core.ruleset import FlorStyle, RuleSet
from engine.core.state import EnvidoStatus, FlorStatus, Phase, State

__all__ = ["BetWorth", "CardMark", "TrucoWorth", "bets", "card_marks", "count_rule", "ranking"]


@dataclass(frozen=True, slots=True)
class BetWorth:
    """A bet waiting for an answer: the points it gives if wanted and if refused."""

    kind: str  # "truco", "envido" or "flor"
    calls: tuple[str, ...]  # the calls that made it, in order (Call values)
    wanted: int | None  # None: depends on who wins (shown as "the game" with wins_game)
    refused: int | None  # None: it may not be refused (Venezuelan estar cantando)
    wins_game: bool = False  # wanted, the hand (or the flor) decides the game


@dataclass(frozen=True, slots=True)
class TrucoWorth:
    """One step of the truco ladder: the hand's worth once accepted, and if declined."""

    call: str
    wanted: int
    refused: int
    wins_game: bool


# ---------------------------------------------------------------- special cards


_MARKS: dict[tuple[str, tuple[tuple[str, object], ...], int], tuple[CardMark, ...]] = {}


def card_marks(rules: RuleSet, face_up: Card | None) -> tuple[CardMark, ...]:
    """The special cards of this hand, highest first. The RuleSet's strength and special
    functions say which kind of face-up game this is; none without a face-up card. One
    tuple per (variant, options, face-up card): views share it (and its wire form)."""
    if face_up is None:
        return ()
    key = (rules.variant, rules.options, face_up.code)
    cached = _MARKS.get(key)
    if cached is None:
        cached = _MARKS[key] = _card_marks(rules, face_up)
    return cached


def _card_marks(rules: RuleSet, face_up: Card) -> tuple[CardMark, ...]:
    return rules.marks(rules.deck, face_up)


_RANKINGS: dict[tuple[str, tuple[tuple[str, object], ...], int], tuple[tuple[Card, ...], ...]] = {}


def ranking(rules: RuleSet, face_up: Card | None) -> tuple[tuple[Card, ...], ...]:
    """Every card that can be played in this hand, strongest first; the cards of one entry
    tie (parda). The face-up card is out of play and left out. Empty while a face-up game
    has no face-up card yet (between hands)."""
    if rules.has_face_up and face_up is None:
        return ()
    key = (rules.variant, rules.options, -1 if face_up is None else face_up.code)
    cached = _RANKINGS.get(key)
    if cached is not None:
        return cached
    by_strength: dict[int, list[Card]] = {}
    for card in rules.deck:
        if card != face_up:
            by_strength.setdefault(rules.strength(card, face_up), []).append(card)
    result = tuple(tuple(by_strength[s]) for s in sorted(by_strength, reverse=True))
    _RANKINGS[key] = result
    return result


def count_rule(rules: RuleSet) -> str:
    """How envido is counted at this table ("argentine", "uruguayan", "venezolano", "none")."""
    return rules.count_rule


_STEPS: dict[tuple[str, tuple[tuple[str, object], ...]], tuple[TrucoWorth, ...]] = {}


def truco_steps(rules: RuleSet) -> tuple[TrucoWorth, ...]:
    key = (rules.variant, rules.options)
    cached = _STEPS.get(key)
    if cached is None:
        cached = _STEPS[key] = tuple(
            TrucoWorth(step.call.value, step.accepted, step.declined, step.wins_game)
            for step in rules.truco_ladder
        )
    return cached


# ---------------------------------------------------------------- the viewer's own counts


def own_envido(state: State, seat: int | None) -> tuple[int | None, tuple[Card, ...]]:
    """The viewer's envido value and the cards that make it (None: no envido game)."""
    rules = state.rules
    if seat is None or not rules.envido_ladder or not state.dealt or not state.dealt[seat]:
        return None, ()
    cards = state.dealt[seat]
    return rules.envido(cards, state.face_up), rules.envido_proof(cards, state.face_up)


def own_flor(state: State, seat: int | None) -> int | None:
    rules = state.rules
    if seat is None or not rules.flor or not state.dealt or not state.dealt[seat]:
        return None
    return rules.flor_fn(state.dealt[seat], state.face_up)


# ---------------------------------------------------------------- pending bets


def bets(state: State) -> tuple[BetWorth, ...]:
    """The bets waiting for an answer, each with what it is worth."""
    out: list[BetWorth] = []
    flor = _flor_bet(state)
    if flor is not None:
        out.append(flor)
    envido = _envido_bet(state)
    if envido is not None:
        out.append(envido)
    truco = _truco_bet(state)
    if truco is not None:
        out.append(truco)
    return tuple(out)


def _truco_bet(state: State) -> BetWorth | None:
    pending = state.truco_pending
    if not pending:
        return None
    step = state.rules.truco_ladder[pending - 1]
    calls = tuple(s.call.value for s in state.rules.truco_ladder[:pending])
    refused = step.declined if state.rules.hooks.truco_declinable(state) else None
    if step.wins_game:
        return BetWorth("truco", calls, None, refused, wins_game=True)
    return BetWorth("truco", calls, step.accepted, refused)


def _envido_bet(state: State) -> BetWorth | None:
    """A plain envido bet in trick play (not an envite con ley, whose answers are flores)."""
    if (
        state.phase is not Phase.PLAY
        or state.envido_status is not EnvidoStatus.BETTING
        or state.rules.hooks.envite_ley(state)
    ):
        return None
    hooks = state.rules.hooks
    wanted, refused = hooks.envido_accepted(state), hooks.envido_declined(state)
    return BetWorth("envido", tuple(c.value for c in state.envido_calls), wanted, refused)


def _flor_bet(state: State) -> BetWorth | None:
    """A contraflor waiting for its answer (Argentine and Uruguayan flor). Both answers are
    applied to a copy of the state: the points are the engine's own."""
    if (
        state.phase is not Phase.FLOR
        or state.rules.flor_style is not FlorStyle.ARGENTINE
        or state.flor_status is not FlorStatus.ANSWERING
    ):
        return None
    answerer = next((s for s in state.players if _may(state, s, Call.CON_FLOR_QUIERO)), None)
    if answerer is None:
        return None
    calls = (Call.CONTRAFLOR.value,) if state.flor_level == 1 else (Call.CONTRAFLOR_AL_RESTO.value,)
    refused = _flor_points(state, mk(answerer, Call.CON_FLOR_ME_ACHICO))
    if state.flor_level == 2 and state.rules.cfar_wins_chico:
        # The best flor wins the game: its points depend on who holds it (hidden).
        return BetWorth("flor", calls, None, refused, wins_game=True)
    # Wanted, the stake does not depend on who holds the best flor (hidden): the ledger's.
    return BetWorth("flor", calls, contraflor_stake(state), refused)


def _may(state: State, seat: int, call: Call) -> bool:
    return any(a.call is call for a in legal_actions(state, seat))


def _flor_points(state: State, answer: Action) -> int | None:
    try:
        after, _ = apply(state, answer)
    except IllegalAction:
        return None
    return None if after.flor_result is None else int(after.flor_result[1])


# ---------------------------------------------------------------- refusals


def card_refusals(state: State, seat: int | None, own: tuple[Card, ...],
                  legal: tuple[Action, ...]) -> tuple[tuple[Card, str], ...]:
    """Each of the viewer's cards that no legal action takes now, with the code of the
    engine's reason for refusing to play it (engine.core.game.refusal), so that a card key can
    say why at once."""
    if seat is None:
        return ()
    taken = {a.card for a in legal if a.card is not None}
    out: list[tuple[Card, str]] = []
    for card in own:
        if card not in taken:
            reason = refusal(state, mk(seat, Call.PLAY, card))
            out.append((card, getattr(reason, "code", "not_now")))
    return tuple(out)


# ---------------------------------------------------------------- scores


def malas_shown(rules: RuleSet) -> int:
    """The malas/buenas boundary players speak of, or 0 for plain points: malas and buenas
    are the two halves of the Argentine game to 30 (docs/RULES.md 1.11) and nothing else."""
    return rules.malas if rules.variant == "argentino" and rules.target == 2 * rules.malas == 30 else 0


def call_refusals(state: State, seat: int | None, legal: tuple[Action, ...]) -> tuple[tuple[str, str], ...]:
    """The calls a player reaches for most (the next truco step, each opening envido call,
    quiero / no quiero, the mazo) that are not legal now, each with the code of the engine's
    reason, so that their keys say why instead of doing nothing."""
    if seat is None or state.phase not in (Phase.PLAY, Phase.FLOR):
        return ()
    rules = state.rules
    ladder = rules.truco_ladder
    step = state.truco_pending or state.truco_level
    wanted = [ladder[min(step, len(ladder) - 1)].call]
    wanted += [s.call for s in rules.envido_ladder]
    wanted += [Call.QUIERO, Call.NO_QUIERO, Call.MAZO]
    legal_calls = {a.call for a in legal}
    out: list[tuple[str, str]] = []
    for call in wanted:
        if call in legal_calls:
            continue
        reason = refusal(state, mk(seat, call))
        out.append((call.value, getattr(reason, "code", "not_now")))
    return tuple(out)
