"""What each player saw, against a replay of the table's log (issue 33's last check).

A player's update with sequence number ``s`` shows the table after the log's first ``s``
events. Replaying the log step by step (an action or a deal with the events it caused) gives
every state a player could have been shown; the view of the player's seat of that state must
be the one the player saw. This also catches what a check of the last sequence number cannot:
an event lost (e.g. at a power cut) whose number the next move used again.
"""
from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import engine
import protocol as p
from server.cluster.bus import Bus
from server.cluster.eventlog import TableLog
from server.cluster.jsstore import JetStreamStore
from server.cluster.names import NameMirror
from server.store import unpack_event
from server.table.table_view import table_view

Seen = dict[tuple[int, int], p.TableView]  # (seq, seat) -> the view a player at that seat was sent

# The events that start a step; the others are what the step caused.
STEP_STARTS = (engine.MatchStarted, engine.Acted, engine.HandDealt, engine.SeatCovered)


@dataclass(frozen=True)
class Log:
    variant: str
    options: dict[str, Any]
    n_players: int
    rows: list[tuple[int, dict[str, Any]]]  # (seq, the event's wire form), every match, in order

    @property
    def last(self) -> int:
        """The last sequence number logged (-1: none)."""
        return self.rows[-1][0] if self.rows else -1


def sqlite_logs(db: Path) -> dict[str, Log]:
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        out = {}
        for table_id, variant, options, seats in con.execute("SELECT table_id, variant, options, seats FROM tables"):
            rows = con.execute("SELECT seq, data FROM events WHERE table_id = ? ORDER BY seq", (table_id,))
            out[table_id] = Log(variant, json.loads(options), len(json.loads(seats)),
                                [(seq, unpack_event(data)) for seq, data in rows])
        return out
    finally:
        con.close()


async def jetstream_logs(url: str) -> dict[str, Log]:
    bus = await Bus.connect(url, owner="chaos-reader")
    try:
        names = await NameMirror.open(bus)
        store = JetStreamStore(bus, names)
        await store.open()
        out = {}
        for record in await store.table_index():
            rows = await TableLog(bus, record.table_id).read()
            out[record.table_id] = Log(record.variant, record.options, len(record.seats),
                                       [(r.seq, r.data) for r in rows])
        await names.close()
        return out
    finally:
        await bus.close()


def differences(table_id: str, log: Log, seen: Seen) -> list[str]:
    """Every (seq, seat) a player saw whose view is not the replayed one, said in words."""
    rules = engine.get_ruleset(log.variant, **log.options)
    steps: list[list[tuple[int, engine.Event]]] = []
    for seq, data in log.rows:
        event = engine.event_from_wire(data, rules.card_notation)
        if isinstance(event, STEP_STARTS) or not steps:
            steps.append([])
        steps[-1].append((seq, event))
    found = []
    ends: set[int] = set()
    state: engine.State | None = None
    for step in steps:
        events = [e for _, e in step]
        state = engine.replay(rules, log.n_players, events, start=None if isinstance(events[0], engine.MatchStarted)
                              else state)
        end = step[-1][0]
        ends.add(end)
        for seat in range(log.n_players):
            view = seen.get((end, seat))
            if view is not None and view != table_view(engine.view(state, seat)):
                found.append(f"{table_id} seq {end}: seat {seat} was shown a table the log does not replay to")
    last = log.last
    found += [f"{table_id} seq {seq}: seat {seat} was shown a state "
              + ("past the end of the log" if seq > last else "the log has only in the middle of a step")
              for seq, seat in seen if seq not in ends]
    return found
