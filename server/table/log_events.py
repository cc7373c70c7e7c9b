"""The engine's events as the protocol's log records (protocol/log_events.py).

One generic step, driven by the field lists: each engine event becomes the record of the
same kind with the same fields, cards as their text and enums as their values. The two
lists are kept in step by tests/server/test_log_events.py (same kinds, same field names,
and the record's wire form equal to the engine's own ``to_wire``).
"""
from __future__ import annotations

import dataclasses
import typing
from enum import Enum
from functools import cache
from typing import Any

import engine
import protocol as p


def _plain(value: Any) -> Any:
    """A field's value as the protocol holds it: cards as text, enums as their values."""
    if isinstance(value, engine.Card):
        return str(value)
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, tuple):
        return tuple(_plain(v) for v in value)
    return value


@cache
def _shape(kind: str) -> tuple[type[p.LogEvent], tuple[tuple[str, bool], ...]]:
    """The record class of an event kind, and its fields with whether each is a map (the
    match's options, a tuple of pairs in the engine, travel as a map)."""
    cls = p.LOG_EVENT_TYPES[kind]
    hints = typing.get_type_hints(cls)
    return cls, tuple((f.name, typing.get_origin(hints[f.name]) is dict) for f in dataclasses.fields(cls))


def log_event(event: engine.Event) -> p.LogEvent:
    """The protocol record of one (already projected) engine event."""
    cls, fields = _shape(event.kind)
    values: dict[str, Any] = {name: dict(_plain(getattr(event, name))) if is_map else _plain(getattr(event, name))
              for name, is_map in fields}
    return cls(**values)


def log_events(events: list[engine.Event], seat: int | None) -> list[p.LogEvent]:
    """The events ``seat`` (None: a spectator) may see, as records, in order."""
    out = []
    for event in events:
        visible = engine.project_event(event, seat)
        if visible is not None:
            out.append(log_event(visible))
    return out
