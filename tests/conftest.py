"""Set-up shared by every test folder."""
from __future__ import annotations

import pytest

from tui import textual_patches


def pytest_configure(config: pytest.Config) -> None:
    # The server installs the Textual patches at start-up (server.cli.serve); tests that build
    # Apps in-process get the same Textual the players get, installed once before collection.
    textual_patches.install()
