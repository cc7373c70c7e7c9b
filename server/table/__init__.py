"""One running table: the actor that owns a match and logs before it sends (``actor``),
what its inbox holds (``messages``), its clocks (``timers``), what each viewer is sent
(``frames``), who a rematch waits for (``rematch``) and restarts (``snapshot``)."""
from server.table.actor import TableActor
from server.table.occupant import Occupant
from server.table.snapshot import StaleSnapshot, snapshot_bytes, state_digest, state_from_snapshot
from server.table.timers import Pace

__all__ = [
    "Occupant", "Pace", "StaleSnapshot", "TableActor", "snapshot_bytes", "state_digest",
    "state_from_snapshot",
]
