"""The lobby's lists in cluster mode: the lobby host writes the table directory bucket,
each front end feeds its own sessions in the lobby from its watched copies (presence and
directory), and the host sends no list frame to any session in the lobby."""
from __future__ import annotations

import asyncio
from typing import Callable

import pytest
from nats.aio.msg import Msg

import protocol as p
from protocol.bus import DirectoryEntry, LobbyChatLine, LobbyView, PresenceEntry
from protocol.client import Client
from server.cluster.bus import (
    CONN_HEADER, FRONT_SUBJECT, LOBBY_CHAT_SUBJECT, Bus, BusOptions, front_subject, parse_conn_id, presence_key, settle,
)
from server.cluster.directory import DirectoryMirror, HostLists
from server.cluster.front import FrontEnd
from server.cluster.lobby_feed import LobbyFeed
from server.cluster.names import NameMirror
from server.cluster.natsd import NatsServer
from server.cluster.presence import PresenceMirror, PresenceWriter
from server.link import HubLink
from tests.cluster.procs import Proc, until
from tests.e2e import programs
from tui.model import LobbyModel

LIST_FRAMES = (p.LobbySnapshot, p.PlayerUpdated, p.PlayerLeft, p.TableUpdated, p.TableRemoved)



def _info(table_id: str, status: str = "waiting", seats: tuple[str | None, ...] = ("ana", None)) -> p.TableInfo:
    return p.TableInfo(table_id=table_id, title="mesa", variant="argentino", owner="ana", seats=seats,
                       options={}, status=status, bots=(False,) * len(seats))


class Session:
    """What one session of a front end is told, folded as the screens fold it."""

    def __init__(self, link: HubLink) -> None:
        self.link = link
        self.model = LobbyModel()
        self.got: list[p.Message] = []

    async def until(self, check: Callable[[LobbyModel], bool], timeout: float = 10.0) -> None:
        async with asyncio.timeout(timeout):
            while not check(self.model):
                data = await self.link.receive()
                assert data is not None, "hung up"
                message = p.decode(data)
                self.got.append(message)
                self.model.apply(message)


