"""A cluster store opened on a test's nats-server, as a lobby host opens it."""
from __future__ import annotations

from server.cluster.bus import Bus, BusOptions
from server.cluster.jsstore import JetStreamStore
from server.cluster.names import NameMirror
from server.store import TableRecord


async def open_store(url: str, owner: str) -> tuple[Bus, NameMirror, JetStreamStore]:
    """The bus (short lease, so a test's host change is quick), the name mirror and the store."""
    bus = await Bus.connect(url, BusOptions(lease_ttl=1.0, renew_every=0.3), owner=owner)
    names = await NameMirror.open(bus)
    store = JetStreamStore(bus, names)
    await store.open()
    return bus, names, store


def table_record(table_id: str) -> TableRecord:
    """An open table of ana and a bot, as the lobby stores it."""
    seats = [{"name": "ana", "fp": "SHA256:a", "resume": "", "bot": False, "human": True},
             {"name": "Bot 1", "fp": None, "resume": "", "bot": True, "human": False}]
    return TableRecord(table_id=table_id, title="mesa", variant="argentino", options={"target": 15},
                       owner="ana", private=False, code="", turn_timer=30, seats=seats, seed="s33d")
