"""The `make bench` load generator still works: two private tables set up in parallel by two
worker processes, a few seconds of play, and every figure reported."""
from __future__ import annotations

import math

import pytest

from tests.bench import load_bench

pytestmark = pytest.mark.e2e


def test_two_tables_on_two_workers_play_and_report() -> None:
    figures = load_bench.run_load(2, seconds=3.0, setup_budget=60.0, workers=2)
    assert "setup_errors" not in figures, figures
    assert figures["tables_playing"] == 2.0
    assert figures["actions"] >= 2  # each table acts about once a second
    assert figures["client_workers"] == 2.0
    for name in ("press_to_draw_median_ms", "press_to_draw_p99_ms", "server_cpu_per_action_ms",
                 "clients_cpu_percent", "setup_seconds"):
        assert math.isfinite(float(figures[name])) and float(figures[name]) > 0, (name, figures)
