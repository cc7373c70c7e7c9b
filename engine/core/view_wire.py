"""A seat's `View` back from its wire form (`View.to_wire()`, as a table update carries it).

A program at a table (a remote bot: server/cli/remote_bot.py) gets only the wire form; with this
it can use everything the engine offers for a view (the bot, the hand guide's fields) without
a second copy of the view's shape. The decoding follows the View's type hints, so a field
added to the View is read back without a change here; anything malformed raises ValueError.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from functools import cache
from typing import Union

from engine.core.actions import Action, action_from_wire
from engine.core.cards import Card, card_from_wire
from engine.core.views import View

_MAX_DEPTH = 8


@cache
def _hints(cls: type) -> tuple[tuple[str, object], ...]:
    found = typing.get_type_hints(cls)
    return tuple((f.name, found[f.name]) for f in dataclasses.fields(cls))


def view_from_wire(data: object) -> View:
    """The View of ``data`` (a ``View.to_wire()`` after any msgpack round trip)."""
    if not isinstance(data, dict):
        raise ValueError("a view must be a map")
    notation = data.get("card_notation")
    deck = notation if isinstance(notation, str) else None
    view = _record(View, data, deck, "view", 0)
    assert isinstance(view, View)
    return view


def _record(cls: type, data: object, deck: str | None, path: str, depth: int) -> object:
    if not isinstance(data, dict):
        raise ValueError(f"{path}: expected a map")
    values: dict[str, object] = {}
    for name, hint in _hints(cls):
        if name not in data:
            field = next(f for f in dataclasses.fields(cls) if f.name == name)
            if field.default is dataclasses.MISSING:
                raise ValueError(f"{path}: missing {name!r}")
            continue
        values[name] = _value(hint, data[name], deck, f"{path}.{name}", depth + 1)
    return cls(**values)


def _value(hint: object, value: object, deck: str | None, path: str, depth: int) -> object:
    if depth > _MAX_DEPTH:
        raise ValueError(f"{path}: nested too deeply")
    origin = typing.get_origin(hint)
    if origin in (Union, types.UnionType):
        options = typing.get_args(hint)
        if value is None and type(None) in options:
            return None
        for option in options:
            if option is type(None):
                continue
            try:
                return _value(option, value, deck, path, depth)
            except ValueError:
                continue
        raise ValueError(f"{path}: unexpected value")
    if hint is Card or hint is Action:
        try:
            return card_from_wire(value, deck) if hint is Card else action_from_wire(value, deck)
        except ValueError as exc:
            raise ValueError(f"{path}: {exc}") from None
    if hint is bool or hint is int or hint is str:
        if type(value) is not hint:
            raise ValueError(f"{path}: expected {getattr(hint, '__name__', hint)}")
        return value
    if origin is tuple:
        if not isinstance(value, (list, tuple)):
            raise ValueError(f"{path}: expected a list")
        args = typing.get_args(hint)
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(_value(args[0], v, deck, f"{path}[{i}]", depth + 1) for i, v in enumerate(value))
        if len(args) != len(value):
            raise ValueError(f"{path}: expected {len(args)} items")
        return tuple(_value(a, v, deck, f"{path}[{i}]", depth + 1) for i, (a, v) in enumerate(zip(args, value)))
    if isinstance(hint, type) and dataclasses.is_dataclass(hint):
        return _record(hint, value, deck, path, depth)
    raise ValueError(f"{path}: cannot read a {hint!r}")
