"""Tests that measure time run with the machine to themselves, also under pytest-xdist.

A test marked ``alone`` (the flood test compares players' latencies with and without a
flooder) would measure the other workers' load, not the server's. Every test holds a shared
lock on one file while it runs; an ``alone`` test takes it exclusively, so it starts once the
tests under way on other workers have ended, and none starts until it has ended. A turnstile
(a second lock every test passes through) keeps a stream of shared holders from starving it.
Without xdist there is nobody to wait for, and nothing is locked.
"""
from __future__ import annotations

import contextlib
import fcntl
import os
from pathlib import Path
from typing import Iterator

MARK = "alone"


@contextlib.contextmanager
def _flock(path: Path, kind: int) -> Iterator[None]:
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, kind)  # blocks this worker only: no test of its own is running yet
        yield
    finally:
        os.close(fd)  # closing releases the lock


@contextlib.contextmanager
def running(folder: Path | None, alone: bool) -> Iterator[None]:
    """Hold the run's lock for one test: shared, or exclusive for an ``alone`` test."""
    if folder is None:
        yield
        return
    turnstile, room = folder / "turnstile.lock", folder / "room.lock"
    if alone:
        with _flock(turnstile, fcntl.LOCK_EX), _flock(room, fcntl.LOCK_EX):
            yield
        return
    with _flock(turnstile, fcntl.LOCK_EX):
        pass  # waits here while an alone test is waiting for the room or in it
    with _flock(room, fcntl.LOCK_SH):
        yield


def _folder(controller_pid: int) -> Path:
    return Path(os.environ.get("TMPDIR", "/tmp")) / f"truco-ssh-tests-{controller_pid}"


def lock_folder(config: object) -> Path | None:
    """The folder the workers of one xdist run share (None without xdist): named after the
    process that started them, which removes it at the end (``remove_folder``)."""
    if getattr(config, "workerinput", None) is None:
        return None
    folder = _folder(os.getppid())
    folder.mkdir(mode=0o700, exist_ok=True)
    return folder


def remove_folder(config: object) -> None:
    """In the process that ran the workers: their lock folder goes with the run."""
    if getattr(config, "workerinput", None) is not None:
        return
    folder = _folder(os.getpid())
    for name in ("turnstile.lock", "room.lock"):
        (folder / name).unlink(missing_ok=True)
    try:
        folder.rmdir()
    except OSError:
        pass  # there was none (no xdist), or something else is in it: left as it is
