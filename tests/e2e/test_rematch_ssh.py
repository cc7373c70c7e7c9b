"""A rematch over real SSH: who asked, whom it waits for, and the mano moves on."""
from __future__ import annotations

import asyncio
import re
import time

import pytest

from tests.e2e.harness import running_server
from tests.e2e.helpers import close_all, lobby_client
from tests.e2e.test_table_ssh import FAST, join_first_table, open_table, play_like_a_person

pytestmark = pytest.mark.e2e


def mano_of(text: str) -> str:
    """The name on the seat line marked M (the mano)."""
    for line in text.splitlines()[2:8]:
        m = re.match(r"^[▶> ] (\S+)(?: \*)?\s+\S+\s+\S*\s+D?\s?M", line)
        if m:
            return m.group(1)
    raise AssertionError(f"no mano on the screen:\n{text}")


async def test_a_rematch_says_who_asked_and_whom_it_waits_for_and_the_mano_moves_on(tmp_path) -> None:
    async with running_server(tmp_path, **FAST) as server:
        ana = await lobby_client(server.port, "ana")
        beto = await lobby_client(server.port, "beto")
        try:
            await open_table(ana, 2, short=True)
            await join_first_table(beto)
            first = await ana.wait_for("Hand 1", 10)
            first_mano = mano_of(first)
            deadline = time.monotonic() + 150
            await asyncio.gather(play_like_a_person(ana, deadline), play_like_a_person(beto, deadline))
            ana.send("r")
            await ana.wait_for("Rematch asked: waiting for beto.", 10)
            await beto.wait_for("ana asked for a rematch: press r to accept.", 10)
            beto.send("r")
            # The dialog gives the table back, and the log goes on with the new match's first deal.
            again = await ana.wait_for(
                lambda s: "Final score" not in s and "Hand 1: " in s.split("win the match!")[-1], 10)
            assert mano_of(again) != first_mano and {first_mano, mano_of(again)} == {"ana", "beto"}
        finally:
            await close_all(ana, beto)
