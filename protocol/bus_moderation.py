"""The operators' bans, mutes and record on the bus (server/cluster/moderation.py): the values
of their bucket and stream, checked on receipt as every bus message (protocol/bus.py
registers them)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from protocol.bus_base import BusMessage
from protocol.messages import NAME_MAX, TABLE_ID_MAX
from protocol.moderation import ADDRESS_MAX, EVIDENCE_LINES, FINGERPRINT_MAX, IGNORED_MAX, NOTICE_MAX, REASON_MAX
from protocol.schema import limited

SECONDS_MAX = 2**40


@dataclass(frozen=True)
class RestrictionEntry(BusMessage):
    """A ban or a mute in force (the value of its number's key in the moderation bucket)."""

    TYPE: ClassVar[str] = "bus_restriction"
    what: str = limited(max_len=8)
    on: str = limited(max_len=8)
    target: str = limited(max_len=ADDRESS_MAX)
    until: float = limited(0.0, lo=0, hi=SECONDS_MAX)  # unix seconds; 0: for good
    reason: str = limited("", max_len=REASON_MAX)
    by: str = limited("", max_len=FINGERPRINT_MAX)
    at: float = limited(0.0, lo=0, hi=SECONDS_MAX)


@dataclass(frozen=True)
class ModerationNote(BusMessage):
    """One operator's action, in the record's stream."""

    TYPE: ClassVar[str] = "bus_moderation_note"
    at: float = limited(0.0, lo=0, hi=SECONDS_MAX)
    by: str = limited("", max_len=FINGERPRINT_MAX)
    action: str = limited("", max_len=16)
    target: str = limited("", max_len=ADDRESS_MAX * 2)
    reason: str = limited("", max_len=NOTICE_MAX)


@dataclass(frozen=True)
class ReportEntry(BusMessage):
    """A player's report of another, in the reports' stream (its number: its sequence)."""

    TYPE: ClassVar[str] = "bus_report"
    at: float = limited(0.0, lo=0, hi=SECONDS_MAX)
    reported: str = limited("", max_len=NAME_MAX)
    reported_key: str = limited("", max_len=FINGERPRINT_MAX)
    reported_address: str = limited("", max_len=ADDRESS_MAX)
    reason: str = limited("", max_len=16)
    text: str = limited("", max_len=REASON_MAX)
    by: str = limited("", max_len=NAME_MAX)
    by_key: str = limited("", max_len=FINGERPRINT_MAX)
    by_address: str = limited("", max_len=ADDRESS_MAX)
    table_id: str | None = limited(None, max_len=TABLE_ID_MAX)
    seats: tuple[str, ...] = limited((), max_len=NAME_MAX + 8, max_items=8)
    evidence: tuple[str, ...] = limited((), max_len=NAME_MAX + 202, max_items=EVIDENCE_LINES)


@dataclass(frozen=True)
class ReportsSettled(BusMessage):
    """In the reports' stream after the reports it settles: those of the player ``group``
    (``server.moderation.reports.group``) numbered up to ``number`` leave the queue."""

    TYPE: ClassVar[str] = "bus_reports_settled"
    number: int = limited(1, lo=1, hi=2**53)
    group: str = limited("", max_len=FINGERPRINT_MAX + NAME_MAX + 8)
    at: float = limited(0.0, lo=0, hi=SECONDS_MAX)
    by: str = limited("", max_len=FINGERPRINT_MAX)


@dataclass(frozen=True)
class OperatorEntry(BusMessage):
    """A key an operator named an operator of the cluster (the value of its key, the
    fingerprint in hex, in the operators' bucket; deleted when it is no longer one)."""

    TYPE: ClassVar[str] = "bus_operator"
    fingerprint: str = limited(max_len=FINGERPRINT_MAX)
    by: str = limited("", max_len=FINGERPRINT_MAX)
    at: float = limited(0.0, lo=0, hi=SECONDS_MAX)


@dataclass(frozen=True)
class IgnoreEntry(BusMessage):
    """Whom one key ignores and whose chat it hears (the value of its key in the ignores bucket)."""

    TYPE: ClassVar[str] = "bus_ignores"
    fingerprint: str = limited(max_len=FINGERPRINT_MAX)
    names: tuple[str, ...] = limited((), max_len=NAME_MAX, max_items=IGNORED_MAX)
    hear: str = limited("everyone", max_len=16)
