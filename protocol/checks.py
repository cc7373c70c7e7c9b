"""Plain msgpack data -> typed records, every value validated against its field's type
hint and limits (protocol/schema.py says what a record's fields are).

Each annotation is compiled once into a checker, a function (value, depth) -> value that
raises _Bad. A table update's view is hundreds of values on every update to every
session: walking the annotation for each of them (and formatting each one's path) was
most of the decoding time. Where a value is wrong its path is put together only then,
from the parts each container adds as _Bad passes through it.
"""
from __future__ import annotations

import dataclasses
import itertools
import math
import types
import typing
from collections.abc import Callable, Iterable
from functools import cache
from typing import Any, Protocol, Union

from protocol.errors import ProtocolError
from protocol.schema import MAX_DEPTH, TAG, Limits, made, made_directly, record_fields, tag_of

Checker = Callable[[Any, int], Any]
Accepts = Callable[[Any], bool]  # True: the value is valid as it is (scalars only)


class RecordChecker(Protocol):
    """A record's checker: also takes what its receiver decoded last (``Remembered``)."""

    def __call__(self, value: Any, depth: int, last: Remembered | None = None, /) -> Any: ...


class _Bad(Exception):
    """A value that does not fit: why, and where (inner parts first)."""

    def __init__(self, reason: str, *, missing: bool = False) -> None:
        super().__init__(reason)
        self.reason = reason
        self.missing = missing
        self.parts: list[str] = []

    def error(self, where: str, record: str) -> ProtocolError:
        path = (where + "".join(reversed(self.parts))).lstrip(".") or record
        if self.missing:
            return ProtocolError(f"missing field {path!r}")
        return ProtocolError(f"{path}: {self.reason}")


def from_plain(cls: type, data: Any, where: str = "", last: Remembered | None = None) -> Any:
    """Build record ``cls`` from decoded data, validating every field. ``last``: what the
    same receiver decoded before, to take unchanged fields from (``Remembered``)."""
    try:
        return _record(cls)(data, 0, last)
    except _Bad as bad:
        raise bad.error(where, cls.__name__) from None


class Remembered:
    """What one receiver last decoded in each field of the messages it is sent (and of the
    records directly in their fields): the data as it arrived and the value it was checked
    into. A table update follows every move, and most of its view (the ranking of the
    deck, the options, the truco ladder, the seats) is as it was in the one before:
    comparing what arrived with that (one comparison, in C) and taking the value checked
    then costs a fraction of checking it again. Scalars are checked as before (that is
    cheaper). Bounded: one entry per field, replaced as new data arrives. Equal data
    checks into an equal value, so what is decoded is the same; the one difference is
    that a container Python calls equal to the last one while holding another scalar type
    (``[True]`` for ``[1]``) is taken as the last one was instead of being refused."""

    def __init__(self) -> None:
        self.fields: dict[tuple[type, str], tuple[Any, Any]] = {}


@cache
def _record(cls: type) -> RecordChecker:
    specs = record_fields(cls)
    fields = {spec.name: _field(cls, spec.name, spec.hint, spec.limits) for spec in specs}
    required = tuple(spec.name for spec in specs if spec.required)
    # Every field at its default, in field order (a required one is there to be replaced):
    # the record starts from these and takes what the data holds. A sparse record (the
    # table view: some eighty fields, a third of them sent) then costs what was sent.
    defaults = {spec.name: spec.default for spec in specs}
    tag = tag_of(cls)
    # Checked fields go straight into a new record's __dict__ (a quarter of the time of a frozen
    # dataclass's __init__), unless it checks them, has __slots__ or leaves some to __init__.
    plain = made_directly(cls)

    def check(data: Any, depth: int, last: Remembered | None = None) -> Any:
        if not isinstance(data, dict):
            raise _Bad("expected a map")
        if tag is not None and data.get(TAG) != tag:
            raise _Bad(f"expected a record of type {tag!r}")
        for name in required:
            if name not in data:
                absent = _Bad("", missing=True)
                absent.parts.append("." + name)
                raise absent
        values = defaults.copy()
        kept = None if last is None else last.fields
        for name, value in data.items():
            field = fields.get(name)
            if field is None:
                continue  # not a field (the tag; a newer sender's field): ignored
            checker, accepts, key, inner = field
            if accepts is None or not accepts(value):
                if kept is not None and key is not None:
                    before = kept.get(key)
                    if before is not None and before[0] == value:
                        values[name] = before[1]
                        continue
                try:  # (a record's fields start a new depth count)
                    checked = checker(value, 0) if last is None or inner is None else inner(value, 0, last)
                except _Bad as bad:
                    bad.parts.append("." + name)
                    raise
                if kept is not None and key is not None:
                    kept[key] = (value, checked)
                value = checked
            values[name] = value
        if plain:
            return made(cls, values)
        try:
            return cls(**values)
        except (TypeError, ValueError) as exc:  # __post_init__ range checks
            raise _Bad(str(exc)) from None

    return check


