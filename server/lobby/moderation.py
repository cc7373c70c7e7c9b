"""The operators' desk in the lobby: who is online, kick, ban, mute, lift, broadcast, the
record of what they did. Only a session signed with an operator's key gets here (the hub
refuses everyone else); everything is recorded in the store before it holds, so a ban
survives a restart."""
from __future__ import annotations

import asyncio
import itertools
import logging
import re
import time
from typing import Any, Callable

import protocol as p
from protocol import moderation as m
from protocol.text import clean_text, name_key
from server.lobby.messages import Ignoring, LobbyMessage, Restricted
from server.lobby.seats import Seats
from server.lobby.sessions import Sessions
from server.lobby.state import Conn, LobbyState
from server.moderation.book import Moderation
from server.moderation.operators import OperatorKeyError, fingerprint_of
from server.moderation.reports import Report, evidence, queue, table_evidence
from server.moderation.restrictions import BadTarget, Restriction, network

log = logging.getLogger(__name__)

FINGERPRINT = re.compile(r"SHA256:[A-Za-z0-9+/]{43}")
PUBLIC_KEY_STARTS = ("ssh-", "ecdsa-", "sk-")  # an OpenSSH public key line's key type
REPORTS_PER_SESSION = 10  # a session's reports of other players: past them, refused
SECONDS_A_MINUTE = 60


