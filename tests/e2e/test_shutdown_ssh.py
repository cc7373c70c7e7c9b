"""Stopping the server: players see why on their screen before the connection closes."""
from __future__ import annotations

import asyncio
import time

import pytest

from tests.e2e.harness import running_server
from tests.e2e.helpers import add_bot, close_all, lobby_client
from tests.e2e.test_table_ssh import open_table

pytestmark = pytest.mark.e2e

NOTICE = "The server is shutting down"


async def test_a_player_at_a_table_sees_the_shutdown_notice_over_the_table_before_the_hang_up(tmp_path):
    """Issue 13: the notice has to be seen while the session is still up (a terminal that
    closes with ssh, such as a tmux pane, shows nothing of what comes after)."""
    async with running_server(tmp_path, bot_delay=5.0, hand_pause=0.1) as srv:
        ana = await lobby_client(srv.port, "ana")
        await open_table(ana, 2)
        await add_bot(ana)  # a bot takes the other seat: the match starts
        await ana.wait_for("Hand worth", 10)
        seen: dict[str, object] = {}
        looked = asyncio.Event()

        def notice_while_connected(text: str) -> bool:
            looked.set()
            if NOTICE in text and "notice" not in seen:
                seen.update(notice=time.monotonic(), connected=not ana.closed.is_set(), screen=text)
            return "notice" in seen

        watching = asyncio.create_task(ana.wait_for(notice_while_connected, 15))
        await asyncio.wait_for(looked.wait(), 5)  # it watches: it sees each change from now on
    # Leaving the block stopped the server (as Ctrl-C does).
    try:
        await asyncio.wait_for(watching, 5)
        await asyncio.wait_for(ana.closed.wait(), 10)
        closed = time.monotonic()
        assert seen["connected"]
        screen = str(seen["screen"])
        assert "Hand worth" in screen and "1st" in screen  # drawn over the table, which stays in view
        assert closed - float(seen["notice"]) >= 1.0  # on screen for a moment, not one frame
        # Then the terminal is given back, and the same reason stays on it.
        raw = bytes(ana.raw).decode("utf-8", "replace")
        assert NOTICE in raw[:raw.rfind("\x1b[?1049l")]  # drawn by the app, on its screen
        after_app = raw[raw.rfind("\x1b[?1049l"):]
        assert f"truco-ssh: {NOTICE}" in after_app
        assert ana.process is not None and ana.process.exit_status == 0
    finally:
        await close_all(ana)
