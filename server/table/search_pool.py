"""The processes where the hard bot searches, away from the event loop's process.

A search takes 0.2-0.4 s of CPU. On a thread it held the GIL against the event loop, so every
player on the server waited while a bot thought; in processes of their own, 20 hard bots
thinking at once cost the loop nothing but a pickled state each way.

The pool has one process per core the server may use, started lazily through a fork server
(forking the server itself would copy its threads' locks and sockets). Each worker runs at
a lower priority than the server (a search must never take a core from the players) and is
killed with its parent: the fork server exits when the server dies, and the workers get
SIGKILL when it does. A worker that dies (killed, out of memory) breaks the pool: the search
it held answers None (the table moves for the bot at once) and the next search starts a
new pool.
"""
from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import ctypes
import logging
import multiprocessing
import os
import signal
import sys
from concurrent.futures.process import BrokenProcessPool
from multiprocessing import resource_tracker
from typing import Any, Callable, TypeVar

log = logging.getLogger(__name__)

T = TypeVar("T")
NICENESS = 10  # added to the workers' priority: the players' loop comes first
PR_SET_PDEATHSIG = 1


def cores() -> int:
    """The cores this process may run on (a container's or taskset's limit included)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not Linux
        return max(1, os.cpu_count() or 1)


def _worker_started() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is for the server, which stops the pool
    if sys.platform.startswith("linux"):
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)
    try:
        os.nice(NICENESS)
    except OSError:
        pass


def _start_resource_tracker() -> None:
    """Start multiprocessing's resource tracker (the pool's locks need it) with the process's
    own standard error. While a terminal session's Textual app runs, ``sys.stderr`` is the
    app's capture, whose ``fileno()`` is -1, and the tracker started then failed with
    "bad value(s) in fds_to_keep": every hard bot's search, on any server with a terminal
    session, fell back to the table's move at once."""
    with contextlib.redirect_stderr(sys.__stderr__ or sys.stderr):
        resource_tracker.ensure_running()


def _run_with_pid(fn: Callable[..., T], args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[T, int]:
    return fn(*args, **kwargs), os.getpid()


class SearchPool:
    """A lazily started process pool; ``run`` is awaited on the event loop."""

    def __init__(self, workers: int | None = None) -> None:
        self.workers = workers or cores()
        self._pool: concurrent.futures.ProcessPoolExecutor | None = None
        self.pids: set[int] = set()  # the processes that answered (tests, the status line)

    def _executor(self) -> concurrent.futures.ProcessPoolExecutor:
        if self._pool is None:
            _start_resource_tracker()
            context = multiprocessing.get_context("forkserver" if sys.platform.startswith("linux") else "spawn")
            if context.get_start_method() == "forkserver":
                # The fork server imports the rules once, each worker starts from its copy.
                # (Also instead of its default, the server's __main__: nothing to run there.)
                context.set_forkserver_preload(["server.table.moves"])
            self._pool = concurrent.futures.ProcessPoolExecutor(
                self.workers, mp_context=context, initializer=_worker_started)
            log.info("bot search: a pool of %d processes", self.workers)
        return self._pool

    async def run(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T | None:
        """``fn(*args, **kwargs)`` in a worker (all of them picklable); None if the worker
        died under it. Its own exceptions are raised here."""
        pool = self._executor()
        try:
            result, pid = await asyncio.wrap_future(pool.submit(_run_with_pid, fn, args, kwargs))
        except BrokenProcessPool:
            log.warning("bot search: a search process died; a new pool starts with the next search")
            if self._pool is pool:
                self._pool = None
                pool.shutdown(wait=False, cancel_futures=True)
            return None
        self.pids.add(pid)
        return result

    def shutdown(self) -> None:
        pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=False, cancel_futures=True)


POOL = SearchPool()
