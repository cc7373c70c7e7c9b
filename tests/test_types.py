"""Every package is `mypy --strict` clean: the engine and the protocol other packages build
on, the server and the terminal app."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("engine", "protocol", "server", "tui")


@pytest.mark.slow
def test_every_package_passes_mypy_strict() -> None:
    # A cache per xdist worker: two mypy runs on one cache can read each other's half-written
    # files; kept between runs (.mypy_cache is ignored by git), so a second run is quick.
    cache = ROOT / ".mypy_cache" / f"tests-{os.environ.get('PYTEST_XDIST_WORKER', 'main')}"
    ran = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--cache-dir", str(cache), *PACKAGES],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
    )
    assert ran.returncode == 0, ran.stdout + ran.stderr
