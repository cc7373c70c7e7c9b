"""Typed records -> plain msgpack data, and what a record's fields are (for both ways).

Every message is a frozen dataclass. Its field annotations say what a decoded
value must be; ``limited`` metadata bounds strings, integers and collections.
Decoding (protocol/checks.py) checks everything and raises ``ProtocolError`` with
a short reason; it never lets a KeyError or TypeError escape.
"""
from __future__ import annotations

import dataclasses
import typing
from dataclasses import dataclass, field
from functools import cache
from typing import Any, TypeVar

R = TypeVar("R")
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
def record_fields(cls: type) -> tuple[_FieldSpec, ...]:
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
    return any(spec.sparse for spec in record_fields(cls))


TAG = "type"  # the key that names a tagged record's kind on the wire


@cache
def tag_of(cls: type) -> str | None:
    """A tagged record's kind (its ``KIND`` class attribute), or None for a plain record.
    Tagged records travel as ``{"type": KIND, ...fields}``, so a list may mix several kinds
    (the log's events) and each decodes as its own record."""
    kind = getattr(cls, "KIND", None)
    return kind if isinstance(kind, str) and kind else None


@cache
def made_directly(cls: type) -> bool:
    """Whether ``made`` may build ``cls``: its __init__ would only set the fields (no
    __post_init__ checks, no __slots__, every field an __init__ argument)."""
    return (dataclasses.is_dataclass(cls) and not hasattr(cls, "__post_init__")
            and "__slots__" not in cls.__dict__ and all(f.init for f in dataclasses.fields(cls)))


def made(cls: type[R], values: dict[str, Any]) -> R:
    """The record ``cls(**values)``, its __dict__ being ``values`` (taken, not copied):
    every field there and already of its type (checked, or the server's own data). A frozen
    dataclass's __init__ sets each field through ``object.__setattr__``; the table view has
    seventy, and was built for every viewer of every move. Only for ``made_directly`` types."""
    record: R = object.__new__(cls)
    object.__setattr__(record, "__dict__", values)
    return record


# -- to plain data ---------------------------------------------------------

def to_plain(value: Any) -> Any:
    """A record (or a value inside one) as msgpack-ready data."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        # A table update's view is hundreds of plain values: walking it only to copy it
        # was a measurable part of the server's CPU per action.
        cls = type(value)
        tag = tag_of(cls)
        if tag is not None:
            return {TAG: tag, **{spec.name: to_plain(getattr(value, spec.name)) for spec in record_fields(cls)}}
        if _has_sparse(cls):
            return {spec.name: to_plain(item) if spec.holds_records else item
                    for spec in record_fields(cls)
                    for item in (getattr(value, spec.name),)
                    if not (spec.sparse and item == spec.default)}
        return {spec.name: to_plain(getattr(value, spec.name)) if spec.holds_records
                else getattr(value, spec.name) for spec in record_fields(cls)}
    if isinstance(value, (tuple, list)):
        return [to_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: to_plain(v) for k, v in value.items()}
    return value
