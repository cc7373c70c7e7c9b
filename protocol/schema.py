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
from typing import Any, Callable, TypeVar

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
    kind = type(value)
    plain = _PLAIN.get(kind)
    if plain is not None:
        return plain(value)
    if kind is tuple or kind is list:
        return [to_plain(v) for v in value]
    if kind in _AS_IS:
        return value
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        plain = _PLAIN[kind] = _plain_of(kind)
        return plain(value)
    if isinstance(value, (tuple, list)):
        return [to_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: to_plain(v) for k, v in value.items()}
    return value


_AS_IS = frozenset((str, int, float, bool, type(None), bytes))
# Record type -> its function to plain data, made once per type (``_plain_of``): a table
# update is encoded for every viewer of every move, and working out again for each record
# which of its fields may hold records, are sparse, or what their defaults are, was most
# of encoding it.
_PLAIN: dict[type, Callable[[Any], dict[str, Any]]] = {}


def _plain_of(cls: type) -> Callable[[Any], dict[str, Any]]:
    """The function from a ``cls`` record to plain data. A tagged record converts every field
    (tuples become lists) and carries its tag; a record with sparse fields leaves out those
    at their default and converts only the fields that may hold records; any other record
    converts only those too."""
    specs = record_fields(cls)
    tag = tag_of(cls)
    if tag is not None:
        named = tuple((spec.name, spec.sparse, spec.default) for spec in specs)

        def tagged(value: Any) -> dict[str, Any]:
            out: dict[str, Any] = {TAG: tag}
            for name, leave_out, default in named:
                item = getattr(value, name)
                if not (leave_out and item == default):
                    out[name] = to_plain(item)
            return out

        return tagged
    fields = tuple((spec.name, spec.holds_records, spec.sparse, spec.default) for spec in specs)
    if _has_sparse(cls):
        def sparse(value: Any) -> dict[str, Any]:
            out: dict[str, Any] = {}
            for name, records, leave_out, default in fields:
                item = getattr(value, name)
                if leave_out and item == default:
                    continue
                out[name] = to_plain(item) if records else item
            return out

        return sparse

    def whole(value: Any) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for name, records, _, _ in fields:
            item = getattr(value, name)
            out[name] = to_plain(item) if records else item
        return out

    return whole
