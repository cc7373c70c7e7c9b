"""The lobby host's side of the lists in cluster mode (``Hub.keep_lists_elsewhere``): no list
frame goes to a session in the lobby; the tables go to the directory's writer; a session is
said to enter the lobby where one process would send it the snapshot, and to leave it before
its ``Seated``; a table's own news still reaches the people at it, after their ``Seated``."""
from __future__ import annotations

import asyncio
from typing import AsyncIterator

import pytest

import protocol as p
from server.config import ServerConfig
from server.lobby import Hub
from server.lobby.state import Conn
from server.variants import validate_options, variant_infos
from tests.server.test_hub import Client

ENTERED, LEFT = p.Pong(n=1), p.Pong(n=0)  # markers in a session's own frames, in order
LIST_FRAMES = (p.LobbySnapshot, p.PlayerUpdated, p.PlayerLeft, p.TableUpdated, p.TableRemoved)


class Lists:
    """Records what the hub hands over; marks each session's frames where it is told."""

    def __init__(self) -> None:
        self.tables: dict[str, p.TableInfo] = {}
        self.removed: list[str] = []

    def table(self, info: p.TableInfo) -> None:
        self.tables[info.table_id] = info

    def table_removed(self, table_id: str) -> None:
        self.tables.pop(table_id, None)
        self.removed.append(table_id)

    def entered(self, conn: Conn, chat: tuple[p.ChatLine, ...]) -> None:
        conn.link.deliver(p.encode(ENTERED))

    def left(self, conn: Conn) -> None:
        conn.link.deliver(p.encode(LEFT))


@pytest.fixture
async def hub() -> AsyncIterator[tuple[Hub, Lists]]:
    hub = Hub(ServerConfig(), variant_infos(), validate_options)
    lists = Lists()
    hub.keep_lists_elsewhere(lists)
    await hub.load()
    task = asyncio.create_task(hub.run())
    yield hub, lists
    task.cancel()


async def join(hub: Hub, name: str) -> Client:
    client = Client(hub.connect("127.0.0.1", name, None))
    client.send(p.ClaimName(name=name))
    await client.settle()
    return client


def kinds(client: Client) -> list[type]:
    return [type(m) if m not in (ENTERED, LEFT) else m for m in client.inbox]  # type: ignore[misc]


async def test_the_hub_sends_no_lists_and_says_where_each_session_is(hub: tuple[Hub, Lists]) -> None:
    hub_, lists = hub
    ana, beto = await join(hub_, "ana"), await join(hub_, "beto")
    await ana.settle()
    assert kinds(ana) == [p.Welcome, ENTERED] and kinds(beto) == [p.Welcome, ENTERED]
    # ana opens a table: she leaves the lobby before she is seated, then sees her table
    ana.inbox.clear()
    ana.send(p.CreateTable(variant="argentino", players=2, options={}))
    await ana.settle()
    table_id = ana.of(p.TableCreated)[0].table_id
    assert kinds(ana) == [p.TableCreated, LEFT, p.Seated, p.TableUpdated]
    assert ana.of(p.TableUpdated)[0].table.seats == ("ana", None)
    assert lists.tables[table_id].status == "waiting"
    await beto.settle()
    assert not any(isinstance(m, LIST_FRAMES) for m in beto.inbox)  # the lobby's: from his front end
    # beto sits: the game starts; its own news reaches both, the list has it playing
    beto.send(p.JoinTable(table_id=table_id))
    await beto.settle()
    await ana.settle()
    assert kinds(beto)[2:5] == [LEFT, p.Seated, p.TableUpdated]
    assert lists.tables[table_id].status == "playing"
    assert ana.of(p.TableUpdated)[-1].table.seats == ("ana", "beto")
    # cris watches it: as a seat, he leaves the lobby first
    cris = await join(hub_, "cris")
    cris.send(p.WatchTable(table_id=table_id))
    await cris.settle()
    assert [k for k in kinds(cris) if k in (ENTERED, LEFT, p.Seated, p.TableUpdated)][:4] == [
        ENTERED, LEFT, p.Seated, p.TableUpdated]
    assert lists.tables[table_id].spectators == 1
    # Both leave: back in the lobby (said before their Seated), the table gone from the list
    for client in (ana, beto):
        await client.settle()
        client.inbox.clear()  # the game's frames so far
        client.send(p.LeaveTable(table_id=table_id))
        await client.settle()
        got = [k for k in kinds(client) if k in (ENTERED, LEFT, p.Seated)]
        assert got == [ENTERED, p.Seated], kinds(client)
        assert client.of(p.Seated)[0].table_id is None
    assert table_id in lists.removed and table_id not in lists.tables
    # The table gone, its spectator is back in the lobby, said before his Seated
    await cris.settle()
    assert [k for k in kinds(cris) if k in (ENTERED, LEFT, p.Seated)][-2:] == [ENTERED, p.Seated]
    assert cris.of(p.Seated)[-1].table_id is None
    for client in (ana, beto):
        await client.settle()
        assert not any(isinstance(m, (p.LobbySnapshot, p.PlayerUpdated, p.PlayerLeft, p.TableRemoved))
                       for m in client.inbox)