def _field(cls: type, name: str, hint: Any,
           limits: Limits) -> tuple[Checker, Accepts | None, tuple[type, str] | None, RecordChecker | None]:
    """How ``_record`` checks one field: its checker and fast test (``_compiled``); the key it
    is remembered under (``Remembered``: None for a scalar, whose test is cheaper than a
    lookup, and for a record, whose own fields are remembered instead); and for a record, its
    checker (which takes the memory)."""
    checker, accepts = _compiled(hint, limits)
    inner = _record(hint) if isinstance(hint, type) and dataclasses.is_dataclass(hint) else None
    key = None if accepts is not None or inner is not None else (cls, name)
    return checker, accepts, key, inner


@cache
def _compiled(hint: Any, limits: Limits) -> tuple[Checker, Accepts | None]:
    """The checker of values of type ``hint`` under ``limits``, and for scalar types a fast
    test of values that are valid as they are (the checker then only says why not)."""
    if hint is Any:
        return _free, None
    origin = typing.get_origin(hint)
    if origin in (Union, types.UnionType):
        return _union(hint, limits)
    if hint is bool:
        return _scalar(lambda v: type(v) is bool, "expected a boolean")
    if hint is int:
        return _integer(limits)
    if hint is float:
        return _number(limits), None
    if hint is str:
        return _string(limits)
    if origin is tuple:
        args = typing.get_args(hint)
        if len(args) != 2 or args[1] is not Ellipsis:  # tuple[int, str]: a fixed record
            return _fixed([_compiled(a, limits) for a in args]), None
        # Elements inherit the string/int limits but not the item count.
        return _items(_compiled(args[0], limits), limits.max_items), None
    if origin is dict:
        return _mapping(hint, limits), None
    if isinstance(hint, type) and dataclasses.is_dataclass(hint):
        return _record(hint), None
    raise TypeError(f"unsupported annotation {hint!r}")  # a bug in messages.py


def _scalar(accepts: Accepts, reason: str) -> tuple[Checker, Accepts]:
    def check(value: Any, depth: int) -> Any:
        if not accepts(value):
            raise _Bad(reason)
        return value

    return check, accepts


def _integer(limits: Limits) -> tuple[Checker, Accepts]:
    lo, hi = limits.lo, limits.hi

    def check(value: Any, depth: int) -> Any:
        if type(value) is not int:
            raise _Bad("expected an integer")
        if not lo <= value <= hi:
            raise _Bad(f"{value} out of range {lo}..{hi}")
        return value

    return check, lambda v: type(v) is int and lo <= v <= hi


def _number(limits: Limits) -> Checker:
    def check(value: Any, depth: int) -> Any:
        if type(value) not in (int, float) or not math.isfinite(value):
            raise _Bad("expected a number")
        if not limits.lo <= value <= limits.hi:
            raise _Bad(f"{value} out of range {limits.lo}..{limits.hi}")
        return float(value)

    return check


def _string(limits: Limits) -> tuple[Checker, Accepts]:
    longest = limits.max_len

    def check(value: Any, depth: int) -> Any:
        if type(value) is not str:
            raise _Bad("expected a string")
        if len(value) > longest:
            raise _Bad(f"longer than {longest} characters")
        return value

    return check, lambda v: type(v) is str and len(v) <= longest


def _union(hint: Any, limits: Limits) -> tuple[Checker, Accepts | None]:
    options = typing.get_args(hint)
    nullable = type(None) in options
    tagged = {tag_of(o): o for o in options if isinstance(o, type) and dataclasses.is_dataclass(o)}
    if len(tagged) > 1 and None not in tagged and len(tagged) == len(options) - nullable:
        return _tagged(tagged, nullable), None
    compiled = [_compiled(o, limits) for o in options if o is not type(None)]
    tests = [accepts for _, accepts in compiled]
    accepts: Accepts | None = None
    if all(t is not None for t in tests):
        accepts = _any_of(options, [t for t in tests if t is not None], nullable)
        if len(compiled) > 1:  # scalars: each option tested, not tried (a raise per miss)
            return _scalar(accepts, "unexpected value")
    if len(compiled) == 1:
        only = compiled[0][0]

        def check_one(value: Any, depth: int) -> Any:
            return None if value is None and nullable else only(value, depth)

        return check_one, accepts

    def check(value: Any, depth: int) -> Any:
        if value is None and nullable:
            return None
        for checker, _ in compiled:
            try:
                return checker(value, depth)
            except _Bad:
                continue
        raise _Bad("unexpected value")

    return check, accepts


def _any_of(options: tuple[Any, ...], tests: list[Accepts], nullable: bool) -> Accepts:
    """A test of values that one of the scalar ``tests`` accepts (or None, if ``nullable``).
    Where each option is one scalar type (bool | int | str), the value's type picks the
    one test to run."""
    types_ = [o for o in options if o is not type(None)]
    if len(types_) != len(tests) or not all(o in (bool, int, str) for o in types_):
        return lambda v: (v is None and nullable) or any(t(v) for t in tests)
    by_type: dict[type, Accepts] = dict(zip(types_, tests))
    if nullable:
        by_type[type(None)] = lambda v: True
    return lambda v: (test := by_type.get(type(v))) is not None and test(v)


