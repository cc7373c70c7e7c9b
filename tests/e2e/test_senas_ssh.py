"""Señas and the partner chat between partners, over real SSH: keys typed, screens read."""
from __future__ import annotations

import asyncio

import pytest

from tests.e2e.harness import running_server
from tests.e2e.helpers import add_bot, close_all, lobby_client, start_game
from tests.e2e.test_table_ssh import FAST, join_first_table, open_table

pytestmark = pytest.mark.e2e

ENTER = "\r"


def talk(text: str) -> str:
    """The table chat pane's lines (right of the game log), joined: a line it wraps reads whole."""
    lines = text.splitlines()
    start = next((i for i, line in enumerate(lines) if "Table chat" in line), len(lines))
    return " ".join(" ".join(line.rsplit("│", 1)[-1].split()) for line in lines[start + 1:])


async def test_a_sena_and_a_partner_line_reach_the_partner_and_not_the_opponent(tmp_path) -> None:
    async with running_server(tmp_path, **FAST) as server:
        # ana (seat 0) and carla (seat 2) are partners; beto (seat 1) and a bot the others.
        ana, beto, carla = [await lobby_client(server.port, n) for n in ("ana", "beto", "carla")]
        try:
            await open_table(ana, 4)
            await join_first_table(beto)
            await join_first_table(carla)
            await add_bot(ana)  # the last seat to a bot...
            await start_game(ana)  # ...and the creator starts the game
            for client in (ana, beto, carla):
                await client.wait_for("Hand 1", 15)
            await ana.wait_for("S Seña")  # the key bar offers it
            ana.send("S")
            await ana.wait_for("Seña to your partners")
            ana.send("1")  # the first seña of the Argentine set: ancho de espadas
            await ana.wait_for(lambda s: "You signalled to carla: ancho de espadas" in talk(s))
            await carla.wait_for(lambda s: "ana signals to you: raises the eyebrows (ancho de espadas)" in talk(s))
            carla.send("C")
            await asyncio.sleep(0.3)
            carla.send("vamos bien")
            carla.send(ENTER)
            await ana.wait_for(lambda s: "[to partners] carla: vamos bien" in talk(s))
            await asyncio.sleep(0.5)
            opponent = beto.text()
            # An opponent sees a seña only when caught (the "fair" default), and never as a
            # partner does; a partner line never.
            assert "ana signals to you" not in talk(opponent) and "You signalled to carla" not in talk(opponent)
            assert "vamos" not in opponent
        finally:
            await close_all(ana, beto, carla)
