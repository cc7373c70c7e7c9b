"""One running table: the actor that owns a match, logs before it sends, and its timers."""
from server.table.actor import (
    Occupant, Pace, StaleSnapshot, TableActor, snapshot_bytes, state_digest, state_from_snapshot,
)

__all__ = [
    "Occupant", "Pace", "StaleSnapshot", "TableActor", "snapshot_bytes", "state_digest",
    "state_from_snapshot",
]
