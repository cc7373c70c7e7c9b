"""One server per data directory, and no process outliving the server that started it.

``serve`` (and ``host``) and the ``--workers`` supervisor hold an exclusive lock on
``DATA_DIR/truco-ssh.lock`` while they run. The supervisor's workers and its nats-server
inherit the locked file, so the lock is free only once every one of them has ended: a second
server on the same data directory (two lobbies on one port, two nats-servers writing one
store) is refused, also while the processes of a supervisor that was killed are still ending.

Those children are started through a small launcher that asks Linux to send them SIGTERM when
their parent dies (``PR_SET_PDEATHSIG``, kept across the ``exec``): a supervisor killed with
``kill -9`` takes its workers and its nats-server with it, and each of them stops cleanly.
"""
from __future__ import annotations

import asyncio
import fcntl
import logging
import os
import signal
import sys
from pathlib import Path

log = logging.getLogger(__name__)

LOCK_NAME = "truco-ssh.lock"
LOCK_WAIT = 15.0  # seconds a new server waits for what is left of a dead one to end
LOCK_POLL = 0.25

# Runs in the child between fork and the program: no project import, nothing but the call.
# Linux's prctl(PR_SET_PDEATHSIG) is kept across execve; if the parent died before it took
# effect, the child would never be told, so it checks its parent is still the one it had.
_LAUNCHER = (
    "import ctypes, os, sys\n"
    "if ctypes.CDLL(None, use_errno=True).prctl(1, int(sys.argv[1]), 0, 0, 0) != 0:\n"
    "    sys.exit('cannot ask to end with the parent process')\n"
    "if os.getppid() != int(sys.argv[2]):\n"
    "    sys.exit(0)\n"
    "os.execv(sys.argv[3], sys.argv[3:])\n"
)


class DataDirInUse(OSError):
    """Another server (or what is left of one) uses this data directory."""


def ending_with_this_process(command: list[str], sig: int = signal.SIGTERM) -> list[str]:
    """``command`` started so that it gets ``sig`` when this process dies (Linux; elsewhere
    the command as it is). The program must be a path (``os.execv`` does not search PATH)."""
    if not sys.platform.startswith("linux"):
        return command
    return [sys.executable, "-S", "-c", _LAUNCHER, str(int(sig)), str(os.getpid()), *command]


def _try_lock(path: Path) -> int | None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        return None
    except BaseException:
        os.close(fd)
        raise
    os.ftruncate(fd, 0)
    os.write(fd, f"{os.getpid()}\n".encode())
    return fd


def _holder(path: Path) -> str:
    try:
        return path.read_text(encoding="ascii").strip()[:12] or "?"
    except OSError:
        return "?"


async def lock_data_dir(data_dir: Path, wait: float = LOCK_WAIT) -> int:
    """The locked file's descriptor (keep it open while serving; pass it to the children that
    must hold the directory too). Waits up to ``wait`` seconds for an earlier server's
    processes to end, then raises ``DataDirInUse`` saying what to do."""
    path = Path(data_dir) / LOCK_NAME
    loop = asyncio.get_running_loop()
    deadline = loop.time() + wait
    told = False
    while True:
        fd = await asyncio.to_thread(_try_lock, path)
        if fd is not None:
            return fd
        if loop.time() >= deadline:
            raise DataDirInUse(
                f"the data directory {data_dir} is in use by another truco-ssh server (process "
                f"{await asyncio.to_thread(_holder, path)}, or its workers and NATS server): stop it "
                "first, or give this server a --data-dir of its own")
        if not told:
            log.warning("the data directory %s is in use; waiting up to %.0f s for it", data_dir, wait)
            told = True
        await asyncio.sleep(LOCK_POLL)
