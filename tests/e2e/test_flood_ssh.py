"""No player can slow the others (issue 15): a client flooding from 127.0.0.2 (lobby chat lines as
fast as its SSH link lets it write, a window-size change every millisecond) while, from
127.0.0.1, two players chat and four play a table. The server is a process of its own, the
flooder another (tests/bench/flood_bench.py, which also prints the precise figures).

The bounds are the issue's (250 ms more on a chat round trip, 100 ms more on an action), taken
on medians against the same players measured just before without the flooder, so that a loaded
machine moves both; before the input budget the flood pinned the server's core and the
players' chat lines took more than 10 s."""
from __future__ import annotations

import pytest

from tests.bench import flood_bench

pytestmark = pytest.mark.e2e


def test_a_flooder_does_not_slow_the_other_players() -> None:
    figures = flood_bench.run(seconds=8.0)
    assert figures["flooder_lines"] > 500 and figures["flooder_resizes"] > 500, figures  # it flooded
    assert figures["flood_chat_lines"] >= 4 and figures["flood_actions"] >= 4, figures
    chat_added = figures["flood_chat_round_trip_median_ms"] - figures["calm_chat_round_trip_median_ms"]
    action_added = figures["flood_action_median_ms"] - figures["calm_action_median_ms"]
    assert chat_added < 250, figures
    assert action_added < 100, figures
    assert figures["flood_chat_round_trip_max_ms"] < flood_bench.CHAT_TIMEOUT * 1000, figures
    # What the flood cost the server: its input budget (8% of a core) and the SSH layer's share.
    assert figures["flood_server_cpu_percent"] - figures["calm_server_cpu_percent"] < 30, figures
