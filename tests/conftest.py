"""Set-up shared by every test folder."""
from __future__ import annotations

import os
from typing import Iterator

import pytest

from tests import alone, schedule
from tui import textual_patches


def pytest_configure(config: pytest.Config) -> None:
    # The server installs the Textual patches at start-up (server.cli.serve); tests that build
    # Apps in-process get the same Textual the players get, installed once before collection.
    textual_patches.install()
    # What the commands print follows the terminal's language (server/say.py): the servers
    # the tests start read English whatever the developer's locale; a test of another
    # language sets LANG for its own command.
    for var in ("LC_ALL", "LC_MESSAGES"):
        os.environ.pop(var, None)
    os.environ["LANG"] = "C.UTF-8"
    config.addinivalue_line("markers", f"{alone.MARK}: measures time, so runs with no other test "
                                       "running on any worker (tests/alone.py)")
    config.addinivalue_line("markers", "slow: runs for many seconds; started first, so that the "
                                       "suite's end does not wait for it (left out of `make check`)")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    items[:] = schedule.ordered(items, schedule.worker_count(config), schedule.marked("slow"),
                                schedule.marked(alone.MARK))


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
    with alone.running(alone.lock_folder(item.config), item.get_closest_marker(alone.MARK) is not None):
        yield


def pytest_unconfigure(config: pytest.Config) -> None:
    alone.remove_folder(config)
