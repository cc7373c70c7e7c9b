"""The lobby actor, driven the way sessions drive it: encoded frames through links."""
from __future__ import annotations

import asyncio
import dataclasses
from typing import Callable

import pytest

import protocol as p
from server.config import ServerConfig
from server.lobby import Hub
from server.link import HubLink
from server.store import Store
from server.variants import validate_options, variant_infos


class Client:
    def __init__(self, link: HubLink) -> None:
        self.link = link
        self.inbox: list[p.Message] = []

    def send(self, message: p.Message) -> None:
        self.link.send(p.encode(message))

    async def settle(self) -> None:
        await asyncio.sleep(0)
        for _ in range(20):
            await asyncio.sleep(0)
        while self.link.queued:
            data = await self.link.receive()
            if data is not None:
                self.inbox.append(p.decode(data))

    def of(self, kind: type) -> list:
        return [m for m in self.inbox if isinstance(m, kind)]

    async def until(self, check: Callable[["Client"], bool], timeout: float = 15.0) -> None:
        """Settle until ``check`` holds: for what the hub does after awaiting the store's
        writer (a synced commit takes milliseconds), which a few loop turns do not cover."""
        deadline = asyncio.get_running_loop().time() + timeout
        await self.settle()
        while not check(self):
            if asyncio.get_running_loop().time() > deadline:
                raise AssertionError(f"not reached in {timeout} s; last messages: {self.inbox[-5:]}")
            await asyncio.sleep(0.01)
            await self.settle()


async def join(hub: Hub, name: str, fp: str | None = None, ip: str = "127.0.0.1") -> Client:
    client = Client(hub.connect(ip, name, fp))
    client.send(p.ClaimName(name=name))
    await client.settle()
    return client


async def test_claim_name_gives_welcome_and_snapshot(hub: Hub) -> None:
    ana = await join(hub, "ana")
    welcome = ana.of(p.Welcome)[0]
    assert welcome.name == "ana" and welcome.guest
    assert {v.name for v in welcome.variants} == {"argentino", "uruguayo", "paulista", "venezolano"}
    assert [pl.name for pl in ana.of(p.LobbySnapshot)[0].players] == ["ana"]


async def test_others_see_arrivals_and_departures(hub: Hub) -> None:
    ana = await join(hub, "ana")
    beto = await join(hub, "beto")
    await ana.settle()
    assert any(m.player.name == "beto" for m in ana.of(p.PlayerUpdated))
    beto.link.close()
    await ana.settle()
    assert ana.of(p.PlayerLeft)[-1].name == "beto"


@pytest.mark.parametrize(
    "name, reason", [("root", "reserved_word"), ("a b", "invalid"), ("[/", "invalid"), ("x" * 17, "invalid")]
)
async def test_unusable_names_are_refused_with_a_suggestion(hub: Hub, name: str, reason: str) -> None:
    c = await join(hub, name)
    refused = c.of(p.NameRefused)[0]
    assert refused.reason == reason
    assert refused.suggestion and refused.suggestion != name


async def test_guest_name_online_is_taken_ignoring_case(hub: Hub) -> None:
    await join(hub, "Ana")
    other = await join(hub, "ana")
    refused = other.of(p.NameRefused)[0]
    assert refused.reason == "taken" and refused.suggestion.lower() != "ana"


async def test_key_reserves_name_across_sessions_and_restarts(hub: Hub, tmp_path) -> None:
    first = await join(hub, "ana", "SHA256:key1")
    first.link.close()
    await first.settle()
    guest = await join(hub, "ana")
    assert guest.of(p.NameRefused)[0].reason == "reserved_key"
    thief = await join(hub, "ANA", "SHA256:key2")
    assert thief.of(p.NameRefused)[0].reason == "reserved_key"
    owner = await join(hub, "ana", "SHA256:key1")
    assert owner.of(p.Welcome)
    await hub.drain_writes()
    # A new hub on the same database still knows the reservation.
    assert hub.store is not None
    reloaded = Hub(ServerConfig(), variant_infos(), validate_options, hub.store)
    await reloaded.load()
    assert reloaded.reserved_fingerprint("ana") == "SHA256:key1"


