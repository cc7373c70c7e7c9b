"""Players' entropy in the lobby (issue 34): a waiting table lists its first match's
commitment; a seated player adds bytes (AddEntropy), a joiner with JoinTable; the match
begins with the commitment the list showed and every player's bytes; bad bytes are refused."""
from __future__ import annotations

import protocol as p
from server.lobby import Hub
from tests.server.test_hub import join
from tests.server.test_leavers import playing


async def test_the_match_starts_with_the_listed_commitment_and_both_players_entropy(hub: Hub) -> None:
    ana = await join(hub, "ana")
    beto = await join(hub, "beto")
    ana.send(p.CreateTable(variant="argentino", players=2, options={"target": 15}, turn_timer=0))
    await ana.settle()
    table_id = ana.of(p.TableCreated)[-1].table_id
    await beto.settle()
    listed = next(u.table for u in reversed(beto.of(p.TableUpdated)) if u.table.table_id == table_id)
    assert len(listed.commitment) == 64  # shown before anyone but its creator sits

    ana.send(p.AddEntropy(table_id=table_id, entropy="zz"))
    await ana.settle()
    assert ana.of(p.Error)[-1].code == "bad_entropy"
    ana.send(p.AddEntropy(table_id=table_id, entropy="A1" * 16))
    await ana.settle()
    ack = ana.of(p.DealSeal)[-1]
    assert (ack.match_no, ack.commitment, ack.entropy) == (1, listed.commitment, ("a1" * 16,))

    beto.send(p.JoinTable(table_id=table_id, entropy="b2" * 8))
    await playing(beto, table_id)
    for client in (ana, beto):
        await playing(client, table_id)
        sealed = client.of(p.DealSeal)[-1]
        assert (sealed.match_no, sealed.commitment, sealed.secret) == (1, listed.commitment, "")
        assert sealed.entropy == ("a1" * 16, "b2" * 8)  # in seat order
    assert beto.of(p.TableUpdated)[-1].table.commitment == ""  # a match is on: no more entropy for it
