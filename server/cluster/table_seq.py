"""A table's frames never go back in time for a session (cluster mode).

A table owner cut off from the others by a partition keeps its table until it learns that
its lease ran out; meanwhile another process took the table over from its stream and played
on. When the partition heals, what the old owner still sends (the frames NATS buffered while
it was cut off, the views it sends again on reconnecting) shows an older table than the
player has seen already. So every frame an owner sends a session carries the table's event
number when it was made (``TABLE_SEQ_HEADER``: "<seq> <table id>"), and the front end
(``TableSeqs``) drops one older than the newest it passed on to that session for that table.
The numbers only grow in a table's life (its stream's), across owners and matches, so an
equal one is the same moment (a chat line beside the update) and goes on.
"""
from __future__ import annotations

from collections import OrderedDict

from server.cluster.order import parse_seq

TABLE_SEQ_HEADER = "Truco-Table-Seq"
TABLES_KEPT = 4  # tables remembered per session (the one it is at, and the last it left)


def table_seq_value(seq: int, table_id: str) -> str:
    return f"{seq} {table_id}"


def parse_table_seq(value: str) -> tuple[int, str] | None:
    number, _, table_id = value.partition(" ")
    seq = parse_seq(number)
    return None if seq is None or not table_id else (seq, table_id)


class TableSeqs:
    """The newest table frame passed on to each session of a front end, per table."""

    def __init__(self) -> None:
        self._seen: dict[int, OrderedDict[str, int]] = {}

    def fresh(self, conn_id: int, value: str | None) -> bool:
        """Whether a frame stamped ``value`` may go to ``conn_id`` (one not stamped may: the
        owner was still restoring the table); if so it is the newest now."""
        stamp = parse_table_seq(value) if value else None
        if stamp is None:
            return True
        seq, table_id = stamp
        tables = self._seen.setdefault(conn_id, OrderedDict())
        if seq < tables.get(table_id, 0):
            return False
        tables[table_id] = seq
        tables.move_to_end(table_id)
        if len(tables) > TABLES_KEPT:
            tables.popitem(last=False)
        return True

    def forget(self, conn_id: int) -> None:
        self._seen.pop(conn_id, None)
