"""The waiting room of a table with partners: its creator starts the game.

Kept apart from ``messages`` (whose table of types it joins on import), like ``stats``.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from protocol.messages import MESSAGE_TYPES, TABLE_ID_MAX, Command
from protocol.schema import limited


@dataclass(frozen=True)
class StartTable(Command):
    """The table's creator starts the game once every seat is taken (bots count). Only
    tables whose ``TableInfo.owner_starts`` is set wait for this; the others start when full."""

    TYPE: ClassVar[str] = "start_table"
    table_id: str = limited(max_len=TABLE_ID_MAX)


MESSAGE_TYPES.update({cls.TYPE: cls for cls in (StartTable,)})

__all__ = ["StartTable"]
