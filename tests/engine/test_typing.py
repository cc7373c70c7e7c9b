"""The engine and the protocol are leaves other packages build on: they stay `mypy --strict` clean."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_engine_and_protocol_pass_mypy_strict() -> None:
    ran = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "engine", "protocol"],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
    )
    assert ran.returncode == 0, ran.stdout + ran.stderr
