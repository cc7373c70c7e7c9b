"""Persistence: one SQLite file written from one thread (``Store``), and what it keeps.

``schema``: the versions and checks; ``records``: the rows as the server sees them;
``events``: the tables' logs and snapshots; ``games``: finished games; ``database``: the Store.
"""
from server.store.database import Store
from server.store.records import (
    CHAT_KEPT, ChatRow, EventRow, GameRecord, Reservation, SenaRow, Snapshot, TableRecord, pack_event,
    unpack_event,
)
from server.store.schema import MIGRATIONS, StoreError, check_database

__all__ = [
    "CHAT_KEPT", "MIGRATIONS", "ChatRow", "EventRow", "GameRecord", "Reservation", "SenaRow", "Snapshot", "Store", "StoreError",
    "TableRecord", "check_database", "pack_event", "unpack_event",
]
