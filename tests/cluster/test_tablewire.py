"""A table's messages and seats in their bus form: each comes back as it went (the players'
entropy for the next match's deals too, issue 34)."""
from __future__ import annotations

import protocol as p
from protocol.bus import TableCall, decode_bus
from server.cluster.tablewire import from_call, occupant, seat_record, to_call
from server.table import Occupant
from server.table import messages as tm


def test_a_players_entropy_crosses_the_bus_as_a_call_and_with_the_seat() -> None:
    call = to_call("t1", tm.Entropy(7, "ab" * 16), "front-1")
    again = decode_bus(p.encode(call))
    assert isinstance(again, TableCall) and from_call(again) == tm.Entropy(7, "ab" * 16)
    seat = Occupant("ana", 7, fingerprint="SHA256:a", entropy="cd" * 8)
    record = seat_record(seat)
    assert occupant(record).entropy == "cd" * 8
