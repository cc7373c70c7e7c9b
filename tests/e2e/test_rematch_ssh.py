"""A rematch over real SSH, as programs play it (the `truco` subsystem): a whole match, then
a rematch that waits for every player and starts with the other mano. What the screens say
about it (who asked, whom it waits for): tests/tui/test_table_dialogs.py."""
from __future__ import annotations

import asyncio

import pytest

import protocol as p
from tests.e2e.harness import running_server
from tests.e2e.programs import close_all, connect, dealt, play_until_over, table_of, update
from tests.e2e.test_table_ssh import FAST

pytestmark = pytest.mark.e2e


async def test_a_rematch_waits_for_every_player_and_the_mano_moves_on(tmp_path) -> None:
    async with running_server(tmp_path, **FAST) as server:
        ana, beto = clients = await connect(server.port, "ana", "beto")
        try:
            table_id = await table_of(ana, 2, options={"target": 15, "match_games": 1})
            await beto.send(p.JoinTable(table_id=table_id))
            first = [await update(c, dealt, peek=True) for c in clients]
            first_mano = first[0].view.mano
            ends = await asyncio.gather(play_until_over(ana, table_id, seed=1),
                                        play_until_over(beto, table_id, seed=2))
            for end in ends:
                assert end.view.winner is not None and max(end.view.scores) >= 15
                assert end.rematch_votes == ()
            await ana.send(p.Rematch(table_id=table_id))
            for client in clients:  # both are told who asked; the match stays over meanwhile
                asked = await update(client, lambda u: bool(u.rematch_votes))
                assert asked.rematch_votes == (0,) and asked.view.match_over
            await beto.send(p.Rematch(table_id=table_id))
            again = [await update(c, lambda u: not u.view.match_over and dealt(u)) for c in clients]
            for update_ in again:
                assert update_.rematch_votes == () and update_.view.scores == (0, 0)
                assert update_.view.mano != first_mano and {first_mano, update_.view.mano} == {0, 1}
        finally:
            await close_all(clients)