async def test_same_key_logging_in_again_replaces_the_old_session(hub: Hub) -> None:
    old = await join(hub, "ana", "SHA256:k")
    new = await join(hub, "ana", "SHA256:k")
    await old.settle()
    assert new.of(p.Welcome)
    assert any(m.code == "replaced" for m in old.of(p.Notice))


async def test_chat_is_cleaned_and_broadcast(hub: Hub) -> None:
    ana = await join(hub, "ana")
    beto = await join(hub, "beto")
    ana.send(p.SendChat(text="hola \x1b]52;c;SGVsbG8=\x07 [b]x[/b] \u202e"))
    await beto.settle()
    line = beto.of(p.Chat)[-1].line
    assert line.sender == "ana"
    assert line.text == "hola ]52;c;SGVsbG8= [b]x[/b]"


async def test_chat_is_rate_limited(hub: Hub) -> None:
    ana = await join(hub, "ana")
    beto = await join(hub, "beto")
    for i in range(20):
        ana.send(p.SendChat(text=f"m{i}"))
    await ana.settle()
    await beto.settle()
    assert len(beto.of(p.Chat)) == hub.config.chat_burst
    assert any(e.code == "chat_rate" for e in ana.of(p.Error))


async def test_the_connections_of_one_address_share_a_chat_allowance(hub: Hub) -> None:
    """Eight connections from one address say no more than the address may (more connections
    buy a flooder nothing); a player from another address is not held back by them."""
    cfg = hub.config
    flooders = [await join(hub, f"flood{n}", ip="203.0.113.9") for n in range(8)]
    other = await join(hub, "ana", ip="198.51.100.7")
    listener = await join(hub, "eve", ip="192.0.2.1")
    for client in flooders:
        for i in range(cfg.chat_burst):
            client.send(p.SendChat(text=f"{client.link.conn_id}-{i}"))
    other.send(p.SendChat(text="hola"))
    for client in (*flooders, other):
        await client.settle()
    await listener.settle()
    said = [line.line.sender for line in listener.of(p.Chat)]
    assert len([s for s in said if s.startswith("flood")]) == cfg.chat_address_burst < 8 * cfg.chat_burst
    assert "ana" in said
    assert any(e.code == "chat_rate" for c in flooders for e in c.of(p.Error))


async def test_a_new_name_chats_slowly_for_its_first_minutes_and_a_known_key_does_not(tmp_path) -> None:
    store = Store(tmp_path / "slow.sqlite3")
    await store.open()
    config = dataclasses.replace(ServerConfig(), new_player_minutes=10.0, new_player_chat_burst=3)
    hub = Hub(config, variant_infos(), validate_options, store)
    await hub.load()
    task = asyncio.create_task(hub.run())
    try:
        first = await join(hub, "dora", "SHA256:" + "d" * 43)  # the key's first name: new
        first.link.close()
        guest, keyed, again = (await join(hub, "ana", ip="10.0.0.1"),
                               await join(hub, "beto", "SHA256:" + "b" * 43, ip="10.0.0.2"),
                               await join(hub, "dora", "SHA256:" + "d" * 43, ip="10.0.0.3"))  # dora's key: seen before
        listener = await join(hub, "eve")
        for client in (guest, keyed, again):
            for i in range(5):
                client.send(p.SendChat(text=f"{client.link.conn_id}-{i}"))
            await client.settle()
        await listener.settle()
        said = [line.line.sender for line in listener.of(p.Chat)]
        assert said.count("ana") == said.count("beto") == 3 and said.count("dora") == 5
        assert [e.code for e in guest.of(p.Error)] == ["chat_slow", "chat_slow"]
    finally:
        task.cancel()
        await hub.drain_writes()
        await store.close()


async def test_commands_before_a_name_are_refused(hub: Hub) -> None:
    c = Client(hub.connect("127.0.0.1", "x", None))
    c.send(p.SendChat(text="hi"))
    await c.settle()
    assert c.of(p.Error)[0].code == "no_name"


