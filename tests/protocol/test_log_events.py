"""The log's records on the wire: each picked by its ``type``, every field bounded; a
hostile or broken event is a ProtocolError for the whole frame, never a crash later."""
from __future__ import annotations

from typing import Any

import msgpack  # type: ignore[import-untyped]
import pytest

import protocol as p
from protocol.codec import PROTOCOL_VERSION

ACTED = {"type": "acted", "seat": 1, "call": "truco", "card": None, "value": None}
DEALT = {"type": "hand_dealt", "deal_no": 3, "dealer": 0, "deal_kind": "normal",
         "hands": [["1e", "7o", "3c"], None], "face_up": None}


def frame(*events: Any) -> bytes:
    body = {"v": PROTOCOL_VERSION, "t": "table_update", "table_id": "t", "seq": 1, "seat": 0, "seats": [],
            "view": {}, "events": list(events)}
    return bytes(msgpack.packb(body, use_bin_type=True))


def test_each_event_decodes_as_the_record_its_type_names() -> None:
    update = p.decode(frame(ACTED, DEALT))
    assert isinstance(update, p.TableUpdate)
    assert update.events == (p.Acted(seat=1, call="truco"),
                             p.HandDealt(deal_no=3, dealer=0, deal_kind="normal",
                                         hands=(("1e", "7o", "3c"), None), face_up=None))


def test_an_event_the_server_left_a_default_out_of_takes_it() -> None:
    update = p.decode(frame({"type": "acted", "seat": 0, "call": "play", "card": "1e"}))
    assert isinstance(update, p.TableUpdate) and update.events == (p.Acted(seat=0, call="play", card="1e"),)


@pytest.mark.parametrize(("event", "why"), [
    ({**ACTED, "type": "oops"}, "unknown type"),
    ({k: v for k, v in ACTED.items() if k != "type"}, "unknown type"),
    ({**ACTED, "type": 7}, "unknown type"),
    ({k: v for k, v in ACTED.items() if k != "seat"}, "missing field 'events[1].seat'"),
    ({**ACTED, "seat": 8}, "out of range"),
    ({**ACTED, "seat": True}, "expected an integer"),
    ({**ACTED, "call": "x" * 33}, "longer than 32"),
    ({**ACTED, "card": "10000"}, "longer than 4"),
    ({**ACTED, "value": -1}, "out of range"),
    ({**DEALT, "hands": [["1e"]] * 9}, "more than 8 items"),
    ({**DEALT, "hands": [["1e"] * 9]}, "more than 8 items"),
    ({**DEALT, "hands": [[{"x": 1}]]}, "expected a string"),
    ({"type": "points_scored", "team": 0, "points": 10_001, "reason": "truco", "scores": [1, 0]}, "out of range"),
    ({"type": "match_started", "variant": "argentino", "options": {"k" * 65: 1}, "n_players": 2,
      "first_dealer": 0}, "key"),
    ({"type": "match_started", "variant": "argentino", "options": {"target": [1]}, "n_players": 2,
      "first_dealer": 0}, "unexpected value"),
    ("acted", "expected a map"),
])
def test_a_bad_event_refuses_the_frame(event: Any, why: str) -> None:
    with pytest.raises(p.ProtocolError, match="events") as refused:
        p.decode(frame(ACTED, event))
    assert why in str(refused.value)


def test_too_many_events_refuse_the_frame() -> None:
    with pytest.raises(p.ProtocolError, match="more than 64 items"):
        p.decode(frame(*[ACTED] * 65))
