"""Señas and the partner chat between partners, over real SSH, as programs send them (the
`truco` subsystem): who receives what. How a screen shows them: tests/tui/test_senas_screen.py."""
from __future__ import annotations

import pytest

import protocol as p
from tests.e2e.harness import running_server
from tests.e2e.programs import close_all, connect, dealt, table_of, update
from tests.e2e.test_table_ssh import FAST

pytestmark = pytest.mark.e2e


async def test_a_sena_and_a_partner_line_reach_the_partner_and_not_the_opponent(tmp_path) -> None:
    async with running_server(tmp_path, **FAST) as server:
        # ana (seat 0) and carla (seat 2) are partners; beto (seat 1) and a bot the others.
        ana, beto, carla = clients = await connect(server.port, "ana", "beto", "carla")
        try:
            table_id = await table_of(ana, 4)
            await beto.send(p.JoinTable(table_id=table_id, seat=1))
            await carla.send(p.JoinTable(table_id=table_id, seat=2))
            for client, seat in ((beto, 1), (carla, 2)):
                assert (await client.wait_for(p.Seated, 10)).seat == seat
            await ana.send(p.AddBot(table_id=table_id))  # the last seat to a bot: the game starts
            for client in clients:
                await update(client, dealt)
            assert ana.welcome is not None
            senas = next(v.senas for v in ana.welcome.variants if v.name == "argentino")
            assert senas[0] == "ancho_espadas"
            await ana.send(p.MakeSena(table_id=table_id, sena=senas[0]))
            for client in (ana, carla):  # the sender and the partner it was made to
                seen = await _sena_from(client, 0)
                assert (seen.seat, seen.sena, seen.to, seen.caught) == (0, "ancho_espadas", (2,), False)
            await carla.send(p.TableChat(table_id=table_id, text="vamos bien", partners=True))
            line = (await ana.wait_for(p.Chat, 10)).line
            assert (line.sender, line.text, line.partners) == ("carla", "vamos bien", True)
            # Then a line for everybody: whatever the table sent beto before it has arrived.
            await ana.send(p.TableChat(table_id=table_id, text="buena suerte"))
            heard: list[p.Event] = []
            while True:
                event = await beto.receive(10)
                heard.append(event)
                if isinstance(event, p.Chat) and event.line.text == "buena suerte":
                    break
            # An opponent sees a seña only when caught (the "fair" default), marked so, and
            # never as a partner does; a partner line never.
            # (The bot in seat 3, beto's partner, may make señas of its own to him.)
            assert all(e.caught for e in heard if isinstance(e, p.SenaSeen) and e.seat in (0, 2))
            assert not [e for e in heard if isinstance(e, p.Chat) and e.line.partners]
        finally:
            await close_all(clients)


async def _sena_from(client, seat: int) -> p.SenaSeen:
    """The next seña made by ``seat`` that this client sees (a bot's may come first)."""
    while True:
        seen = await client.wait_for(p.SenaSeen, 10)
        if seen.seat == seat:
            return seen