class OperatorDesk:
    def __init__(self, state: LobbyState, sessions: Sessions, seats: Seats, moderation: Moderation) -> None:
        self._state = state
        self._sessions = sessions
        self._seats = seats
        self.moderation = moderation
        self._numbers = itertools.count(1)  # without a store (tests): numbers of this run only

    @property
    def handlers(self) -> dict[type[p.Command], Callable[[Conn, Any], None]]:
        return {m.Online: self.on_online, m.Kick: self.on_kick, m.Restrict: self.on_restrict,
                m.Lift: self.on_lift, m.ListRestrictions: self.on_list, m.Broadcast: self.on_broadcast,
                m.ModerationLog: self.on_log, m.ReportPlayer: self.on_report, m.Reports: self.on_reports,
                m.Ignore: self.on_ignore, m.ChatSetting: self.on_chat_setting, m.CloseTable: self.on_close_table,
                m.SettleReports: self.on_settle, m.NameOperator: self.on_name_operator,
                m.ListOperators: self.on_list_operators}

    def allows(self, conn: Conn) -> bool:
        return self.moderation.is_operator(conn.peer.fingerprint)

    def slowed(self, conn: Conn) -> bool:
        """A new name's chat line too soon after its last one (``Conn.slow_chat``)."""
        if conn.slow_chat is None or self.allows(conn):
            return False
        if time.monotonic() > conn.slow_until:
            conn.slow_chat = None  # not new any more
            return False
        return not conn.slow_chat.take()

    def muted(self, conn: Conn) -> Restriction | None:
        if self.allows(conn):
            return None
        return self.moderation.book.muted(conn.peer.fingerprint, conn.key, conn.peer.ip)

    # -- looking --------------------------------------------------------------------------
    def on_online(self, conn: Conn, msg: m.Online) -> None:
        lines = [m.OnlineLine(conn_id=c.peer.conn_id, name=c.name or "", fingerprint=c.peer.fingerprint or "",
                              address=c.peer.ip[:m.ADDRESS_MAX], table_id=c.table_id, seat=c.seat,
                              muted=self.muted(c) is not None, operator=self.allows(c))
                 for c in sorted(self._state.conns.values(), key=lambda c: (c.key or "", c.peer.conn_id))
                 if c is not conn or c.name is not None]  # (not the asking tool itself)
        self._state.send(conn, m.OnlineReport(lines=tuple(lines)))

    def on_list(self, conn: Conn, msg: m.ListRestrictions) -> None:
        lines = tuple(r.line() for r in self.moderation.book.in_force())
        self._state.send(conn, m.RestrictionsReport(lines=lines))

    def on_log(self, conn: Conn, msg: m.ModerationLog) -> None:
        store = self.moderation.records
        if store is None:
            self._state.send(conn, m.LogReport())
            return

        async def query() -> p.Message:
            rows = await store.moderation_log(msg.limit)
            return m.LogReport(lines=tuple(
                m.LogLine(at=int(at), by=by, action=action[:16], target=target[:m.ADDRESS_MAX],
                          reason=reason[:m.NOTICE_MAX]) for at, by, action, target, reason in rows))

        self._state.answer_later(conn, query(), "the operators' record is not available")

    # -- acting ---------------------------------------------------------------------------
    def on_kick(self, conn: Conn, msg: m.Kick) -> None:
        key = name_key(clean_text(msg.name, p.NAME_MAX * 4))
        reason = clean_text(msg.reason, m.REASON_MAX)
        targets = [c for c in self._state.conns.values() if key and c.key == key]
        if not targets:
            self._state.error(conn, "not_online", f"nobody named {msg.name[:p.NAME_MAX]!r} is online")
            return
        name = targets[0].name or key
        for target in targets:
            self._end(target, "kicked", reason)
        log.warning("operator %s kicked %s (%s)", conn.peer.fingerprint, name, reason or "no reason given")
        self._record(conn, "kick", name, reason, m.Done(action="kick", text=f"{name} was disconnected"))

    def on_broadcast(self, conn: Conn, msg: m.Broadcast) -> None:
        text = clean_text(msg.text, m.NOTICE_MAX)
        if not text:
            self._state.error(conn, "bad_text", "nothing to say")
            return
        frame = p.encode(p.Notice(code="operators", text=text))
        reached = 0
        for other in list(self._state.conns.values()):
            if other.name is not None:
                self._state.deliver(other, frame)
                reached += 1
        log.warning("operator %s told everyone: %s", conn.peer.fingerprint, text)
        self._record(conn, "broadcast", "everyone", text, m.Done(action="broadcast", text=f"told {reached} players"))

    def on_close_table(self, conn: Conn, msg: m.CloseTable) -> None:
        table = self._state.tables.get(msg.table_id)
        if table is None:
            self._state.error(conn, "no_table", f"no table {msg.table_id!r} is open")
            return
        reason = clean_text(msg.reason, m.REASON_MAX)
        told = self._seats.close(table, p.Notice(code="table_closed", text=reason))
        log.warning("operator %s closed table %s (%s)", conn.peer.fingerprint, table.table_id, reason or "no reason")
        self._record(conn, "close", table.table_id, reason,
                     m.Done(action="close", text=f"table {table.table_id} is closed; {told} sessions told"))

    def on_restrict(self, conn: Conn, msg: m.Restrict) -> None:
        try:
            if msg.what not in (m.BAN, m.MUTE):
                raise BadTarget(f"{msg.what!r}: neither {m.BAN} nor {m.MUTE}")
            target = self._target(msg.on, msg.target, msg.prefix)
        except BadTarget as exc:
            self._state.error(conn, "bad_target", str(exc))
            return
        reason = clean_text(msg.reason, m.REASON_MAX)
        until = time.time() + msg.minutes * SECONDS_A_MINUTE if msg.minutes else 0.0
        by = conn.peer.fingerprint or ""
        store = self.moderation.records

        async def record() -> LobbyMessage:
            if store is None:
                made = Restriction(next(self._numbers), msg.what, msg.on, target, until, reason, by, time.time())
            else:
                made = await store.restrict(msg.what, msg.on, target, until, reason, by)
            return Restricted(conn.peer.conn_id, made)

        self._state.answer_later(conn, record(), "the ban or mute could not be stored: it does not hold")

    def restricted(self, message: Restricted) -> None:
        """Stored: now it holds, here and at the SSH handshake; a ban ends the sessions it
        holds to at once."""
        restriction = message.restriction
        self.moderation.book.add(restriction)
        ended = 0
        for other in list(self._state.conns.values()):
            if self.allows(other) or not restriction.holds_to(other.peer.fingerprint, other.key, other.peer.ip):
                continue  # (nothing holds to an operator)
            if restriction.what == m.BAN:  # (how long: said in English at the handshake, if they come back)
                self._end(other, "banned", restriction.reason)
                ended += 1
            else:  # told at once, with the operator's reason
                self._state.send(other, p.Notice(code="muted", text=restriction.reason))
        log.warning("operator %s: %s %s %s (%s); %d sessions ended", restriction.by, restriction.what,
                    restriction.on, restriction.target, restriction.reason or "no reason given", ended)
        operator = self._state.conns.get(message.conn_id)
        if operator is not None:
            text = f"number {restriction.number}: {restriction.on} {restriction.target} {restriction.told()}"
            if ended:
                text += f"; {ended} sessions ended"
            self._state.send(operator, m.Done(action=restriction.what, text=text[:m.NOTICE_MAX]))

    def on_lift(self, conn: Conn, msg: m.Lift) -> None:
        store, by = self.moderation.records, conn.peer.fingerprint or ""
        if self.moderation.book.lift(msg.number) is None and store is None:
            self._state.error(conn, "no_restriction", f"no ban or mute number {msg.number} is in force")
            return

        async def record() -> p.Message:
            if store is not None and not await store.lift(msg.number, by):
                return p.Error(code="no_restriction", message=f"no ban or mute number {msg.number} is in force")
            return m.Done(action="lift", text=f"number {msg.number} is lifted")

        self._state.answer_later(conn, record(), "the store could not record it")

    # -- reports ----------------------------------------------------------------------------
    def on_report(self, conn: Conn, msg: m.ReportPlayer) -> None:
        """Any player's report of another, with the evidence (server/moderation/reports.py)."""
        state, records = self._state, self.moderation.records
        reason = msg.reason.lower()
        named = clean_text(msg.name, p.NAME_MAX * 4)
        key = name_key(named)
        if reason not in m.REPORT_REASONS:
            state.error(conn, "bad_reason", f"a report's reason is one of {', '.join(m.REPORT_REASONS)}")
            return
        if not key or key == conn.key:
            state.error(conn, "bad_target", "report another player by their name")
            return
        if conn.reports >= REPORTS_PER_SESSION or records is None:
            state.error(conn, "no_report", "no more reports can be taken from you now")
            return
        conn.reports += 1
        target = self._online(named)
        # the table they share, else the reported player's
        table = state.tables.get(conn.table_id or "") if target is not None and conn.table_id == target.table_id \
            else state.tables.get(target.table_id or "") if target is not None else None
        reported = target.name if target is not None and target.name else named[:p.NAME_MAX]
        said = evidence(state.chat, conn.name or "", reported)
        if table is not None:
            actor = table.actor
            where = (f"(table {table.table_id}, match {actor.match_no}, log event {actor.seq})" if actor is not None
                     else f"(table {table.table_id}, not started)")
            said += table_evidence(table.said, [o.name if o is not None else None for o in table.seats],
                                   conn.name or "", reported, where)
        report = Report(
            0, time.time(), reported,
            (target.peer.fingerprint if target is not None else state.reservations.get(key)) or "",
            target.peer.ip if target is not None else "", reason, clean_text(msg.text, m.REASON_MAX),
            conn.name or "", conn.peer.fingerprint or "", conn.peer.ip,
            table.table_id if table is not None else None,
            tuple(o.name for o in table.seats if o is not None) if table is not None else (),
            tuple(line[:p.NAME_MAX + 202] for line in said[-m.EVIDENCE_LINES:]))
        log.warning("%s reported %s (%s)", conn.name, reported, reason)

        async def keep() -> p.Message:
            await records.add_report(report)
            return p.Notice(code="reported")

        state.answer_later(conn, keep(), "the report could not be kept")

    def on_reports(self, conn: Conn, msg: m.Reports) -> None:
        records = self.moderation.records
        if records is None:
            self._state.send(conn, m.ReportsReport())
            return

        async def query() -> p.Message:
            return m.ReportsReport(lines=tuple(queue(await records.latest_reports(), msg.limit)))

        self._state.answer_later(conn, query(), "the reports are not available")

    def on_settle(self, conn: Conn, msg: m.SettleReports) -> None:
        """Reports dealt with leave the queue: the line's player's reports up to ``number``."""
        records, reason = self.moderation.records, clean_text(msg.reason, m.REASON_MAX)
        if records is None:
            self._state.error(conn, "no_such_report", "this server keeps no reports")
            return
        by = conn.peer.fingerprint or ""

        async def settle() -> p.Message:
            settled = await records.settle_reports(msg.number, by, reason)
            if not settled:
                return p.Error(code="no_such_report", message=f"no open report number {msg.number}")
            log.warning("operator %s settled %d reports of %s (%s)", by, len(settled), settled[-1].reported,
                        reason or "no reason given")
            count = f"{len(settled)} report{'' if len(settled) == 1 else 's'}"
            return m.Done(action="settle", text=f"{count} of {settled[-1].reported} settled")

        self._state.answer_later(conn, settle(), "the store could not record it")

    # -- operators --------------------------------------------------------------------------
    def on_list_operators(self, conn: Conn, msg: m.ListOperators) -> None:
        moderation = self.moderation
        lines = [m.OperatorLine(fingerprint=fp) for fp in sorted(moderation.operators)]
        lines += [m.OperatorLine(fingerprint=fp, named=True, by=by, at=int(at))
                  for fp, (by, at) in sorted(moderation.named.items()) if fp not in moderation.operators]
        self._state.send(conn, m.OperatorsReport(lines=tuple(lines)))

    def on_name_operator(self, conn: Conn, msg: m.NameOperator) -> None:
        """A key named an operator of this server (a cluster's every process), or no longer."""
        records, moderation = self.moderation.records, self.moderation
        try:
            text = msg.key.strip()
            fingerprint = fingerprint_of(text) if text.startswith(PUBLIC_KEY_STARTS) else \
                self._target(m.ON_KEY, text, False)
        except (BadTarget, OperatorKeyError) as exc:
            self._state.error(conn, "bad_key", str(exc))
            return
        if records is None:
            self._state.error(conn, "no_store", "this server keeps no operators but its settings'")
            return
        if not msg.on and fingerprint in moderation.operators:
            self._state.error(conn, "in_settings", f"{fingerprint} is an operator by this server's settings "
                                                   "(DATA_DIR/operators, --operator-key): change them there")
            return
        by = conn.peer.fingerprint or ""

        async def name() -> p.Message:
            changed = await records.name_operator(fingerprint, msg.on, by)
            if msg.on:
                moderation.named.setdefault(fingerprint, (by, time.time()))
            else:
                moderation.named.pop(fingerprint, None)
            log.warning("operator %s: %s %s an operator", by, fingerprint, "is now" if msg.on else "is no longer")
            said = ("is an operator now" if changed else "was an operator already") if msg.on else \
                "is no longer an operator" if changed else "was not named an operator"
            return m.Done(action="operator", text=f"{fingerprint} {said}")

        self._state.answer_later(conn, name(), "the store could not record it")

    # -- ignoring ---------------------------------------------------------------------------
    def named(self, conn: Conn) -> None:
        """``conn`` just named itself: a key holder's ignore list is read (a guest's starts empty)."""
        fingerprint, records = conn.peer.fingerprint, self.moderation.records
        if fingerprint is None or records is None:
            return

        async def read() -> LobbyMessage:
            names, hear = await records.listening(fingerprint)
            return Ignoring(conn.peer.conn_id, tuple(names), hear)

        self._state.answer_later(conn, read(), "your ignore list could not be read")

    def ignoring(self, message: Ignoring) -> None:
        conn = self._state.conns.get(message.conn_id)
        if conn is not None:
            conn.ignoring = {name_key(name): name for name in message.names[:m.IGNORED_MAX] if name_key(name)}
            conn.hear = message.hear if message.hear in m.HEAR else m.HEAR_EVERYONE
            if conn.ignoring or conn.hear != m.HEAR_EVERYONE:
                self._listening(conn, keep=False)

    def on_ignore(self, conn: Conn, msg: m.Ignore) -> None:
        named = clean_text(msg.name, p.NAME_MAX * 4)[:p.NAME_MAX]
        key = name_key(named)
        if not key or key == conn.key:
            self._state.error(conn, "bad_target", "name another player")
            return
        if msg.on and key not in conn.ignoring and len(conn.ignoring) >= m.IGNORED_MAX:
            self._state.error(conn, "too_many_ignored", f"at most {m.IGNORED_MAX} players")
            return
        online = self._online(named)
        if msg.on:
            conn.ignoring[key] = online.name if online is not None and online.name else named
        else:
            conn.ignoring.pop(key, None)
        self._listening(conn)

    def on_chat_setting(self, conn: Conn, msg: m.ChatSetting) -> None:
        if msg.hear not in m.HEAR:
            self._state.error(conn, "bad_setting", f"one of {', '.join(m.HEAR)}")
            return
        conn.hear = msg.hear
        self._listening(conn)

    def _listening(self, conn: Conn, keep: bool = True) -> None:
        """Tell ``conn`` whom it ignores and whose chat it hears; ``keep``: for its key too."""
        names = list(conn.ignoring.values())
        records, fingerprint = self.moderation.records, conn.peer.fingerprint
        if keep and records is not None and fingerprint is not None:
            self._state.persist(asyncio.ensure_future(records.keep_listening(fingerprint, names, conn.hear)))
        self._state.send(conn, m.Listening(ignored=tuple(names), hear=conn.hear))

    # -- helpers --------------------------------------------------------------------------
    def _target(self, on: str, target: str, prefix: bool) -> str:
        """What a restriction holds to, as stored: a fingerprint, a name key, a network."""
        target = target.strip()
        online = self._online(target)
        if on == m.ON_KEY:
            if FINGERPRINT.fullmatch(target):
                return target
            fingerprint = online.peer.fingerprint if online is not None else self._state.reservations.get(
                name_key(target))
            if fingerprint is None:
                raise BadTarget(f"{target[:64]!r}: not a key's fingerprint (SHA256:...), nor a player with a key "
                                "(a guest has none: ban the name or the address)")
            return fingerprint
        if on == m.ON_NAME:
            key = name_key(clean_text(target, p.NAME_MAX * 4))
            if not key:
                raise BadTarget("no name given")
            return key
        if on == m.ON_ADDRESS:
            return network(online.peer.ip if online is not None else target, prefix)
        raise BadTarget(f"{on!r}: neither {m.ON_KEY}, {m.ON_NAME} nor {m.ON_ADDRESS}")

    def _online(self, name: str) -> Conn | None:
        key = name_key(clean_text(name, p.NAME_MAX * 4))
        conn_id = self._state.online.get(key) if key else None
        return self._state.conns.get(conn_id) if conn_id is not None else None

    def _end(self, conn: Conn, code: str, text: str) -> None:
        self._state.send(conn, p.Notice(code=code, text=text[:400]))
        self._sessions.close(conn.peer.conn_id)

    def _record(self, conn: Conn, action: str, target: str, reason: str, done: p.Message) -> None:
        store = self.moderation.records
        if store is not None:
            self._state.persist(asyncio.ensure_future(
                store.note_action(conn.peer.fingerprint or "", action, target, reason)))
        self._state.send(conn, done)

