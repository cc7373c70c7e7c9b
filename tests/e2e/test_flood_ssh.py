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
from tests.e2e.harness import running_server
from tests.e2e.helpers import close_all, focus_chat, lobby_client

pytestmark = pytest.mark.e2e


@pytest.mark.slow
@pytest.mark.alone  # it compares latencies: other tests' load would be measured too
def test_a_flooder_does_not_slow_the_other_players() -> None:
    figures = flood_bench.run(seconds=6.0)  # (5 chat lines and 6 actions a window)
    assert figures["flooder_lines"] > 500 and figures["flooder_resizes"] > 500, figures  # it flooded
    assert figures["flood_chat_lines"] >= 4 and figures["flood_actions"] >= 4, figures
    chat_added = figures["flood_chat_round_trip_median_ms"] - figures["calm_chat_round_trip_median_ms"]
    action_added = figures["flood_action_median_ms"] - figures["calm_action_median_ms"]
    assert chat_added < 250, figures
    assert action_added < 100, figures
    assert figures["flood_chat_round_trip_max_ms"] < flood_bench.CHAT_TIMEOUT * 1000, figures
    # What the flood cost the server: its input budget (8% of a core) and the SSH layer's share.
    assert figures["flood_server_cpu_percent"] - figures["calm_server_cpu_percent"] < 30, figures


async def test_a_flooder_is_paused_then_told_its_keys_were_dropped(tmp_path) -> None:
    """Past its budget a session's input is held back, then dropped, and the player is told
    (in its language); the session stays up and takes keys again once it has calmed down."""
    async with running_server(tmp_path, input_cpu_per_second=0.01, input_cpu_burst=0.1) as srv:
        ana = await lobby_client(srv.port, "ana", env={"LANG": "es_AR.UTF-8"}, lobby_word="Salón")
        try:
            await focus_chat(ana)
            assert ana.process is not None
            for n in range(400):  # chat lines typed as fast as the link takes them
                ana.send(f"linea {n} " + "x" * 30 + "\r")  # (the chat stays open after Enter)
            await ana.process.stdin.drain()
            await ana.wait_for(lambda t: "mandando teclas" in t, 30)
            assert not ana.closed.is_set()
        finally:
            await close_all(ana)
