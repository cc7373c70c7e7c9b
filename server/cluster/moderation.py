"""The operators' bans and mutes in a cluster: a key-value bucket (``n<number>`` -> its
``RestrictionEntry``) that every process watches into its own book, so that every process's
SSH layer refuses a banned key at the handshake; and their record, a stream.

The lobby host writes (its operators' desk, server/lobby/moderation.py); a lifted
restriction's key is deleted, and every copy forgets it.
"""
from __future__ import annotations

import logging
import time
from typing import Any

from nats.js.api import AckPolicy, ConsumerConfig, DeliverPolicy, DiscardPolicy, StorageType, StreamConfig
from nats.js.errors import KeyDeletedError, KeyNotFoundError, KeyWrongLastSequenceError, NotFoundError

import protocol as p
from protocol.bus import decode_bus
from protocol.bus_moderation import (IgnoreEntry, ModerationNote, OperatorEntry, ReportEntry, ReportsSettled,
                                     RestrictionEntry)
from protocol import moderation as m
from server.cluster.bus import Bus, bucket
from server.cluster.mirror import BucketMirror
from server.moderation.book import RestrictionBook
from server.moderation.reports import Report, settled_by
from server.moderation.restrictions import Restriction

log = logging.getLogger(__name__)

MODERATION_BUCKET = "truco_moderation"
RECORD_STREAM = "TRUCO_MODERATION_LOG"
RECORD_SUBJECT = "truco.moderation.log"
RECORD_KEPT = 100_000  # operators' actions the stream keeps
REPORT_STREAM = "TRUCO_REPORTS"
REPORT_SUBJECT = "truco.reports"
REPORTS_KEPT = 100_000
REPORTS_READ = 2000  # the latest reports the queue is made of (as with SQLite)
IGNORES_BUCKET = "truco_ignores"  # a key's fingerprint (hex) -> IgnoreEntry
OPERATORS_BUCKET = "truco_operators"  # a key's fingerprint (hex) -> OperatorEntry: an operator named
NUMBER_TRIES = 20  # another host writing the same number meanwhile: the next one


def _key(number: int) -> str:
    return f"n{number}"


class OperatorsMirror(BucketMirror):
    """This process's copy of the keys operators named operators of the cluster (``named``,
    given to its ``Moderation``): a key named through any process is one here too."""

    BUCKET = OPERATORS_BUCKET
    MESSAGE = OperatorEntry
    LABEL = "operators"

    def __init__(self, bus: Bus, kv: Any) -> None:
        super().__init__(bus, kv)
        self.named: dict[str, tuple[str, float]] = {}

    def _keep(self, key: str, message: Any) -> str | None:
        assert isinstance(message, OperatorEntry)
        if key != message.fingerprint.encode().hex():
            return "not under its own key"
        self.named[message.fingerprint] = (message.by, message.at)
        return None

    def _forget(self, key: str) -> None:
        try:
            self.named.pop(bytes.fromhex(key).decode(), None)
        except ValueError:
            pass


