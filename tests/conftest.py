"""Set-up shared by every test folder."""
from __future__ import annotations

import os

import pytest

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
