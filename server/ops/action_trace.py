"""Timestamps along an action's path through the server, to find where a slow one waited.

Off unless the environment names a file (``TRUCO_TRACE_ACTIONS=PATH``, read when a server
process starts): then each step below is one JSON line there, ``[t, step, conn, table,
seq, n]`` with ``t`` the event loop's clock (time.monotonic), and
``python tests/bench/trace_report.py PATH`` lines them up per action. Off, a step costs a
call and a test of one global.

The steps, in the order an action takes them:

* ``input``: bytes from a terminal (``n`` of them), as the SSH session read them;
* ``hub``: the hub took a frame a session sent it from its inbox (``n`` bytes);
* ``routed``: the hub passed a player's action to its table (``table``);
* ``act``: a table took a player's action from its inbox (``seq`` before it), and
  ``applied`` once the engine applied it and each viewer's frame was made (``seq`` after);
* ``logged``: the table's events are on stable storage (the store's commit);
* ``sent``: the table handed a viewer its frame (``conn``: the viewer);
* ``written``: a terminal session wrote its screen's bytes to its SSH channel (``n``).

The lines are written by a thread of their own (the event loop never waits on the file);
what is still queued is written when the process exits normally.
"""
from __future__ import annotations

import atexit
import json
import os
import queue
import threading
import time
from pathlib import Path

ENV = "TRUCO_TRACE_ACTIONS"
Step = tuple[float, str, "int | None", "str | None", "int | None", "int | None"]
_DONE = None

_queue: "queue.SimpleQueue[Step | None] | None" = None
_writer: threading.Thread | None = None


def start_from_env(env: dict[str, str] | None = None) -> Path | None:
    """Start tracing if the environment names a file; the file, or None (an idempotent call)."""
    global _queue, _writer
    path = (os.environ if env is None else env).get(ENV, "")
    if not path or _queue is not None:
        return Path(path) if path else None
    # One write call per batch of whole lines, appended: the processes of ``--workers`` may
    # share the file without cutting each other's lines.
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    _queue = queue.SimpleQueue()
    _writer = threading.Thread(target=_write, args=(_queue, fd), name="action-trace", daemon=True)
    _writer.start()
    atexit.register(stop)
    return Path(path)


def stop() -> None:
    """Write what is queued and stop tracing."""
    global _queue, _writer
    if _queue is None or _writer is None:
        return
    _queue.put(_DONE)
    _writer.join(timeout=5)
    _queue = _writer = None


def mark(step: str, conn: int | None = None, table: str | None = None, seq: int | None = None,
         n: int | None = None) -> None:
    """One step of the path, now (nothing when tracing is off)."""
    if _queue is not None:
        _queue.put((time.monotonic(), step, conn, table, seq, n))


def _write(steps: "queue.SimpleQueue[Step | None]", fd: int) -> None:
    try:
        done = False
        while not done:
            lines = []
            step = steps.get()
            while True:  # what is queued now, in one write
                if step is _DONE:
                    done = True
                    break
                lines.append(json.dumps(step))
                if steps.empty() or len(lines) >= 1000:
                    break
                step = steps.get()
            if lines:
                os.write(fd, ("\n".join(lines) + "\n").encode())
    finally:
        os.close(fd)


def read(path: Path) -> list[Step]:
    """The steps a trace file holds, in order."""
    with open(path, encoding="utf-8") as f:
        return [tuple(json.loads(line)) for line in f if line.strip()]