async def test_garbage_frames_get_errors_then_the_connection_is_dropped(hub: Hub) -> None:
    c = Client(hub.connect("127.0.0.1", "x", None))
    for _ in range(10):
        c.link.send(b"\xc1garbage")
    await asyncio.sleep(0.01)
    frames = []
    while c.link.queued:
        frames.append(await c.link.receive())
    assert frames[-1] is None  # hung up
    assert all(p.decode(f).code == "bad_frame" for f in frames[:-1])
    ana = await join(hub, "ana")  # and the hub still serves everyone else
    assert ana.of(p.Welcome)


async def test_create_join_leave_table(hub: Hub) -> None:
    ana = await join(hub, "ana")
    beto = await join(hub, "beto")
    ana.send(p.CreateTable(variant="argentino", players=2, options={"flor": False}, title="  la \x1b[31mmesa "))
    await ana.settle()
    created = ana.of(p.TableCreated)[0]
    table = ana.of(p.TableUpdated)[-1].table
    assert table.title == "la [31mmesa" and table.seats == ("ana", None) and table.status == "waiting"
    assert table.options["flor"] is False and table.options["target"] == 30  # defaults filled in
    beto.send(p.JoinTable(table_id=created.table_id))
    await beto.settle()
    await ana.settle()
    assert beto.of(p.Seated)[-1] == p.Seated(table_id=created.table_id, seat=1)
    assert ana.of(p.TableUpdated)[-1].table.status == "playing"  # every seat taken: the game starts
    ana.send(p.LeaveTable(table_id=created.table_id))
    beto.send(p.LeaveTable(table_id=created.table_id))
    await ana.settle()
    assert ana.of(p.TableRemoved)[-1].table_id == created.table_id


async def test_lobby_news_skips_players_at_tables_who_get_a_snapshot_on_return(hub: Hub) -> None:
    ana = await join(hub, "ana")
    ana.send(p.CreateTable(variant="argentino", players=2, options={"flor": False}))
    await ana.settle()
    table_id = ana.of(p.TableCreated)[0].table_id
    ana.inbox.clear()
    beto = await join(hub, "beto")  # an arrival while ana sits at her table
    await ana.settle()
    assert not ana.of(p.PlayerUpdated)  # lobby news is not sent to a table
    beto.send(p.JoinTable(table_id=table_id))
    await ana.settle()
    assert ana.of(p.TableUpdated)[-1].table.seats == ("ana", "beto")  # her own table's news is
    carla = await join(hub, "carla")
    carla.send(p.CreateTable(variant="argentino", players=2, options={"flor": False}))
    await carla.settle()
    await ana.settle()
    assert all(m.table.table_id == table_id for m in ana.of(p.TableUpdated))
    ana.send(p.LeaveTable(table_id=table_id))
    await ana.settle()
    back = ana.of(p.LobbySnapshot)[-1]  # back in the lobby: everything she missed
    assert {pl.name for pl in back.players} == {"ana", "beto", "carla"}
    assert len(back.tables) == 2
    assert ana.inbox.index(back) < ana.inbox.index(ana.of(p.Seated)[-1])


async def test_a_watcher_is_told_when_the_table_closes_because_everyone_left(hub: Hub) -> None:
    ana, beto, eve = await join(hub, "ana"), await join(hub, "beto"), await join(hub, "eve")
    ana.send(p.CreateTable(variant="argentino", players=2, options={"flor": False}))
    await ana.settle()
    table_id = ana.of(p.TableCreated)[0].table_id
    beto.send(p.JoinTable(table_id=table_id))
    await beto.settle()
    eve.send(p.WatchTable(table_id=table_id))
    await eve.settle()
    assert eve.of(p.Seated)[-1].table_id == table_id
    for player in (ana, beto):
        player.send(p.LeaveTable(table_id=table_id))
        await player.settle()
    await eve.settle()
    told = eve.of(p.Notice)
    assert [n.code for n in told] == ["watched_table_gone"]
    assert eve.of(p.Seated)[-1].table_id is None  # back in the lobby, after being told why
    assert eve.inbox.index(told[0]) < eve.inbox.index(eve.of(p.Seated)[-1])


