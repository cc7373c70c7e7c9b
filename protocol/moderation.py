"""What a server's operators send and are answered: who is online, kick, mute, ban, notices.

Kept apart from ``messages`` (whose table of types they join on import), like ``stats``.
Only a session whose SSH key is an operator's may send these commands (the hub refuses
every other with the error ``not_operator``); they need no name, so ``truco-ssh admin``
does its work without appearing in the lobby.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from protocol.messages import MESSAGE_TYPES, NAME_MAX, TABLE_ID_MAX, Command, Event
from protocol.schema import limited

REASON_MAX = 200
NOTICE_MAX = 400
FINGERPRINT_MAX = 64  # "SHA256:" and 43 characters of base64
ADDRESS_MAX = 64  # an IPv6 address and its prefix length
LIST_MAX = 10_000
MINUTES_MAX = 10 * 365 * 24 * 60  # ten years; 0 means for good
KEY_TEXT_MAX = 4096  # an OpenSSH public key line (an RSA key of 8192 bits and a comment fit)

EVIDENCE_LINES = 20  # the chat lines a report carries
IGNORED_MAX = 200  # the players one may ignore
HEAR_EVERYONE, HEAR_PARTNERS, HEAR_NOBODY = "everyone", "partners", "nobody"  # ChatSetting.hear
HEAR = (HEAR_EVERYONE, HEAR_PARTNERS, HEAR_NOBODY)
REPORT_REASONS = ("abuse", "cheating", "leaving", "name", "other")

# What a ban or a mute holds to (``Restrict.on``)
ON_KEY, ON_NAME, ON_ADDRESS = "key", "name", "address"
# What it does (``Restrict.what``)
BAN, MUTE = "ban", "mute"


@dataclass(frozen=True)
class Online(Command):
    """Who is online, where, with which key and from which address."""

    TYPE: ClassVar[str] = "op_online"


@dataclass(frozen=True)
class Kick(Command):
    """End the sessions of the player named ``name``; they may come back (a ban keeps them out)."""

    TYPE: ClassVar[str] = "op_kick"
    name: str = limited(max_len=NAME_MAX * 4)
    reason: str = limited("", max_len=REASON_MAX * 4)


@dataclass(frozen=True)
class Restrict(Command):
    """A ban (no connection) or a mute (no chat and no señas) of a key, a name or an address.

    ``on``: ``key`` (``target`` is a fingerprint, or the name of someone online whose key
    it takes), ``name``, or ``address`` (an address, a network such as ``203.0.113.0/24``,
    or the name of someone online whose address it takes; ``prefix`` widens an address to
    its /24 for IPv4 or /64 for IPv6). ``minutes``: how long; 0 is for good.
    """

    TYPE: ClassVar[str] = "op_restrict"
    what: str = limited(max_len=8)  # ban | mute
    on: str = limited(max_len=8)  # key | name | address
    target: str = limited(max_len=ADDRESS_MAX * 2)
    minutes: int = limited(0, lo=0, hi=MINUTES_MAX)
    reason: str = limited("", max_len=REASON_MAX * 4)
    prefix: bool = False


@dataclass(frozen=True)
class Lift(Command):
    """End a ban or a mute before its time (its number in ``Restrictions``)."""

    TYPE: ClassVar[str] = "op_lift"
    number: int = limited(lo=1, hi=2**53)


@dataclass(frozen=True)
class ListRestrictions(Command):
    """The bans and mutes in force."""

    TYPE: ClassVar[str] = "op_restrictions"


@dataclass(frozen=True)
class Broadcast(Command):
    """A notice from the operators to everyone online."""

    TYPE: ClassVar[str] = "op_broadcast"
    text: str = limited(max_len=NOTICE_MAX * 4)


@dataclass(frozen=True)
class CloseTable(Command):
    """End a table: everyone at it is told why and back in the lobby; its match is abandoned
    by nobody (no one's loss)."""

    TYPE: ClassVar[str] = "op_close_table"
    table_id: str = limited(max_len=TABLE_ID_MAX)
    reason: str = limited("", max_len=REASON_MAX * 4)


@dataclass(frozen=True)
class ModerationLog(Command):
    """The operators' last actions, the latest first."""

    TYPE: ClassVar[str] = "op_log"
    limit: int = limited(50, lo=1, hi=1000)


@dataclass(frozen=True)
class ReportPlayer(Command):
    """Any player's report of another (``reason``: one of ``REPORT_REASONS``), for the
    operators; the server adds the evidence (the lobby chat lines of either of them, the table
    they share and its seats), never another player's words or anyone's señas or cards."""

    TYPE: ClassVar[str] = "report"
    name: str = limited(max_len=NAME_MAX * 4)
    reason: str = limited(max_len=16)
    text: str = limited("", max_len=REASON_MAX * 4)


@dataclass(frozen=True)
class Reports(Command):
    """The reports queue: the players reported by the most distinct people first."""

    TYPE: ClassVar[str] = "op_reports"
    limit: int = limited(50, lo=1, hi=500)


@dataclass(frozen=True)
class SettleReports(Command):
    """The operators have dealt with a player's reports: the reports of that player up to
    ``number`` (the queue line's number, their latest) leave the queue; reports made after
    start a new line. Recorded with ``reason`` (what was done) in the operators' log."""

    TYPE: ClassVar[str] = "op_settle_reports"
    number: int = limited(lo=1, hi=2**53)
    reason: str = limited("", max_len=REASON_MAX * 4)


@dataclass(frozen=True)
class NameOperator(Command):
    """Make a key an operator of this server (in a cluster, of every process), or no longer
    (``on`` False). ``key``: a fingerprint (``SHA256:...``), an OpenSSH public key line, or
    the name of a player online (or reserved) with a key. A key that is an operator by the
    server's settings (``DATA_DIR/operators``, ``--operator-key``) stays one until they change."""

    TYPE: ClassVar[str] = "op_operator"
    key: str = limited(max_len=KEY_TEXT_MAX)
    on: bool = True


@dataclass(frozen=True)
class ListOperators(Command):
    """The server's operators: by its settings and named by operators."""

    TYPE: ClassVar[str] = "op_operators"


@dataclass(frozen=True)
class Ignore(Command):
    """Hide a player's chat and señas from me (``on`` False: show them again), and never seat
    me with them by quick play; the player is not told. Kept for a key, for a session for a
    guest; answered with ``Listening``."""

    TYPE: ClassVar[str] = "ignore"
    name: str = limited(max_len=NAME_MAX * 4)
    on: bool = True


@dataclass(frozen=True)
class ChatSetting(Command):
    """Whose chat this player hears (``HEAR``): everyone, only the partners at their table, or
    nobody; kept for a key, for a session for a guest; answered with ``Listening``."""

    TYPE: ClassVar[str] = "chat_setting"
    hear: str = limited(max_len=16)


@dataclass(frozen=True)
class Listening(Event):
    """Whom this player ignores and whose chat they hear (after they named themselves, if
    not the defaults, and after each change): a client hides the chat lines and señas of the
    ignored, and the chat lines the setting leaves out."""

    TYPE: ClassVar[str] = "listening"
    ignored: tuple[str, ...] = limited((), max_len=NAME_MAX, max_items=IGNORED_MAX)
    hear: str = limited(HEAR_EVERYONE, max_len=16)


# -- what the operator is answered ---------------------------------------------------------

@dataclass(frozen=True)
class OnlineLine:
    conn_id: int = limited(lo=0, hi=2**53)
    name: str = limited("", max_len=NAME_MAX)  # "" until named (a program, an operator)
    fingerprint: str = limited("", max_len=FINGERPRINT_MAX)  # "" for a guest
    address: str = limited("", max_len=ADDRESS_MAX)
    table_id: str | None = limited(None, max_len=TABLE_ID_MAX)
    seat: int | None = limited(None, lo=0, hi=7)
    muted: bool = False
    operator: bool = False


@dataclass(frozen=True)
class OnlineReport(Event):
    TYPE: ClassVar[str] = "op_online_report"
    lines: tuple[OnlineLine, ...] = limited((), max_items=LIST_MAX)


@dataclass(frozen=True)
class RestrictionLine:
    number: int = limited(lo=1, hi=2**53)
    what: str = limited(max_len=8)
    on: str = limited(max_len=8)
    target: str = limited(max_len=ADDRESS_MAX)
    until: int = limited(0, lo=0, hi=2**40)  # unix seconds; 0: for good
    reason: str = limited("", max_len=REASON_MAX)
    by: str = limited("", max_len=FINGERPRINT_MAX)  # the operator's key
    at: int = limited(0, lo=0, hi=2**40)


@dataclass(frozen=True)
class RestrictionsReport(Event):
    TYPE: ClassVar[str] = "op_restrictions_report"
    lines: tuple[RestrictionLine, ...] = limited((), max_items=LIST_MAX)


@dataclass(frozen=True)
class LogLine:
    at: int = limited(0, lo=0, hi=2**40)
    by: str = limited("", max_len=FINGERPRINT_MAX)
    action: str = limited("", max_len=16)  # kick | ban | mute | lift | broadcast | close | settle | operator
    target: str = limited("", max_len=ADDRESS_MAX)
    reason: str = limited("", max_len=NOTICE_MAX)


@dataclass(frozen=True)
class LogReport(Event):
    TYPE: ClassVar[str] = "op_log_report"
    lines: tuple[LogLine, ...] = limited((), max_items=1000)


@dataclass(frozen=True)
class ReportLine:
    """One report, and how many distinct people reported the same player."""

    number: int = limited(lo=1, hi=2**53)
    at: int = limited(0, lo=0, hi=2**40)
    reported: str = limited("", max_len=NAME_MAX)
    reported_key: str = limited("", max_len=FINGERPRINT_MAX)  # "" for a guest
    reported_address: str = limited("", max_len=ADDRESS_MAX)
    reason: str = limited("", max_len=16)
    text: str = limited("", max_len=REASON_MAX)
    by: str = limited("", max_len=NAME_MAX)  # who reported
    by_key: str = limited("", max_len=FINGERPRINT_MAX)
    reporters: int = limited(1, lo=1, hi=2**31)  # distinct people who reported this player
    table_id: str | None = limited(None, max_len=TABLE_ID_MAX)
    seats: tuple[str, ...] = limited((), max_len=NAME_MAX + 8, max_items=8)
    evidence: tuple[str, ...] = limited((), max_len=NAME_MAX + 2 + 200, max_items=EVIDENCE_LINES)


@dataclass(frozen=True)
class ReportsReport(Event):
    TYPE: ClassVar[str] = "op_reports_report"
    lines: tuple[ReportLine, ...] = limited((), max_items=500)


@dataclass(frozen=True)
class OperatorLine:
    fingerprint: str = limited(max_len=FINGERPRINT_MAX)
    named: bool = False  # False: by the settings of the process that answers
    by: str = limited("", max_len=FINGERPRINT_MAX)  # the operator who named it
    at: int = limited(0, lo=0, hi=2**40)


@dataclass(frozen=True)
class OperatorsReport(Event):
    TYPE: ClassVar[str] = "op_operators_report"
    lines: tuple[OperatorLine, ...] = limited((), max_items=LIST_MAX)


@dataclass(frozen=True)
class Done(Event):
    """An operator's command was carried out: what was done, in words for the operator."""

    TYPE: ClassVar[str] = "op_done"
    action: str = limited(max_len=16)
    text: str = limited("", max_len=NOTICE_MAX)


MESSAGE_TYPES.update({cls.TYPE: cls for cls in (
    Online, Kick, Restrict, Lift, ListRestrictions, Broadcast, ModerationLog, Reports, ReportPlayer, Ignore,
    CloseTable, SettleReports, NameOperator, ListOperators, OperatorsReport,
    ChatSetting, Listening,
    OnlineReport, RestrictionsReport, LogReport, ReportsReport, Done,
)})

OPERATOR_COMMANDS: tuple[type[Command], ...] = (Online, Kick, Restrict, Lift, ListRestrictions, Broadcast,
                                                ModerationLog, Reports, CloseTable, SettleReports, NameOperator,
                                                ListOperators)

__all__ = ["Online", "Kick", "Restrict", "Lift", "ListRestrictions", "Broadcast", "ModerationLog",
           "OnlineLine", "OnlineReport", "RestrictionLine", "RestrictionsReport", "LogLine", "LogReport", "Done",
           "ReportPlayer", "Reports", "SettleReports", "NameOperator", "ListOperators", "OperatorLine",
           "OperatorsReport", "ReportLine", "ReportsReport", "REPORT_REASONS", "EVIDENCE_LINES",
           "CloseTable", "Ignore", "ChatSetting", "Listening", "IGNORED_MAX", "HEAR", "HEAR_EVERYONE", "HEAR_PARTNERS",
           "HEAR_NOBODY",
           "OPERATOR_COMMANDS", "BAN", "MUTE", "ON_KEY", "ON_NAME", "ON_ADDRESS", "REASON_MAX", "NOTICE_MAX"]