class ModerationMirror(BucketMirror):
    """This process's book of the cluster's restrictions, and (for the lobby host) where
    they and the operators' actions are written: ``ModerationRecords``."""

    BUCKET = MODERATION_BUCKET
    MESSAGE = RestrictionEntry
    LABEL = "moderation"

    def __init__(self, bus: Bus, kv: Any) -> None:
        super().__init__(bus, kv)
        self.book = RestrictionBook()
        self._highest = 0  # the highest number seen: a new one is above it
        self._operators: OperatorsMirror | None = None  # (opened with this one)

    @property
    def operators(self) -> OperatorsMirror:
        assert self._operators is not None, "opened by ModerationMirror.open"
        return self._operators

    @classmethod
    async def open(cls, bus: Bus) -> "ModerationMirror":
        mirror = await super().open(bus)
        try:
            mirror._operators = await OperatorsMirror.open(bus)
        except BaseException:
            await mirror.close()
            raise
        for name, subject, kept in ((RECORD_STREAM, RECORD_SUBJECT, RECORD_KEPT),
                                    (REPORT_STREAM, REPORT_SUBJECT, REPORTS_KEPT)):
            try:
                await bus.js.stream_info(name)
            except NotFoundError:
                await bus.js.add_stream(StreamConfig(
                    name=name, subjects=[subject], storage=StorageType.FILE,
                    num_replicas=bus.options.replicas, max_msgs=kept, discard=DiscardPolicy.OLD))
        return mirror

    async def close(self) -> None:
        if self._operators is not None:
            await self._operators.close()
        await super().close()

    def _keep(self, key: str, message: Any) -> str | None:
        assert isinstance(message, RestrictionEntry)
        number = _number(key)
        if number is None:
            return "not a restriction's number"
        if message.what not in (m.BAN, m.MUTE) or message.on not in (m.ON_KEY, m.ON_NAME, m.ON_ADDRESS):
            return "neither a ban nor a mute of a key, a name or an address"
        self._highest = max(self._highest, number)
        self.book.add(Restriction(number, message.what, message.on, message.target, message.until,
                                  message.reason, message.by, message.at))
        return None

    def _forget(self, key: str) -> None:
        number = _number(key)
        if number is not None:
            self.book.lift(number)

    # -- ModerationRecords (the lobby host's desk) ---------------------------------------
    async def restrict(self, what: str, on: str, target: str, until: float, reason: str, by: str) -> Restriction:
        at = time.time()
        value = p.encode(RestrictionEntry(what=what, on=on, target=target[:m.ADDRESS_MAX], until=until,
                                          reason=reason[:m.REASON_MAX], by=by, at=at))
        for _ in range(NUMBER_TRIES):
            number = self._highest + 1
            try:
                await self.kv.create(_key(number), value)
            except KeyWrongLastSequenceError:  # taken meanwhile (its watch news not here yet)
                self._highest = number
                continue
            self._highest = max(self._highest, number)
            made = Restriction(number, what, on, target[:m.ADDRESS_MAX], until, reason[:m.REASON_MAX], by, at)
            self.book.add(made)
            await self.note_action(by, what, f"{on} {target}", reason)
            return made
        raise RuntimeError("no free restriction number")

    async def lift(self, number: int, by: str) -> bool:
        try:
            await self.kv.get(_key(number))
        except (KeyNotFoundError, KeyDeletedError):
            return False
        await self.kv.delete(_key(number))
        self.book.lift(number)
        await self.note_action(by, "lift", str(number), "")
        return True

    async def note_action(self, by: str, action: str, target: str, reason: str) -> None:
        note = ModerationNote(at=time.time(), by=by, action=action[:16], target=target[:m.ADDRESS_MAX * 2],
                              reason=reason[:m.NOTICE_MAX])
        await self._bus.js.publish(RECORD_SUBJECT, p.encode(note), stream=RECORD_STREAM)

    async def moderation_log(self, limit: int) -> list[tuple[float, str, str, str, str]]:
        js = self._bus.js
        state = (await js.stream_info(RECORD_STREAM)).state
        lines: list[tuple[float, str, str, str, str]] = []
        seq = state.last_seq
        while seq >= max(1, state.first_seq) and len(lines) < limit:
            try:
                raw = await js.get_msg(RECORD_STREAM, seq)
            except NotFoundError:  # (removed meanwhile, past the stream's limit)
                seq -= 1
                continue
            note = self._bus.decode(raw)
            if isinstance(note, ModerationNote):
                lines.append((note.at, note.by, note.action, note.target, note.reason))
            seq -= 1
        return lines

    async def add_report(self, report: Report) -> int:
        entry = ReportEntry(at=report.at, reported=report.reported, reported_key=report.reported_key,
                            reported_address=report.reported_address, reason=report.reason, text=report.text,
                            by=report.by, by_key=report.by_key, by_address=report.by_address,
                            table_id=report.table_id, seats=report.seats, evidence=report.evidence)
        ack = await self._bus.js.publish(REPORT_SUBJECT, p.encode(entry), stream=REPORT_STREAM)
        return int(ack.seq)

    async def latest_reports(self) -> list[Report]:
        """The latest reports not yet settled: a ``ReportsSettled`` in the stream, after the
        reports it settles, takes them out."""
        js = self._bus.js
        state = (await js.stream_info(REPORT_STREAM)).state
        if not state.last_seq:
            return []
        start = max(state.first_seq, state.last_seq - REPORTS_READ + 1)
        sub = await js.pull_subscribe(REPORT_SUBJECT, stream=REPORT_STREAM, config=ConsumerConfig(
            ack_policy=AckPolicy.NONE, deliver_policy=DeliverPolicy.BY_START_SEQUENCE, opt_start_seq=start,
            inactive_threshold=30.0))
        reports: dict[int, Report] = {}
        try:
            seen = start - 1
            while seen < state.last_seq:
                for msg in await sub.fetch(500, timeout=5.0):
                    seen = msg.metadata.sequence.stream
                    entry = self._bus.decode(msg)
                    if isinstance(entry, ReportEntry):
                        reports[seen] = Report(seen, entry.at, entry.reported, entry.reported_key,
                                               entry.reported_address, entry.reason, entry.text, entry.by,
                                               entry.by_key, entry.by_address, entry.table_id, entry.seats,
                                               entry.evidence)
                    elif isinstance(entry, ReportsSettled):
                        for number in [n for n, r in reports.items() if n <= entry.number and r.group == entry.group]:
                            del reports[number]
        finally:
            await sub.unsubscribe()
        return list(reports.values())

    async def settle_reports(self, number: int, by: str, reason: str) -> list[Report]:
        settled = settled_by(await self.latest_reports(), number)
        if not settled:
            return []
        settled.sort(key=lambda r: r.number)
        await self._bus.js.publish(REPORT_SUBJECT, p.encode(ReportsSettled(
            number=number, group=settled[-1].group, at=time.time(), by=by)), stream=REPORT_STREAM)
        await self.note_action(by, "settle", f"{settled[-1].reported} #{number}", reason)
        return settled

    async def named_operators(self) -> dict[str, tuple[str, float]]:
        return dict(self.operators.named)

    async def name_operator(self, fingerprint: str, on: bool, by: str) -> bool:
        # (the copy: this process's by the desk that asked, every other's by its watch)
        key = fingerprint.encode().hex()
        if on:
            entry = OperatorEntry(fingerprint=fingerprint, by=by, at=time.time())
            try:
                await self.operators.kv.create(key, p.encode(entry))
            except KeyWrongLastSequenceError:  # an operator already
                return False
        else:
            try:
                await self.operators.kv.get(key)
            except (KeyNotFoundError, KeyDeletedError):
                return False
            await self.operators.kv.delete(key)
        await self.note_action(by, "operator" if on else "unoperator", fingerprint, "")
        return True

    async def listening(self, fingerprint: str) -> tuple[list[str], str]:
        kv = await bucket(self._bus, IGNORES_BUCKET)
        try:
            entry = await kv.get(fingerprint.encode().hex())
        except (KeyNotFoundError, KeyDeletedError):
            return [], m.HEAR_EVERYONE
        try:
            found = decode_bus(entry.value) if entry.value else None
        except p.ProtocolError:
            self._bus.dropped += 1
            return [], m.HEAR_EVERYONE
        if not isinstance(found, IgnoreEntry) or found.fingerprint != fingerprint:
            return [], m.HEAR_EVERYONE
        return list(found.names), found.hear if found.hear in m.HEAR else m.HEAR_EVERYONE

    async def keep_listening(self, fingerprint: str, names: list[str], hear: str) -> None:
        kv = await bucket(self._bus, IGNORES_BUCKET)
        key = fingerprint.encode().hex()
        if names or hear != m.HEAR_EVERYONE:
            await kv.put(key, p.encode(IgnoreEntry(fingerprint=fingerprint, names=tuple(names), hear=hear)))
        else:
            await kv.delete(key)


def _number(key: str) -> int | None:
    digits = key[1:]
    return int(digits) if key.startswith("n") and digits.isdigit() and len(digits) < 16 else None
