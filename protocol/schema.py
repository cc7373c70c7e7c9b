"""Typed records <-> plain msgpack data, with validation driven by type hints.

Every message is a frozen dataclass. Its field annotations say what a decoded
value must be; ``field_limits`` metadata bounds strings, integers and
collections. Decoding checks everything and raises ``ProtocolError`` with a
short reason; it never lets a KeyError or TypeError escape.
"""
from __future__ import annotations

import dataclasses
import math
import types
import typing
from dataclasses import dataclass, field
from functools import cache
from typing import Any, Union

from protocol.errors import ProtocolError

MAX_DEPTH = 12  # nesting allowed inside free-form (Any) payloads
DEFAULT_MAX_STR = 256
DEFAULT_MAX_ITEMS = 256
INT_MIN, INT_MAX = -(2**53), 2**53


@dataclass(frozen=True)
class Limits:
    max_len: int = DEFAULT_MAX_STR  # characters for str
    max_items: int = DEFAULT_MAX_ITEMS  # elements for tuples and dicts
    lo: int = INT_MIN
    hi: int = INT_MAX


def limited(default: Any = dataclasses.MISSING, *, sparse: bool = False, **limits: int) -> Any:
    """A dataclass field with validation limits (and an optional default).

    ``sparse``: the field is left out of the encoded record while it holds its default (the
    decoder fills the default back in). For records sent often whose fields are mostly
    empty, such as the table view: the bytes go to what is there.
    """
    meta = {"limits": Limits(**limits), "sparse": sparse}
    if default is dataclasses.MISSING:
        if sparse:
            raise TypeError("a sparse field needs a default")
        return field(metadata=meta)
    if isinstance(default, (dict, list)):
        raise TypeError("mutable default")
    return field(default=default, metadata=meta)


@dataclass(frozen=True)
class _FieldSpec:
    name: str
    hint: Any
    limits: Limits
    required: bool
    default: Any
    holds_records: bool  # a record may be inside: encoding must convert it
    sparse: bool  # left out of the encoded record while it holds its default


@cache
def _may_hold_records(hint: Any) -> bool:
    """Whether a value of this type can contain a record (a dataclass). Everything else,
    free-form payloads included, is already plain data that msgpack packs as it is."""
    if hint is Any:
        return False
    if isinstance(hint, type) and dataclasses.is_dataclass(hint):
        return True
    return any(_may_hold_records(arg) for arg in typing.get_args(hint))


@cache
def _fields(cls: type) -> tuple[_FieldSpec, ...]:
    hints = typing.get_type_hints(cls)
    specs = []
    for f in dataclasses.fields(cls):
        if not f.init:
            continue
        required = f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING
        default = f.default if f.default is not dataclasses.MISSING else None
        if f.default_factory is not dataclasses.MISSING:
            default = f.default_factory()
        specs.append(
            _FieldSpec(f.name, hints[f.name], f.metadata.get("limits", Limits()), required, default,
                       _may_hold_records(hints[f.name]), f.metadata.get("sparse", False))
        )
    return tuple(specs)


@cache
def _has_sparse(cls: type) -> bool:
    return any(spec.sparse for spec in _fields(cls))


# -- to plain data ---------------------------------------------------------

