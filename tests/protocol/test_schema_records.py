"""Records built by the decoder are the records their classes build, and a bad value inside
a list is named by its place, whatever the fast path each kind of record takes."""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

import pytest
from hypothesis import given
from hypothesis import strategies as st

from protocol.errors import ProtocolError
from protocol.schema import from_plain, limited, to_plain


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
