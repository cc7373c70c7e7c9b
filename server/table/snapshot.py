"""Restarts: a table's state saved before each deal, and its match rebuilt from the log.

Before each deal the state is saved as a snapshot (``snapshot_bytes``), in the same
transaction as the deal's events, so a restore reads the latest snapshot and replays the
one hand after it (``replay_match``). Without a usable snapshot the match is replayed
from its start.
"""
from __future__ import annotations

import dataclasses
import enum
import hashlib
import io
import pickle
from dataclasses import dataclass
from typing import Any

import msgpack

import engine
from engine.core.state import VariantHand, freeze, thaw
from server.store import EventRow, Snapshot


def _subclasses(cls: type) -> list[type]:
    found: list[type] = []
    subclasses: list[type] = cls.__subclasses__()
    for sub in subclasses:
        found += [sub, *_subclasses(sub)]
    return found


def _state_format() -> bytes:
    """Names and types of the state's fields: a snapshot written by an engine whose state
    has another shape is not read (the match is replayed from its start instead)."""
    # A variant's per-hand record (State.variant_hand) is part of the state too.
    records = [cls for cls in _subclasses(VariantHand) if dataclasses.is_dataclass(cls)]
    shapes = [
        f"{cls.__name__}:" + ",".join(f"{f.name}={f.type}" for f in dataclasses.fields(cls))
        for cls in (engine.State, engine.HandSummary, *sorted(records, key=lambda c: c.__qualname__))
    ]
    return hashlib.sha256("|".join(shapes).encode()).hexdigest()[:16].encode()


SNAPSHOT_HEADER = b"truco-state/1/" + _state_format() + b"\n"


class StaleSnapshot(ValueError):
    """A snapshot this engine cannot use; replay the match from its start."""


class _EngineUnpickler(pickle.Unpickler):
    """Only the engine's own data classes and enums: a snapshot never calls anything else."""

    def find_class(self, module: str, name: str) -> Any:
        if module.startswith("engine."):
            found = super().find_class(module, name)
            if isinstance(found, type) and (dataclasses.is_dataclass(found) or issubclass(found, enum.Enum)):
                return found
        raise pickle.UnpicklingError(f"{module}.{name} is not allowed in a snapshot")


def snapshot_bytes(state: engine.State) -> bytes:
    # The rules are the table's (rebuilt from its options), not part of the snapshot.
    return SNAPSHOT_HEADER + pickle.dumps(_with_rules(state, None), protocol=5)


def state_from_snapshot(blob: bytes, rules: engine.RuleSet, n_players: int) -> engine.State:
    if not blob.startswith(SNAPSHOT_HEADER):
        raise StaleSnapshot("the snapshot was written by another engine version")
    try:
        state = _EngineUnpickler(io.BytesIO(blob[len(SNAPSHOT_HEADER):])).load()
    except Exception as exc:  # a damaged snapshot: the log itself is still whole
        raise StaleSnapshot(f"the snapshot cannot be read: {exc}") from exc
    if not isinstance(state, engine.State) or state.n != n_players:
        raise StaleSnapshot("the snapshot is not a state of this table")
    return _with_rules(state, rules)


def _with_rules(state: engine.State, rules: engine.RuleSet | None) -> engine.State:
    """The state with other rules (None only inside a pickle). Through thaw and freeze, which
    mypy follows: State takes its fields from HandFields, which its dataclass plugin does not."""
    work = thaw(state)
    work.rules = rules  # type: ignore[assignment]  # (None only inside the pickle)
    return freeze(work)


def state_digest(state: engine.State, n_players: int) -> str:
    """A short fingerprint of a state: every seat's view and the spectator's, hashed.

    Used to compare a table restored after a restart with an independent replay of its log.
    """
    views = [engine.view(state, seat).to_wire() for seat in (*range(n_players), None)]
    return hashlib.sha256(msgpack.packb(views, use_bin_type=True)).hexdigest()[:16]


@dataclass(frozen=True)
class Replayed:
    """A table's current match as its log rebuilds it."""

    state: engine.State
    events: list[engine.Event]  # what a returning player is shown (see replay_match)
    match_no: int
    seq: int  # the last event logged
    commands: list[tuple[int, int]]  # (seat, cid) of the logged commands, oldest first


def replay_match(table_id: str, rules: engine.RuleSet, n_players: int, rows: list[EventRow],
                 snapshot: Snapshot | None) -> Replayed | None:
    """The current match rebuilt from ``rows`` (None: nothing was logged).

    ``rows``: the table's log from the start of the current match or earlier (only the last
    match is replayed); or, with ``snapshot`` (the state before its latest deal), the match's
    match_started and the events after the snapshot. StaleSnapshot: replay the match
    without the snapshot; ValueError: the log has a gap.
    """
    opening = [r for r in rows if snapshot is not None and r.seq <= snapshot.seq]
    tail = rows[len(opening):]
    first = snapshot.seq + 1 if snapshot is not None else (rows[0].seq if rows else 1)
    for number, row in enumerate(tail, first):
        if row.seq != number:
            raise ValueError(f"table {table_id}: the log jumps from {number - 1} to {row.seq}")
    if not rows and snapshot is None:
        return None
    if snapshot is None:
        tail = [r for r in rows if r.match_no == rows[-1].match_no]
    start = None
    if snapshot is not None:
        start = state_from_snapshot(snapshot.state, rules, n_players)
    match_no = rows[-1].match_no if rows else snapshot.match_no  # type: ignore[union-attr]
    deck = rules.card_notation
    replayed = [engine.event_from_wire(r.data, deck) for r in tail]
    state = engine.replay(rules, n_players, replayed, start=start)
    # The match's start and, after a snapshot, the hand being played (what a returning
    # player is shown), not every hand before it
    events = [engine.event_from_wire(r.data, deck) for r in opening] + replayed
    return Replayed(
        state=state, events=events, match_no=match_no,
        seq=rows[-1].seq if rows else snapshot.seq,  # type: ignore[union-attr]
        commands=[(r.seat, r.cid) for r in rows if r.cid is not None and r.seat is not None],
    )
