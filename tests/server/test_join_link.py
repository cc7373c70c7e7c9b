"""A private table's join code given as the SSH username (`ssh CODE@host`) seats the player."""
from __future__ import annotations

import protocol as p
from server.lobby import Hub
from tests.server.test_hub import Client, join


async def _private_table(hub: Hub, players: int = 2) -> tuple[Client, str, str]:
    ana = await join(hub, "ana")
    ana.send(p.CreateTable(title="", variant="argentino", players=players, options={}, private=True))
    await ana.settle()
    created = ana.of(p.TableCreated)[-1]
    return ana, created.table_id, created.code


async def test_a_guest_with_the_code_as_username_chooses_a_name_then_sits(hub: Hub) -> None:
    ana, table_id, code = await _private_table(hub, players=4)
    friend = Client(hub.connect("127.0.0.1", code.lower(), None))
    friend.send(p.ClaimName(name=code.lower()))
    await friend.settle()
    refused = friend.of(p.NameRefused)[-1]
    assert refused.reason == "join_code" and refused.name == code and refused.suggestion == ""
    assert not friend.of(p.Welcome)
    friend.send(p.ClaimName(name="ana"))  # taken: asked again, the code is still remembered
    await friend.settle()
    assert friend.of(p.NameRefused)[-1].reason == "taken"
    friend.send(p.ClaimName(name="beto"))
    await friend.settle()
    assert friend.of(p.Welcome)[-1].name == "beto"
    assert friend.of(p.Seated)[-1].table_id == table_id and friend.of(p.Seated)[-1].seat == 1


async def test_a_key_holder_keeps_the_name_their_key_reserved(hub: Hub) -> None:
    carla = await join(hub, "Carla", fp="SHA256:carla")
    carla.link.close()
    ana, table_id, code = await _private_table(hub)
    again = Client(hub.connect("127.0.0.1", code, "SHA256:carla"))
    again.send(p.ClaimName(name=code))
    await again.settle()
    assert not again.of(p.NameRefused)
    assert again.of(p.Welcome)[-1].name == "Carla"
    seated = again.of(p.Seated)[-1]
    assert seated.table_id == table_id and seated.seat == 1  # the table is full: it starts
    assert hub.tables[table_id].actor is not None


async def test_a_full_table_is_watched_and_an_unknown_code_is_just_a_name(hub: Hub) -> None:
    ana, table_id, code = await _private_table(hub)
    ana.send(p.AddBot(table_id=table_id))
    await ana.settle()
    late = Client(hub.connect("127.0.0.1", code, "SHA256:dani"))
    late.send(p.ClaimName(name=code))
    await late.settle()
    late.send(p.ClaimName(name="dani"))
    await late.settle()
    seated = late.of(p.Seated)[-1]
    assert seated.table_id == table_id and seated.seat is None  # watching
    other = await join(hub, "ZZZZ22")  # shaped like a code, but no table has it
    assert other.of(p.Welcome)[-1].name == "ZZZZ22"