async def test_private_table_needs_its_code(hub: Hub) -> None:
    ana = await join(hub, "ana")
    beto = await join(hub, "beto")
    ana.send(p.CreateTable(variant="argentino", players=4, options={}, private=True))
    await ana.settle()
    created = ana.of(p.TableCreated)[0]
    assert len(created.code) == p.CODE_LEN
    beto.send(p.JoinTable(table_id=created.table_id))
    beto.send(p.WatchTable(table_id=created.table_id))
    await beto.settle()
    assert [e.code for e in beto.of(p.Error)] == ["private", "private"]
    beto.send(p.JoinByCode(code=created.code.lower()))
    await beto.settle()
    assert beto.of(p.Seated)[-1].table_id == created.table_id
    # Whoever sits at a private table is told its code, to pass on while it waits (issue 13).
    assert ana.of(p.Seated)[-1].code == beto.of(p.Seated)[-1].code == created.code


async def test_a_public_table_has_no_code_to_pass_on(hub: Hub) -> None:
    ana = await join(hub, "ana")
    ana.send(p.CreateTable(variant="argentino", players=2, options={}))
    await ana.settle()
    assert ana.of(p.TableCreated)[0].code == ""
    assert ana.of(p.Seated)[-1].table_id is not None and ana.of(p.Seated)[-1].code == ""


@pytest.mark.parametrize(
    "command, code",
    [
        (p.CreateTable(variant="nope", players=2, options={}), "bad_table"),
        (p.CreateTable(variant="argentino", players=3, options={}), "bad_table"),
        (p.CreateTable(variant="argentino", players=2, options={"target": 99}), "bad_table"),
        (p.CreateTable(variant="argentino", players=2, options={"bogus": True}), "bad_table"),
        (p.CreateTable(variant="argentino", players=2, options={"flor": "yes"}), "bad_table"),
    ],
)
async def test_bad_tables_are_refused_with_the_reason(hub: Hub, command: p.CreateTable, code: str) -> None:
    ana = await join(hub, "ana")
    ana.send(command)
    await ana.settle()
    assert ana.of(p.Error)[-1].code == code
    assert not ana.of(p.TableCreated)


async def test_unimplemented_variant_cannot_be_opened() -> None:
    """A variant the catalog lists as coming soon is shown but cannot be opened."""
    soon = p.VariantInfo(name="futuro", title="Truco del futuro", player_counts=(2,), implemented=False)
    hub = Hub(ServerConfig(), (*variant_infos(), soon), validate_options)
    task = asyncio.create_task(hub.run())
    try:
        ana = await join(hub, "ana")
        assert "futuro" in {v.name for v in ana.of(p.Welcome)[0].variants}
        ana.send(p.CreateTable(variant="futuro", players=2, options={}))
        await ana.settle()
        assert ana.of(p.Error)[-1].code == "not_playable"
        assert not ana.of(p.TableCreated)
    finally:
        task.cancel()


async def test_a_session_that_stops_reading_is_dropped_without_hurting_others(hub: Hub, monkeypatch) -> None:
    import server.link

    monkeypatch.setattr(server.link, "OUTBOX_LIMIT", 30)
    sleeper = await join(hub, "sleeper")  # never reads again
    ana = await join(hub, "ana")
    for i in range(40):
        visitor = await join(hub, f"p{i}")  # every arrival and departure reaches the sleeper
        visitor.link.close()
        await ana.settle()
    assert any(isinstance(m, p.PlayerLeft) and m.name == "sleeper" for m in ana.inbox)
    assert sleeper.link.closed
    ana.send(p.Ping(n=1))
    await ana.settle()
    assert p.Pong(n=1) in ana.inbox


async def test_a_look_alike_of_a_name_online_or_reserved_is_refused(hub: Hub) -> None:
    await join(hub, "alice", "SHA256:k1")
    cyrillic = await join(hub, "Аlice")  # Cyrillic А
    assert cyrillic.of(p.NameRefused)[0].reason in ("taken", "reserved_key")
    keyed = await join(hub, "A1ice", "SHA256:k2")
    assert keyed.of(p.NameRefused)[0].reason == "reserved_key"
