"""No player can slow the others (issue 15): a client flooding from 127.0.0.2 (lobby chat lines as
fast as its SSH link lets it write, a window-size change every millisecond) while, from
127.0.0.1, two players chat and four play a table. The server is a process of its own, the
flooder another (tests/bench/flood_bench.py).

Here: every line and action of the others still goes through while it floods (before the input
budget the flood pinned the server's core and the players' chat lines took more than 10 s, the
bench's timeout). How much slower they get is measured by `make bench` (its flood stage), not
asserted: a bound on time here would measure the machine's other load as well."""
from __future__ import annotations

import pytest

from tests.bench import flood_bench
from tests.e2e.harness import running_server
from tests.e2e.helpers import close_all, focus_chat, lobby_client

pytestmark = pytest.mark.e2e

TIMED_OUT_MS = flood_bench.CHAT_TIMEOUT * 1000  # what the bench counts for a line never seen


@pytest.mark.slow
def test_the_other_players_chat_and_play_through_a_flood() -> None:
    figures = flood_bench.run(seconds=6.0, calm=False)  # (5 chat lines and 6 actions a window, unloaded)
    assert figures["flooder_lines"] > 100 and figures["flooder_resizes"] > 100, figures  # it flooded
    assert figures["flood_chat_lines"] >= 2 and figures["flood_actions"] >= 2, figures
    assert figures["flood_chat_round_trip_max_ms"] < TIMED_OUT_MS, figures  # every line arrived
    assert figures["flood_screens_not_redrawn_in_5s"] == 0, figures  # every action was drawn
    assert figures["after_chat_round_trip_max_ms"] < TIMED_OUT_MS, figures


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
