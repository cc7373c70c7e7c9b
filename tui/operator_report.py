"""An operator's answers as lines to read: in the TUI (a dialog) and in ``truco-ssh admin``."""
from __future__ import annotations

import time
from typing import Callable

import protocol as p
from protocol import moderation as m

Tr = Callable[..., str]


KEY_SHOWN = 16  # of a fingerprint in a terminal's columns: "SHA256:" and 9 more, then "…"


def report_lines(answer: p.Event, tr: Tr, whole_keys: bool = True) -> list[str]:
    """The server's answer to an operator's command, in columns (``whole_keys`` False: each
    key's fingerprint cut, so that a row fits a terminal; enough to tell keys apart)."""

    def key(text: str) -> str:
        return text if whole_keys else short_key(text)

    if isinstance(answer, m.Done):
        return [answer.text]
    if isinstance(answer, m.OnlineReport):
        rows = [tuple(tr(f"operator.col.{c}") for c in ("name", "key", "address", "where", "notes"))]
        rows += [(line.name or f"({line.conn_id})", key(line.fingerprint) or tr("operator.guest"), line.address,
                  where_text(line.table_id, line.seat, tr),
                  " ".join(tr(f"operator.{flag}") for flag, on in (("operator", line.operator), ("muted", line.muted))
                           if on)) for line in answer.lines]
        return _columns(rows) + [tr("operator.online", n=len(answer.lines))]
    if isinstance(answer, m.RestrictionsReport):
        if not answer.lines:
            return [tr("operator.no_restrictions")]
        rows = [tuple(tr(f"operator.col.{c}") for c in ("number", "what", "on", "target", "until", "reason"))]
        rows += [(str(line.number), line.what, line.on, key(line.target),
                  when_text(line.until) if line.until else tr("operator.for_good"), line.reason) for line in answer.lines]
        return _columns(rows)
    if isinstance(answer, m.ReportsReport):
        if not answer.lines:
            return [tr("operator.no_reports")]
        out: list[str] = []
        for line in answer.lines:  # each report a block: who, by how many, why, and its evidence
            where = f" · {line.table_id}: {', '.join(line.seats)}" if line.table_id else ""
            out += [f"#{line.number} {when_text(line.at)} {line.reported} ({key(line.reported_key) or tr('operator.guest')}, "
                    f"{line.reported_address or '?'}) · {line.reason} · "
                    + tr("operator.reported_by", n=line.reporters, name=line.by) + where]
            if line.text:
                out.append(f"  \u201c{line.text}\u201d")
            out += [f"  | {said}" for said in line.evidence]
        return out
    if isinstance(answer, m.OperatorsReport):
        if not answer.lines:
            return [tr("operator.no_operators")]
        rows = [tuple(tr(f"operator.col.{c}") for c in ("key", "source", "when"))]
        rows += [(key(line.fingerprint),
                  tr("operator.named_by", by=key(line.by)) if line.named else tr("operator.in_settings"),
                  when_text(line.at) if line.named else "") for line in answer.lines]
        return _columns(rows)
    if isinstance(answer, m.LogReport):
        if not answer.lines:
            return [tr("operator.no_actions")]
        rows = [tuple(tr(f"operator.col.{c}") for c in ("when", "by", "action", "target", "reason"))]
        rows += [(when_text(line.at), key(line.by), line.action, key(line.target), line.reason) for line in answer.lines]
        return _columns(rows)
    return [str(answer)]


def short_key(text: str) -> str:
    """A key's fingerprint cut to what tells keys apart in a terminal's columns."""
    return text if len(text) <= KEY_SHOWN else text[:KEY_SHOWN] + "…"


def where_text(table_id: str | None, seat: int | None, tr: Tr) -> str:
    if table_id is None:
        return tr("operator.in_lobby")
    if seat is None:
        return tr("operator.watching", table=table_id)
    return tr("operator.seated", table=table_id, seat=seat + 1)


def when_text(unix: int) -> str:
    return time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(unix))


def _columns(rows: list[tuple[str, ...]]) -> list[str]:
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return ["  ".join(cell.ljust(width) for cell, width in zip(row, widths)).rstrip() for row in rows]
