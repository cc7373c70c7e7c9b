"""The server's log: plain lines or one JSON object per line (``--log-format json``), each
with the process it comes from; under systemd (``JOURNAL_STREAM`` set) plain lines go to
stderr without a time stamp, which the journal adds, and never to a file of their own."""
from __future__ import annotations

import json
import logging
import os
import socket
import sys
import time
from pathlib import Path
from typing import TextIO

_process = f"{socket.gethostname()}:{os.getpid()}"


def process_name() -> str:
    return _process


def set_process_name(name: str) -> None:
    """The name the log and the metrics give this process (a cluster's owner name)."""
    global _process
    _process = name


class _ProcessFilter(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        record.proc = _process
        return True


class JsonFormatter(logging.Formatter):
    """One object a line: time (UTC, ISO 8601), level, logger, process, message, and the
    ``session`` or ``table`` a record was given as ``extra``."""

    def format(self, record: logging.LogRecord) -> str:
        out: dict[str, object] = {
            "time": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created))
                    + f".{int(record.msecs):03d}Z",
            "level": record.levelname, "logger": record.name,
            "process": getattr(record, "proc", _process), "message": record.getMessage(),
        }
        for key in ("session", "table", "event"):
            if hasattr(record, key):
                out[key] = getattr(record, key)
        if record.exc_info:
            out["exception"] = self.formatException(record.exc_info)
        return json.dumps(out, ensure_ascii=False, default=str)


def under_journal(env: dict[str, str] | None = None) -> bool:
    return bool((os.environ if env is None else env).get("JOURNAL_STREAM"))


def setup(level: str | int, fmt: str = "text", *, filename: Path | None = None,
          stream: TextIO | None = None, env: dict[str, str] | None = None) -> logging.Handler:
    """Send the root logger's records at ``level`` and up to one handler, and return it."""
    journal = under_journal(env)
    handler: logging.Handler
    if filename is not None and not journal:
        handler = logging.FileHandler(filename, encoding="utf-8")
    else:
        handler = logging.StreamHandler(stream or sys.__stderr__)
    if fmt == "json":
        handler.setFormatter(JsonFormatter())
    else:
        stamp = "" if journal else "%(asctime)s "
        handler.setFormatter(logging.Formatter(stamp + "%(levelname)s %(proc)s %(name)s: %(message)s"))
    handler.addFilter(_ProcessFilter())
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(level)
    return handler
