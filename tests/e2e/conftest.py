"""Shared fixtures and helpers for the end-to-end tests (real SSH on 127.0.0.1)."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

# The tests import ``tests.e2e.harness`` and the product packages from the repository root.
ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


@pytest.fixture(autouse=True)
def _restore_stdio():
    """Textual redirects sys.stdout/sys.stderr while each app runs; with many apps in one
    process they can be left pointing at a finished app. Put back what pytest installed."""
    out, err = sys.stdout, sys.stderr
    yield
    sys.stdout, sys.stderr = out, err