def _tagged(kinds: dict[str | None, Any], nullable: bool) -> Checker:
    """Records of several kinds, each picked by its ``type``: never a guess by shape."""
    checkers = {kind: _record(cls) for kind, cls in kinds.items()}

    def check(value: Any, depth: int) -> Any:
        if value is None and nullable:
            return None
        if not isinstance(value, dict):
            raise _Bad("expected a map")
        kind = value.get(TAG)
        checker = checkers.get(kind) if type(kind) is str else None
        if checker is None:
            raise _Bad(f"unknown type {kind!r:.40}")
        return checker(value, depth)

    return check


def _items(item: tuple[Checker, Accepts | None], max_items: int) -> Checker:
    checker, accepts = item
    whole = _FLAT.get(checker)

    def check(value: Any, depth: int) -> Any:
        if not isinstance(value, (list, tuple)):
            raise _Bad("expected a list")
        if len(value) > max_items:
            raise _Bad(f"more than {max_items} items")
        if accepts is not None and all(map(accepts, value)):
            return tuple(value)
        if whole is not None and all(map(whole, value)):
            return tuple(map(tuple, value))
        return _each(itertools.repeat(checker), value, depth)

    if accepts is not None:
        _FLAT[check] = lambda v: type(v) is list and len(v) <= max_items and all(map(accepts, v))
    return check


# Checkers of lists of scalars (a fixed pair: an option's name and value, a seat and its
# card; or any number: a group of cards) -> a test of a whole list as decoded, which then
# decodes as ``tuple(it)``: a list of them is checked without a call per list and item.
_FLAT: dict[Checker, Accepts] = {}


def _fixed(items: list[tuple[Checker, Accepts | None]]) -> Checker:
    checkers = [checker for checker, _ in items]
    tests = [accepts for _, accepts in items]
    scalars: list[Accepts] | None = None if None in tests else tests  # type: ignore[assignment]

    def check(value: Any, depth: int) -> Any:
        if not isinstance(value, (list, tuple)):
            raise _Bad("expected a list")
        if len(value) != len(checkers):
            raise _Bad(f"expected {len(checkers)} items")
        if scalars is not None and all([test(v) for test, v in zip(scalars, value)]):
            return tuple(value)  # (an option's name and value, a card and who played it)
        return _each(checkers, value, depth)

    if scalars is not None and len(scalars) == 2:
        first, second = scalars
        _FLAT[check] = lambda v: type(v) is list and len(v) == 2 and first(v[0]) and second(v[1])
    return check


def _each(checkers: Iterable[Checker], values: Iterable[Any], depth: int) -> tuple[Any, ...]:
    """Each value checked by its checker; a bad one named by its index (checked again)."""
    inner = depth + 1
    try:
        return tuple([checker(value, inner) for checker, value in zip(checkers, values)])
    except _Bad as first:
        for i, (checker, value) in enumerate(zip(checkers, values)):
            try:
                checker(value, inner)
            except _Bad as bad:
                bad.parts.append(f"[{i}]")
                raise
        raise first


def _mapping(hint: Any, limits: Limits) -> Checker:
    key_hint, value_hint = typing.get_args(hint)
    max_items = limits.max_items
    if key_hint is str and value_hint is Any:  # a free-form payload: the common case
        def check_free(value: Any, depth: int) -> Any:
            if not isinstance(value, dict):
                raise _Bad("expected a map")
            if len(value) > max_items:
                raise _Bad(f"more than {max_items} entries")
            for k in value:
                if type(k) is not str or len(k) > 64:
                    raise _Bad("map keys must be strings of up to 64 characters")
            return _free(value, depth)

        return check_free
    key_check, _ = _compiled(key_hint, Limits(max_len=64))
    value_check, _ = _compiled(value_hint, limits)

    def check(value: Any, depth: int) -> Any:
        if not isinstance(value, dict):
            raise _Bad("expected a map")
        if len(value) > max_items:
            raise _Bad(f"more than {max_items} entries")
        out = {}
        for k, v in value.items():
            try:
                key = key_check(k, depth + 1)
            except _Bad as bad:
                bad.parts.append(" key")
                raise
            try:
                out[key] = value_check(v, depth + 1)
            except _Bad as bad:
                bad.parts.append(f"[{k!r}]")
                raise
        return out

    return check


_SCALARS = frozenset((type(None), bool, int, str, float))


def _free(value: Any, depth: int) -> Any:
    """Free-form payloads (engine views and events): plain data, bounded depth. Checked in
    place: what msgpack decoded is already lists, maps and scalars, so nothing is copied."""
    if depth > MAX_DEPTH:
        raise _Bad("nested too deeply")
    kind = type(value)
    if kind in _SCALARS:
        return value
    if depth + 1 > MAX_DEPTH and value:  # its items would be nested too deeply
        raise _Bad("nested too deeply")
    if kind is list or kind is tuple:
        for v in value:
            if type(v) not in _SCALARS:
                _free(v, depth + 1)
        return value
    if kind is dict:
        for k, v in value.items():
            if type(k) is not str:
                raise _Bad("map keys must be strings")
            if type(v) not in _SCALARS:
                _free(v, depth + 1)
        return value
    raise _Bad("unsupported value type")
