"""The `make bench` load generator still works: against a server that runs already (as the
cluster bench uses it), one screen table and one protocol table set up in parallel by two
worker processes, a few seconds of play with both, then each alone, and every figure
reported, the per-seat costs of each kind apart."""
from __future__ import annotations

import math
import tempfile
from pathlib import Path

import pytest

from tests.bench import load_bench
from tests.bench.session_bench import ServerProcess


def test_the_share_of_screen_tables_leaves_one_of_each_kind_when_it_can() -> None:
    assert [load_bench.screen_tables_for(n, 0.25) for n in (1, 2, 4, 25, 100)] == [1, 1, 1, 6, 25]
    assert [load_bench.screen_tables_for(n, 0.0) for n in (1, 25)] == [0, 0]
    assert [load_bench.screen_tables_for(n, 1.0) for n in (1, 25)] == [1, 25]
    assert load_bench.screen_tables_for(3, 0.9) == 2


@pytest.mark.e2e
def test_a_screen_table_and_a_protocol_table_play_on_a_running_server_and_report() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        server = ServerProcess(Path(tmp), *load_bench.SERVER_FLAGS)
        try:
            figures = load_bench.run_load("127.0.0.1", server.port, 2, 3.0, server_pids=[server.proc.pid],
                                          screen_share=0.5, split_seconds=3.0, setup_budget=60.0, workers=2)
        finally:
            server.stop()
    assert "setup_errors" not in figures, figures
    assert (figures["screen_tables_playing"], figures["protocol_tables_playing"]) == (1.0, 1.0)
    assert figures["actions"] >= 4  # each table acts about once a second
    assert figures["client_workers"] == 2.0
    for name in ("press_to_draw_median_ms", "press_to_draw_p99_ms", "send_to_update_median_ms",
                 "send_to_update_p99_ms", "server_cpu_per_action_ms", "clients_cpu_percent",
                 "setup_seconds", "bytes_per_screen_seat_per_action", "bytes_per_protocol_seat_per_action",
                 "server_cpu_per_action_per_watching_seat_ms", "server_cpu_per_action_per_protocol_seat_ms",
                 "clients_cpu_per_screen_action_ms", "clients_cpu_per_protocol_action_ms"):
        assert math.isfinite(float(figures[name])) and float(figures[name]) > 0, (name, figures)
    assert figures["screens_not_redrawn_in_5s"] == 0 and figures["updates_not_received_in_5s"] == 0