async def test_a_front_end_feeds_its_lobby_sessions_from_its_copies(nats_server: NatsServer) -> None:
    bus = await Bus.connect(nats_server.url, BusOptions(), owner="front-1")
    host = await Bus.connect(nats_server.url, BusOptions(), owner="host-1")
    names = await NameMirror.open(bus)
    presence = await PresenceMirror.open(bus)
    directory = await DirectoryMirror.open(bus)
    front = FrontEnd(bus, names, PresenceWriter(presence.kv))
    front.feed = LobbyFeed("front-1", presence, directory, front.deliver)
    subject = front_subject("front-1")
    lists = HostLists(directory.kv)  # the host's writer, without a gateway
    restored = asyncio.Event()
    lists.start(restored, set)
    try:
        await front.start()
        front.host_changed("host-1")
        # Someone on another process is online and a table is open before ana arrives
        other = PresenceEntry(conn_id=7, front="front-2", name="beto", guest=False)
        await presence.kv.put(presence_key("front-2", 7), p.encode(other))
        lists.table(_info("t000001"))
        await until(lambda: len(directory.tables()) == 1 and len(presence.entries()) == 1)
        ana = Session(front.connect("10.0.0.1", "ana", None))
        me = PresenceEntry(conn_id=ana.link.conn_id, front="front-1", name="ana")
        chat = (p.ChatLine(sender="beto", text="hola", ts=1),)
        # The host: her entry, then she is in the lobby (as HostLists.entered sends them)
        await host.nc.publish(subject, p.encode(me))
        await host.nc.publish(subject, p.encode(LobbyView(conn_id=ana.link.conn_id, chat=chat)))
        await ana.until(lambda m: bool(m.players))
        snapshot = ana.got[-1]
        assert isinstance(snapshot, p.LobbySnapshot)
        assert {pl.name for pl in snapshot.players} == {"ana", "beto"}  # herself included
        assert [t.table_id for t in snapshot.tables] == ["t000001"] and snapshot.chat == chat
        # News from the same copies: a table's status, a new one, someone arriving and going
        lists.table(_info("t000001", "playing", ("ana", "beto")))
        lists.table(_info("t000002"))
        await ana.until(lambda m: m.tables["t000001"].status == "playing" and "t000002" in m.tables)
        cris = PresenceEntry(conn_id=3, front="front-3", name="cris", rating=12.5)
        await presence.kv.put(presence_key("front-3", 3), p.encode(cris))
        await ana.until(lambda m: "cris" in m.players)
        assert ana.model.players["cris"].rating == 12.5
        lists.table_removed("t000002")
        await presence.kv.delete(presence_key("front-3", 3))
        await ana.until(lambda m: "cris" not in m.players and "t000002" not in m.tables)
        # The same name on two sessions (beto coming back through another process): the
        # old one's end does not take him off the list
        again = PresenceEntry(conn_id=8, front="front-3", name="beto", guest=False, table_id="t000001")
        await presence.kv.put(presence_key("front-3", 8), p.encode(again))
        await ana.until(lambda m: m.players["beto"].table_id == "t000001")
        await presence.kv.delete(presence_key("front-2", 7))
        lists.table(_info("t000003"))  # a marker: news in order after the delete
        await ana.until(lambda m: "t000003" in m.tables)
        assert "beto" in ana.model.players
        assert p.PlayerLeft(name="beto") not in ana.got
        # She sits at a table: no more lobby news for her
        await host.nc.publish(subject, p.encode(LobbyView(conn_id=ana.link.conn_id, in_lobby=False)))
        await host.nc.publish(subject, p.encode(p.Pong(n=1)), headers={CONN_HEADER: str(ana.link.conn_id)})
        await ana.until(lambda m: isinstance(ana.got[-1], p.Pong))
        lists.table(_info("t000004"))
        await presence.kv.put(presence_key("front-3", 3), p.encode(cris))
        await until(lambda: len(directory.tables()) == 3 and len(presence.entries()) == 3)
        await host.nc.publish(subject, p.encode(p.Pong(n=2)), headers={CONN_HEADER: str(ana.link.conn_id)})
        await ana.until(lambda m: ana.got[-1] == p.Pong(n=2))
        assert not any(isinstance(m, LIST_FRAMES) for m in ana.got[ana.got.index(p.Pong(n=1)):])
        # Back in the lobby: the lists as they are now
        await host.nc.publish(subject, p.encode(LobbyView(conn_id=ana.link.conn_id)))
        await ana.until(lambda m: "t000004" in m.tables and "cris" in m.players)
        # A stale table of an earlier host goes once this one's tables are all back
        await directory.kv.put("t000009", p.encode(DirectoryEntry(table=_info("t000009"))))
        await ana.until(lambda m: "t000009" in m.tables)
        restored.set()
        await ana.until(lambda m: "t000009" not in m.tables)
        assert set(ana.model.tables) == {"t000001", "t000003", "t000004"}
    finally:
        await lists.stop()
        await front.stop()
        for mirror in (directory, presence, names):
            await mirror.close()
        await bus.close()
        await host.close()


async def test_a_malformed_directory_value_is_dropped(nats_server: NatsServer) -> None:
    bus = await Bus.connect(nats_server.url, BusOptions(), owner="reader")
    try:
        mirror = await DirectoryMirror.open(bus)
        seen: list[tuple[str, p.TableInfo | None]] = []
        mirror.changed = lambda key, info: seen.append((key, info))
        kv = mirror.kv
        good = DirectoryEntry(table=_info("t000001"))
        await kv.put("junk", b"\xc1\x00")  # not msgpack
        await kv.put("t000002", p.encode(p.Ping(n=1)))  # a client's message, not a bus one
        await kv.put("t000003", p.encode(good))  # under another table's id
        too_long = p.encode(DirectoryEntry(table=_info("t000004", status="waiting" * 3)))
        await kv.put("t000004", too_long)  # a status beyond its bound
        await kv.put("t000001", p.encode(good))
        # The watch applies the puts in order, one after the other: once the last (the valid
        # one) is in the copy, every malformed one before it has been seen and dropped.
        await until(lambda: bool(mirror.tables()), timeout=30)
        assert mirror.tables() == [good.table] and seen == [("t000001", good.table)]
        assert bus.dropped >= 4
        await kv.put("t000001", p.encode(good))  # the same again (a new host): no news
        await kv.delete("t000001")
        await until(lambda: not mirror.tables())
        assert seen == [("t000001", good.table), ("t000001", None)]
        await mirror.close()
    finally:
        await bus.close()


class Frames:
    """Every frame the lobby host sends to a session (on the front ends' subjects)."""

    def __init__(self) -> None:
        self.to: list[tuple[int, p.Message]] = []

    async def seen(self, msg: Msg) -> None:
        conn = msg.headers.get(CONN_HEADER) if msg.headers else None
        if conn is not None:
            self.to.append((parse_conn_id(conn) or 0, p.decode(msg.data)))


