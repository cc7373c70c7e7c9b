"""Public test helpers: a hand with given cards and scores, scripted steps, the points they
scored and the reason a step is refused (seats in playing order; seat n-1 deals by default).

For the engine's tests and for anyone testing on top of the engine (the TUI's scripted
deals): they build states the way the engine does, so no test needs its internals.

docs/RULES.md section 5 uses compass seats with East as mano: with four players E=0, N=1, W=2,
S=3 (S deals), teams E-W = 0 and N-S = 1.
"""

from __future__ import annotations

from engine.core.actions import Action, Deal
from engine.core.calls import Call
from engine.core.cards import Card, parse_cards
from engine.core.errors import IllegalAction
from engine.core.events import Event, PointsScored
from engine.core.game import apply
from engine.core.hand import initial_state, solo_mano
from engine.core.state import State, freeze, thaw
from engine.variants.registry import get_ruleset
from engine.variants.uruguayo import is_pieza

E, N, W, S = 0, 1, 2, 3


def scenario(
    hands: dict[int, str],
    n: int = 4,
    dealer: int | None = None,
    scores: tuple[int, ...] = (0, 0),
    variant: str = "argentino",
    face_up: str | None = None,
    **options: bool | int | str,
) -> tuple[State, list[Event]]:
    """A state right after a deal of the given hands; other seats get flor-free filler
    (three suits, no pieza), and a muestra variant gets `face_up` (or a spare card).
    `scores` are the scores before the deal (one per score holder)."""
    rules = get_ruleset(variant, **options)
    deck = rules.card_notation
    state = initial_state(rules, n, n - 1 if dealer is None else dealer)
    if len(scores) == len(state.scores):
        w = thaw(state)
        w.scores = scores
        state = freeze(w)
    given = {seat: parse_cards(text, deck=deck) for seat, text in hands.items()}
    up = parse_cards(face_up, deck=deck)[0] if face_up else None
    used = {c for cards in given.values() for c in cards} | ({up} if up else set())
    spare = [c for c in rules.deck if c not in used]
    if rules.has_face_up and up is None:
        up = spare.pop()
    sizes = [rules.cards_per_hand] * n
    if solo_mano(rules, n):
        sizes[(state.dealer + 1) % n] += 1
    full: list[tuple[Card, ...]] = []
    for seat in range(n):
        if seat in given:
            full.append(given[seat])
            continue
        # Cards of different suits and no pieza: never a flor.
        picked: list[Card] = []
        for card in spare:
            if rules.variant == "uruguayo" and up is not None and is_pieza(card, up):
                continue
            if all(card.suit is not p.suit for p in picked) or len(picked) >= 3:
                picked.append(card)
            if len(picked) == sizes[seat]:
                break
        for card in picked:
            spare.remove(card)
        full.append(tuple(picked))
    return apply(state, Deal(tuple(full), up))


def act(state: State, *steps: tuple[int, str] | tuple[int, str, str | int]) -> tuple[State, list[Event]]:
    """Apply steps like (N, "truco"), (E, "play", "1e") or (E, "piedras", 3); returns the
    state and all events."""
    events: list[Event] = []
    for step in steps:
        seat, call = step[0], Call(step[1])
        card: Card | None = None
        amount: int | None = None
        if len(step) > 2:
            extra = step[2]  # a 3-tuple step
            if isinstance(extra, int):
                amount = extra  # ("piedras", 3), ("envido_puntos", 15)
            else:
                card = parse_cards(extra, deck=state.rules.card_notation)[0]
        state, more = apply(state, Action(seat, call, card, amount))
        events.extend(more)
    return state, events


def points(events: list[Event]) -> list[tuple[int, int, str]]:
    """(team, points, reason) of each PointsScored event."""
    return [(e.team, e.points, e.reason) for e in events if isinstance(e, PointsScored)]


def illegal(state: State, *step: int | str) -> str:
    """The reason the step is rejected (fails the test if it is accepted)."""
    try:
        act(state, step)  # type: ignore[arg-type]  # a step as written in a test
    except IllegalAction as exc:
        return exc.reason
    raise AssertionError(f"{step} was accepted")
