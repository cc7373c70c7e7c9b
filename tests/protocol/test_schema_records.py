"""Records built by the decoder are the records their classes build, and a bad value inside
a list is named by its place, whatever the fast path each kind of record takes."""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

import pytest
from hypothesis import given
from hypothesis import strategies as st

from protocol.errors import ProtocolError
from protocol.checks import from_plain
from protocol.schema import limited, to_plain


@dataclass(frozen=True)
class Card:
    rank: int = limited(lo=1, hi=12)
    suit: str = limited(max_len=1)


@dataclass(frozen=True)
class Hand:
    owner: str
    cards: tuple[Card, ...]
    trick: tuple[int, str] = (0, "")
    note: str = ""


@dataclass(frozen=True)
class Checked:
    """Checks its own values: the decoder must go through its ``__init__``."""

    low: int
    high: int

    def __post_init__(self) -> None:
        if self.low > self.high:
            raise ValueError("low above high")


@dataclass(frozen=True)
class WithDerived:
    """A field the decoder does not fill: only ``__init__`` gives it its value."""

    name: str
    seen: list[str] = field(default_factory=list, init=False)


cards = st.builds(Card, rank=st.integers(1, 12), suit=st.sampled_from("EBOC"))
hands = st.builds(Hand, owner=st.text(max_size=8), cards=st.lists(cards, max_size=5).map(tuple),
                  trick=st.tuples(st.integers(0, 9), st.text(max_size=4)), note=st.text(max_size=8))


@given(hands)
def test_a_decoded_record_is_the_record_itself(hand: Hand) -> None:
    decoded = from_plain(Hand, to_plain(hand))
    assert decoded == hand
    assert hash(decoded) == hash(hand)
    assert repr(decoded) == repr(hand)
    assert dataclasses.asdict(decoded) == dataclasses.asdict(hand)
    with pytest.raises(dataclasses.FrozenInstanceError):
        decoded.owner = "someone else"  # type: ignore[misc]


def test_a_bad_card_in_a_list_is_named_by_its_place() -> None:
    plain = to_plain(Hand("ana", (Card(1, "E"), Card(7, "O"), Card(3, "B"))))
    plain["cards"][2]["rank"] = 40
    with pytest.raises(ProtocolError, match=r"^cards\[2\]\.rank: 40 out of range 1\.\.12$"):
        from_plain(Hand, plain)


def test_a_bad_item_of_a_fixed_pair_is_named_by_its_place() -> None:
    plain = to_plain(Hand("ana", (), trick=(1, "x")))
    plain["trick"] = [1, 2]
    with pytest.raises(ProtocolError, match=r"^trick\[1\]: expected a string$"):
        from_plain(Hand, plain)


def test_a_record_that_checks_itself_is_still_checked() -> None:
    assert from_plain(Checked, {"low": 1, "high": 2}) == Checked(1, 2)
    with pytest.raises(ProtocolError, match="low above high"):
        from_plain(Checked, {"low": 3, "high": 2})


def test_a_field_left_to_init_is_still_made() -> None:
    decoded = from_plain(WithDerived, {"name": "ana"})
    assert decoded == WithDerived("ana")
    assert decoded.seen == []


@dataclass(frozen=True)
class Plain:
    """Lists of scalars and pairs of scalars: the kinds the decoder checks a whole list at once."""

    options: tuple[tuple[str, bool | int | str], ...] = limited((), max_len=3, lo=0, hi=9, max_items=4)
    groups: tuple[tuple[str, ...], ...] = limited((), max_len=2, max_items=3)
    played: tuple[tuple[int, str], ...] = limited((), max_len=2, lo=0, hi=3, max_items=4)
    maybe: int | str | None = limited(None, max_len=2, lo=0, hi=9)


class _Invalid(Exception):
    pass


def _model(hint: object, value: object, limits: dict[str, int]) -> object:
    """What the decoder must make of ``value`` for ``hint``, told the obvious way."""
    import typing

    args = typing.get_args(hint)
    if hint is str:
        if type(value) is not str or len(value) > limits["max_len"]:
            raise _Invalid
        return value
    if hint is int:
        if type(value) is not int or not limits["lo"] <= value <= limits["hi"]:
            raise _Invalid
        return value
    if hint is bool:
        if type(value) is not bool:
            raise _Invalid
        return value
    if typing.get_origin(hint) is tuple:
        if type(value) is not list:
            raise _Invalid
        if args[-1] is Ellipsis:
            if len(value) > limits["max_items"]:
                raise _Invalid
            return tuple(_model(args[0], v, limits) for v in value)
        if len(value) != len(args):
            raise _Invalid
        return tuple(_model(a, v, limits) for a, v in zip(args, value))
    if value is None and type(None) in args:
        return None
    for option in args:
        try:
            return _model(option, value, limits)
        except _Invalid:
            continue
    raise _Invalid


# Mostly values that fit, some just outside the limits, some of the wrong shape.
scalars = st.one_of(st.none(), st.booleans(), st.integers(-1, 10), st.text("abc", max_size=4))
anything = st.recursive(scalars, lambda inner: st.lists(inner, max_size=5), max_leaves=12)
pairs = st.lists(st.one_of(st.tuples(scalars, scalars).map(list), anything), max_size=5)
groups = st.lists(st.one_of(st.lists(scalars, max_size=3), anything), max_size=4)
near = {"options": pairs, "groups": groups, "played": pairs, "maybe": scalars}


@given(st.fixed_dictionaries({}, optional={name: st.one_of(values, anything) for name, values in near.items()}))
def test_lists_of_scalars_decode_as_the_type_hints_say(data: dict[str, object]) -> None:
    """Whatever a client sends in such fields, the decoder makes of it what the type hints
    and limits say: the same tuples, or a refusal; never a list kept where a tuple belongs."""
    import typing

    hints = typing.get_type_hints(Plain)
    expected: dict[str, object] = {}
    try:
        for f in dataclasses.fields(Plain):
            limits = dataclasses.asdict(f.metadata["limits"])
            expected[f.name] = _model(hints[f.name], data[f.name], limits) if f.name in data else f.default
    except _Invalid:
        with pytest.raises(ProtocolError):
            from_plain(Plain, data)
        return
    decoded = from_plain(Plain, data)
    assert decoded == Plain(**expected)  # type: ignore[arg-type]
    assert hash(decoded) == hash(Plain(**expected))  # type: ignore[arg-type]


def test_a_bad_value_in_a_list_of_pairs_is_named_by_its_place() -> None:
    plain = {"options": [["a", True], ["b", 3], ["c", 10]]}
    with pytest.raises(ProtocolError, match=r"^options\[2\]\[1\]: unexpected value$"):
        from_plain(Plain, plain)
    with pytest.raises(ProtocolError, match=r"^groups\[1\]\[0\]: longer than 2 characters$"):
        from_plain(Plain, {"groups": [["ab"], ["abc"]]})
