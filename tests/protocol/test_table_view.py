"""The table view inside a TableUpdate: typed, bounded, and rejected with a reason when hostile."""
from __future__ import annotations

import msgpack
import pytest

import protocol as p
from protocol.codec import PROTOCOL_VERSION
from protocol.schema import limited, to_plain

VIEW = p.TableView(
    variant="argentino", n_players=2, teams=(0, 1), phase="play", own_cards=("1e", "7o", "3c"),
    tricks=(((0, "4c"), (1, "5c")),), current_trick=((1, "6b"),), trick_results=(1,), turn=0,
    legal=(p.LegalCall(seat=0, call="play", card="1e"), p.LegalCall(seat=0, call="truco")),
)


def _frame_with(**view: object) -> bytes:
    """A table_update frame whose view is ``VIEW`` with some fields replaced by raw data."""
    body = to_plain(p.TableUpdate(table_id="t1", seq=1, seat=0, seats=(), view=VIEW))
    body["view"].update(view)
    return msgpack.packb({**body, "v": PROTOCOL_VERSION, "t": "table_update"}, use_bin_type=True)


def test_a_view_crosses_the_wire_unchanged_and_its_defaults_cost_nothing() -> None:
    update = p.TableUpdate(table_id="t1", seq=1, seat=0, seats=(), view=VIEW)
    assert p.decode(p.encode(update)) == update
    assert to_plain(p.TableView()) == {}  # every field at its default is left out
    plain = to_plain(VIEW)
    assert "face_up" not in plain and "match_over" not in plain
    assert plain["legal"] == [{"seat": 0, "call": "play", "card": "1e"}, {"seat": 0, "call": "truco"}]
    # A played card is a (seat, card) pair on the wire: no field names
    assert msgpack.unpackb(msgpack.packb(plain))["tricks"] == [[[0, "4c"], [1, "5c"]]]


@pytest.mark.parametrize(("field", "value", "says"), [
    ("turn", 9, "view.turn: 9 out of range"),
    ("turn", "0", "view.turn"),
    ("own_cards", ["1e", 7], "view.own_cards[1]: expected a string"),
    ("own_cards", ["1e" * 40], "longer than"),
    ("own_cards", ["1e"] * 40, "more than"),
    ("tricks", [[[0, "4c", 9]]], "view.tricks[0][0]: expected 2 items"),
    ("tricks", [[["0", "4c"]]], "view.tricks[0][0][0]: expected an integer"),
    ("current_trick", [[0]], "expected 2 items"),
    ("legal", [{"seat": 0}], "missing field 'view.legal[0].call'"),
    ("legal", [{"seat": 0, "call": "play", "card": "1e", "amount": 500}], "out of range"),
    ("card_marks", [{"card": "2c", "role": "pieza", "envido": "x"}], "view.card_marks[0].envido"),
    ("options", [["flor", [1]]], "view.options[0][1]"),
    ("envido_result", [0, 2, 3], "expected 2 items"),
    ("match_over", 1, "expected a boolean"),
    ("legal", {"seat": 0}, "expected a list"),
])
def test_hostile_views_are_refused_with_the_field_named(field: str, value: object, says: str) -> None:
    with pytest.raises(p.ProtocolError, match=says.replace("[", r"\[").replace("]", r"\]").replace(".", r"\.")):
        p.decode(_frame_with(**{field: value}))


def test_a_view_missing_fields_is_the_empty_table_for_them() -> None:
    update = p.decode(_frame_with())
    assert isinstance(update, p.TableUpdate)
    assert update.view.face_up is None and update.view.truco_value == 1 and not update.view.match_over


def test_unknown_view_fields_are_ignored_as_in_every_record() -> None:
    update = p.decode(_frame_with(some_future_field=[1, 2]))
    assert isinstance(update, p.TableUpdate) and update.view == VIEW


def test_a_sparse_field_needs_a_default() -> None:
    with pytest.raises(TypeError):
        limited(sparse=True, max_len=3)