def to_plain(value: Any) -> Any:
    """A record (or a value inside one) as msgpack-ready data."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        # A table update's view is hundreds of plain values: walking it only to copy it
        # was a measurable part of the server's CPU per action.
        cls = type(value)
        if _has_sparse(cls):
            return {spec.name: to_plain(item) if spec.holds_records else item
                    for spec in _fields(cls)
                    for item in (getattr(value, spec.name),)
                    if not (spec.sparse and item == spec.default)}
        return {spec.name: to_plain(getattr(value, spec.name)) if spec.holds_records
                else getattr(value, spec.name) for spec in _fields(cls)}
    if isinstance(value, (tuple, list)):
        return [to_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: to_plain(v) for k, v in value.items()}
    return value


# -- from plain data, validated --------------------------------------------

def from_plain(cls: type, data: Any, where: str = "") -> Any:
    """Build record ``cls`` from decoded data, validating every field."""
    if not isinstance(data, dict):
        raise ProtocolError(f"{where or cls.__name__}: expected a map")
    values = {}
    for spec in _fields(cls):
        path = f"{where}.{spec.name}" if where else spec.name
        if spec.name in data:
            values[spec.name] = _check(spec.hint, data[spec.name], spec.limits, path, 0)
        elif spec.required:
            raise ProtocolError(f"missing field {path!r}")
        else:
            values[spec.name] = spec.default
    try:
        return cls(**values)
    except (TypeError, ValueError) as exc:  # __post_init__ range checks
        raise ProtocolError(f"{where or cls.__name__}: {exc}") from None


def _check(hint: Any, value: Any, limits: Limits, path: str, depth: int) -> Any:
    if depth > MAX_DEPTH:
        raise ProtocolError(f"{path}: nested too deeply")
    origin = typing.get_origin(hint)
    if hint is Any:
        return _check_free(value, path, depth)
    if origin in (Union, types.UnionType):
        options = typing.get_args(hint)
        if value is None and type(None) in options:
            return None
        errors = []
        for option in options:
            if option is type(None):
                continue
            try:
                return _check(option, value, limits, path, depth)
            except ProtocolError as exc:
                errors.append(str(exc))
        raise ProtocolError(errors[0] if len(errors) == 1 else f"{path}: unexpected value")
    if hint is bool:
        if type(value) is not bool:
            raise ProtocolError(f"{path}: expected a boolean")
        return value
    if hint is int:
        if type(value) is not int:
            raise ProtocolError(f"{path}: expected an integer")
        if not limits.lo <= value <= limits.hi:
            raise ProtocolError(f"{path}: {value} out of range {limits.lo}..{limits.hi}")
        return value
    if hint is float:
        if type(value) not in (int, float) or not math.isfinite(value):
            raise ProtocolError(f"{path}: expected a number")
        if not limits.lo <= value <= limits.hi:
            raise ProtocolError(f"{path}: {value} out of range {limits.lo}..{limits.hi}")
        return float(value)
    if hint is str:
        if type(value) is not str:
            raise ProtocolError(f"{path}: expected a string")
        if len(value) > limits.max_len:
            raise ProtocolError(f"{path}: longer than {limits.max_len} characters")
        return value
    if origin is tuple:
        args = typing.get_args(hint)
        if not isinstance(value, (list, tuple)):
            raise ProtocolError(f"{path}: expected a list")
        if len(args) != 2 or args[1] is not Ellipsis:  # tuple[int, str]: a fixed record
            if len(value) != len(args):
                raise ProtocolError(f"{path}: expected {len(args)} items")
            return tuple(
                _check(item_hint, v, limits, f"{path}[{i}]", depth + 1)
                for i, (item_hint, v) in enumerate(zip(args, value))
            )
        item_hint = args[0]
        if len(value) > limits.max_items:
            raise ProtocolError(f"{path}: more than {limits.max_items} items")
        # Elements inherit the string/int limits but not the item count.
        return tuple(
            _check(item_hint, v, limits, f"{path}[{i}]", depth + 1) for i, v in enumerate(value)
        )
    if origin is dict:
        key_hint, value_hint = typing.get_args(hint)
        if not isinstance(value, dict):
            raise ProtocolError(f"{path}: expected a map")
        if len(value) > limits.max_items:
            raise ProtocolError(f"{path}: more than {limits.max_items} entries")
        if key_hint is str and value_hint is Any:  # a free-form payload: the common case
            for k in value:
                if type(k) is not str or len(k) > 64:
                    raise ProtocolError(f"{path}: map keys must be strings of up to 64 characters")
            return _check_free(value, path, depth)
        key_limits = Limits(max_len=64)
        return {
            _check(key_hint, k, key_limits, f"{path} key", depth + 1): _check(
                value_hint, v, limits, f"{path}[{k!r}]", depth + 1
            )
            for k, v in value.items()
        }
    if isinstance(hint, type) and dataclasses.is_dataclass(hint):
        return from_plain(hint, value, path)
    raise TypeError(f"unsupported annotation {hint!r} at {path}")  # a bug in messages.py


_SCALARS = frozenset((type(None), bool, int, str, float))


def _check_free(value: Any, path: str, depth: int) -> Any:
    """Free-form payloads (engine views and events): plain data, bounded depth. Checked in
    place: what msgpack decoded is already lists, maps and scalars, so nothing is copied."""
    if depth > MAX_DEPTH:
        raise ProtocolError(f"{path}: nested too deeply")
    kind = type(value)
    if kind in _SCALARS:
        return value
    if depth + 1 > MAX_DEPTH and value:  # its items would be nested too deeply
        raise ProtocolError(f"{path}: nested too deeply")
    if kind is list or kind is tuple:
        for v in value:
            if type(v) not in _SCALARS:
                _check_free(v, path, depth + 1)
        return value
    if kind is dict:
        for k, v in value.items():
            if type(k) is not str:
                raise ProtocolError(f"{path}: map keys must be strings")
            if type(v) not in _SCALARS:
                _check_free(v, path, depth + 1)
        return value
    raise ProtocolError(f"{path}: unsupported value type")
