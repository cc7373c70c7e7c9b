"""Shared fixtures and helpers for the end-to-end tests (real SSH on 127.0.0.1)."""
from __future__ import annotations

import sys

import pytest


@pytest.fixture(autouse=True)
def _restore_stdio():
    """Textual redirects sys.stdout/sys.stderr while each app runs; with many apps in one
    process they can be left pointing at a finished app. Put back what pytest installed."""
    out, err = sys.stdout, sys.stderr
    yield
    sys.stdout, sys.stderr = out, err
