"""The engine's per-seat View as the protocol's TableView: the one place they meet.

Every field of ``engine.View`` is either copied here (cards as their text, actions and the
guide's records as protocol records) or named in ``NOT_SENT`` with the reason;
tests/server/test_table_view.py fails when the engine gains a field that is neither.
"""
from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import TYPE_CHECKING, TypeVar, cast

import engine
import protocol as p
from protocol.schema import made, made_directly

if TYPE_CHECKING:  # annotations only: where the engine keeps its guide is its own business
    from engine.core.hand_guide import BetWorth, CardMark, TrucoWorth

# Engine View fields a viewer is not sent, and why.
NOT_SENT = {
    "viewer": "TableUpdate.seat already says whose view it is",
    "history": "the finished hands of the game grow with every hand and no client reads them: "
               "the log shows each hand from its events",
}

_A = TypeVar("_A")
_B = TypeVar("_B")
# Wire forms of values the engine builds once per rules and face-up card and shares between
# views (engine/core/hand_guide.py caches them): the ranking alone is the whole deck, which
# would otherwise be turned into text for every viewer on every update. Keyed by identity;
# the entry keeps the engine value alive so that its id is never reused.
_SHARED: dict[int, tuple[object, object]] = {}


def _shared(value: _A, convert: Callable[[_A], _B]) -> _B:
    hit = _SHARED.get(id(value))
    if hit is None or hit[0] is not value:
        hit = _SHARED[id(value)] = (value, convert(value))
    return cast(_B, hit[1])


def _cards(cards: tuple[engine.Card, ...]) -> tuple[str, ...]:
    return tuple(str(c) for c in cards)


def _played(trick: tuple[tuple[int, engine.Card], ...]) -> tuple[tuple[int, str], ...]:
    return tuple((seat, str(card)) for seat, card in trick)


def _ranking(ranking: tuple[tuple[engine.Card, ...], ...]) -> tuple[tuple[str, ...], ...]:
    return tuple(_cards(group) for group in ranking)


def _marks(marks: tuple[CardMark, ...]) -> tuple[p.CardMark, ...]:
    return tuple(p.CardMark(card=str(m.card), role=m.role, envido=m.envido) for m in marks)


def _steps(steps: tuple[TrucoWorth, ...]) -> tuple[p.TrucoStep, ...]:
    return tuple(p.TrucoStep(call=s.call, wanted=s.wanted, refused=s.refused, wins_game=s.wins_game)
                 for s in steps)


def _legal(action: engine.Action) -> p.LegalCall:
    return p.LegalCall(seat=action.seat, call=action.call.value,
                       card=None if action.card is None else str(action.card), amount=action.amount)


def _bet(bet: BetWorth) -> p.BetWorth:
    return p.BetWorth(kind=bet.kind, calls=bet.calls, wanted=bet.wanted, refused=bet.refused,
                      wins_game=bet.wins_game)


# The sent fields whose engine value is not plain data already: cards become their text,
# the engine's actions and guide records the protocol's records. Every other sent field is
# the engine's value as it is (numbers, strings, enum values, tuples of them).
_CONVERTED: dict[str, Callable[[engine.View], object]] = {
    "own_cards": lambda v: _cards(v.own_cards),
    "tricks": lambda v: tuple(_played(trick) for trick in v.tricks),
    "current_trick": lambda v: _played(v.current_trick),
    "face_up": lambda v: None if v.face_up is None else str(v.face_up),
    "legal": lambda v: tuple(_legal(a) for a in v.legal),
    "special_cards": lambda v: _cards(v.special_cards),
    "card_marks": lambda v: _shared(v.card_marks, _marks),
    "ranking": lambda v: _shared(v.ranking, _ranking),
    "own_envido_cards": lambda v: _cards(v.own_envido_cards),
    "bets": lambda v: tuple(_bet(b) for b in v.bets),
    "truco_steps": lambda v: _shared(v.truco_steps, _steps),
    "card_refusals": lambda v: tuple((str(card), reason) for card, reason in v.card_refusals),
}
_AS_IS = tuple(f.name for f in dataclasses.fields(p.TableView) if f.name not in _CONVERTED)


# Built without TableView's __init__ (protocol.schema.made: 40% of this function's time, for
# every viewer of every move): every field is set here (_AS_IS and _CONVERTED), of its type.
if not made_directly(p.TableView) or not set(_CONVERTED) <= {f.name for f in dataclasses.fields(p.TableView)}:
    raise TypeError("TableView can no longer be built without its __init__")


def table_view(view: engine.View) -> p.TableView:
    """What ``view``'s viewer is sent."""
    values = {name: getattr(view, name) for name in _AS_IS}
    for name, convert in _CONVERTED.items():
        values[name] = convert(view)
    return made(p.TableView, values)
