"""Set-up shared by every test folder."""
from __future__ import annotations

import os

import pytest

from server.ops import gc_tuning
from tests import schedule
from tui import textual_patches


def pytest_configure(config: pytest.Config) -> None:
    # The server installs the Textual patches at start-up (server.cli.main.serve); tests that build
    # Apps in-process get the same Textual the players get, installed once before collection.
    textual_patches.install()
    # What the commands print follows the terminal's language (server/say.py): the servers
    # the tests start read English whatever the developer's locale; a test of another
    # language sets LANG for its own command.
    for var in ("LC_ALL", "LC_MESSAGES"):
        os.environ.pop(var, None)
    os.environ["LANG"] = "C.UTF-8"
    config.addinivalue_line("markers", "slow: runs for many seconds; started first, so that the "
                                       "suite's end does not wait for it (left out of `make check`)")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    items[:] = schedule.ordered(items, schedule.worker_count(config), schedule.marked("slow"))


def pytest_collection_finish(session: pytest.Session) -> None:
    # The collector as a server process has it (server/ops/gc_tuning.py): the servers, Apps
    # and sessions the tests run in-process allocate as a server does, and what collection
    # imported is frozen as the server's start-up is. Measured on five TUI and engine test
    # files, one process: 42 s of CPU with CPython's thresholds, 36 s tuned (three runs each).
    gc_tuning.tune()
