"""The operators' bans and mutes, and the record of every action of theirs (SQL, run on
the store's writer thread)."""
from __future__ import annotations

import json
import sqlite3
import time
from contextlib import contextmanager
from typing import Any, Iterator

from server.moderation.reports import Report, settled_by
from server.moderation.restrictions import Restriction

@contextmanager
def transaction(db: sqlite3.Connection) -> Iterator[None]:
    """The connection is in autocommit mode (server/store/schema.py): BEGIN and COMMIT by hand."""
    db.execute("BEGIN")
    try:
        yield
    except BaseException:
        db.execute("ROLLBACK")
        raise
    db.execute("COMMIT")


COLUMNS = "number, what, on_what, target, until, reason, by_key, at"


def in_force(db: sqlite3.Connection) -> list[Restriction]:
    rows = db.execute(f"SELECT {COLUMNS} FROM restrictions WHERE lifted_at IS NULL AND (until = 0 OR until > ?)"
                      " ORDER BY number", (time.time(),))
    return [Restriction(*row) for row in rows]


def restrict(db: sqlite3.Connection, what: str, on: str, target: str, until: float, reason: str, by: str,
             at: float) -> Restriction:
    """Record a ban or a mute, and the action; the restriction with its number."""
    with transaction(db):
        cursor = db.execute("INSERT INTO restrictions (what, on_what, target, until, reason, by_key, at)"
                            " VALUES (?, ?, ?, ?, ?, ?, ?)", (what, on, target, until, reason, by, at))
        number = cursor.lastrowid
        assert number is not None
        note(db, at, by, what, f"{on} {target}", reason)
    return Restriction(number, what, on, target, until, reason, by, at)


def lift(db: sqlite3.Connection, number: int, by: str, at: float) -> bool:
    """End restriction ``number`` now; False if there is none in force of that number."""
    with transaction(db):
        cursor = db.execute("UPDATE restrictions SET lifted_at = ? WHERE number = ? AND lifted_at IS NULL",
                            (at, number))
        if cursor.rowcount:
            note(db, at, by, "lift", str(number), "")
    return bool(cursor.rowcount)


def note(db: sqlite3.Connection, at: float, by: str, action: str, target: str, reason: str) -> None:
    db.execute("INSERT INTO moderation_log (at, by_key, action, target, reason) VALUES (?, ?, ?, ?, ?)",
               (at, by, action, target, reason))


def log_lines(db: sqlite3.Connection, limit: int) -> list[tuple[float, str, str, str, str]]:
    rows = db.execute("SELECT at, by_key, action, target, reason FROM moderation_log ORDER BY n DESC LIMIT ?",
                      (limit,))
    return [tuple(row) for row in rows]


REPORTS_READ = 2000  # the latest reports the queue is made of


def add_report(db: sqlite3.Connection, report: Report) -> int:
    with transaction(db):
        cursor = db.execute(
            "INSERT INTO reports (at, reported, reported_key, reported_address, reason, text, by_name, by_key,"
            " by_address, table_id, seats, evidence) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (report.at, report.reported, report.reported_key, report.reported_address, report.reason, report.text,
             report.by, report.by_key, report.by_address, report.table_id, json.dumps(list(report.seats)),
             json.dumps(list(report.evidence))))
    assert cursor.lastrowid is not None
    return cursor.lastrowid


REPORT_COLUMNS = ("number, at, reported, reported_key, reported_address, reason, text, by_name, by_key, by_address,"
                  " table_id, seats, evidence")


def latest_reports(db: sqlite3.Connection) -> list[Report]:
    """The latest reports not yet settled."""
    rows = db.execute(f"SELECT {REPORT_COLUMNS} FROM reports WHERE settled_at IS NULL ORDER BY number DESC LIMIT ?",
                      (REPORTS_READ,))
    return [_report(row) for row in rows]


def settle_reports(db: sqlite3.Connection, number: int, by: str, reason: str, at: float) -> list[Report]:
    """Settle report ``number`` and the earlier unsettled reports of the same player, and
    record the action; the reports settled (none: no unsettled report of that number)."""
    with transaction(db):
        row = db.execute("SELECT reported_key FROM reports WHERE number = ? AND settled_at IS NULL",
                         (number,)).fetchone()
        if row is None:
            return []
        rows = db.execute(f"SELECT {REPORT_COLUMNS} FROM reports WHERE settled_at IS NULL AND number <= ?"
                          " AND reported_key = ? ORDER BY number", (number, row[0]))
        reports = settled_by([_report(r) for r in rows], number)
        db.executemany("UPDATE reports SET settled_at = ?, settled_by = ? WHERE number = ?",
                       [(at, by, r.number) for r in reports])
        note(db, at, by, "settle", f"{reports[-1].reported} #{number}", reason)
    return reports


def _report(row: tuple[Any, ...]) -> Report:
    number, at, reported, reported_key, reported_address, reason, text, by, by_key, by_address, table_id, \
        seats, evidence = row
    return Report(number, at, reported, reported_key, reported_address, reason, text, by, by_key, by_address,
                  table_id, tuple(json.loads(seats)), tuple(json.loads(evidence)))


def named_operators(db: sqlite3.Connection) -> dict[str, tuple[str, float]]:
    return {fp: (by, at) for fp, by, at in db.execute("SELECT fingerprint, by_key, at FROM operators")}


def name_operator(db: sqlite3.Connection, fingerprint: str, on: bool, by: str, at: float) -> bool:
    """Name a key an operator (``on``) or no longer, and record it; False: it already was (was not)."""
    with transaction(db):
        if on:
            cursor = db.execute("INSERT INTO operators (fingerprint, by_key, at) VALUES (?, ?, ?)"
                                " ON CONFLICT(fingerprint) DO NOTHING", (fingerprint, by, at))
        else:
            cursor = db.execute("DELETE FROM operators WHERE fingerprint = ?", (fingerprint,))
        if cursor.rowcount:
            note(db, at, by, "operator" if on else "unoperator", fingerprint, "")
    return bool(cursor.rowcount)


def listening(db: sqlite3.Connection, fingerprint: str) -> tuple[list[str], str]:
    row = db.execute("SELECT names, hear FROM ignores WHERE fingerprint = ?", (fingerprint,)).fetchone()
    return ([str(name) for name in json.loads(row[0])], str(row[1])) if row else ([], "everyone")


def keep_listening(db: sqlite3.Connection, fingerprint: str, names: list[str], hear: str) -> None:
    with transaction(db):
        if names or hear != "everyone":
            db.execute("INSERT INTO ignores (fingerprint, names, hear) VALUES (?, ?, ?) ON CONFLICT(fingerprint)"
                       " DO UPDATE SET names = excluded.names, hear = excluded.hear",
                       (fingerprint, json.dumps(names), hear))
        else:
            db.execute("DELETE FROM ignores WHERE fingerprint = ?", (fingerprint,))