async def _lobby(client: Client, model: LobbyModel, check: Callable[[LobbyModel], bool],
                 timeout: float = 15.0) -> None:
    async with asyncio.timeout(timeout):
        while not check(model):
            model.apply(await client.receive())


@pytest.mark.e2e
async def test_one_lobby_over_processes_fed_by_watches_with_no_list_frames_on_the_bus(
        nats_server: NatsServer, cluster: list[Proc]) -> None:
    p1, p2, p3 = cluster
    spy = await Bus.connect(nats_server.url, BusOptions(), owner="test-spy")
    frames = Frames()
    await spy.nc.subscribe(f"{FRONT_SUBJECT}.>", cb=frames.seen)
    chat_lines: list[LobbyChatLine] = []

    async def said(message: p.Message, _msg: Msg) -> None:
        if isinstance(message, LobbyChatLine):
            chat_lines.append(message)

    await spy.subscribe(LOBBY_CHAT_SUBJECT, said)
    await settle(spy.nc)
    where = await PresenceMirror.open(spy)
    ana, = await programs.connect(p2.port, "ana")  # watches the lobby from the second process
    clients = [ana]
    seen = LobbyModel()
    try:
        # Someone names himself on another process: he appears in her list
        beto, = await programs.connect(p3.port, "beto")
        clients.append(beto)
        await _lobby(ana, seen, lambda m: "beto" in m.players)
        # He creates a table there: it shows in her lobby, waiting, then playing
        table_id = await programs.table_of(beto, 2, options={"target": 15, "match_games": 1})
        # His own screens get it in order: created, seated, then the table itself
        mine = LobbyModel()
        await _lobby(beto, mine, lambda m: m.table_id == table_id and table_id in m.tables)
        assert mine.tables[table_id].seats == ("beto", None)
        await _lobby(ana, seen, lambda m: table_id in m.tables)
        assert seen.tables[table_id].status == "waiting"
        await _lobby(ana, seen, lambda m: m.players["beto"].table_id == table_id)
        cris, = await programs.connect(p1.port, "cris")
        clients.append(cris)
        await cris.send(p.JoinTable(table_id=table_id))
        await _lobby(ana, seen, lambda m: seen.tables[table_id].status == "playing")
        assert seen.tables[table_id].seats == ("beto", "cris")
        # Both leave (bots play on), nobody is left: the table is gone from her list
        for client in (beto, cris):
            await client.send(p.LeaveTable(table_id=table_id))
        await _lobby(ana, seen, lambda m: table_id not in m.tables)
        # Back in the lobby, beto's lists come from his own process's copies, him included
        back = LobbyModel()
        await _lobby(beto, back, lambda m: m.table_id is None and "beto" in m.players and "ana" in m.players)
        # A lobby chat line: one message on the bus, to every named session on every process
        await cris.send(p.SendChat(text="hola a todos"))
        for client, model in ((ana, seen), (beto, back), (cris, LobbyModel())):
            await _lobby(client, model, lambda m: any(line.text == "hola a todos" for line in m.chat))
        # He quits: he disappears from her list
        await beto.close()
        await _lobby(ana, seen, lambda m: "beto" not in m.players)
        # No list frame crossed the bus to a session in the lobby; a table's own news went
        # from the host only to the people at it. (Everything the host sent the front ends
        # so far has reached the spy: its answer to a later ping from ana has.)
        ids = {e.name: e.conn_id for e in where.entries()}
        await ana.send(p.Ping(n=5))
        await until(lambda: (ids["ana"], p.Pong(n=5)) in frames.to)
        assert ids["ana"] not in {conn_id for conn_id, m in frames.to if isinstance(m, LIST_FRAMES)}
        kinds = {type(m) for _, m in frames.to if isinstance(m, LIST_FRAMES)}
        assert kinds <= {p.TableUpdated}, kinds
        assert all(m.table.table_id == table_id for _, m in frames.to if isinstance(m, p.TableUpdated))
        assert any(isinstance(m, p.TableUpdated) for _, m in frames.to)  # the spy did see frames
        assert not any(isinstance(m, p.Chat) for _, m in frames.to)  # no chat line per session
        assert [line.text for line in chat_lines] == ["hola a todos"]
    finally:
        await programs.close_all(clients)
        await where.close()
        await spy.close()
