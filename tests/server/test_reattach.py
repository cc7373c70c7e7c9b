"""A new lobby host takes the live sessions of one that died (cluster mode: the front ends send
them again, ``Attached``). Driven here on one process: the old host is a hub stopped, the new
one a hub started on the same store, which believes only what its state confirms
(server/lobby/reattach.py). The cluster itself: tests/cluster/test_host_swap.py."""
from __future__ import annotations

import asyncio
import dataclasses
from pathlib import Path

import protocol as p
from server.config import ServerConfig
from server.lobby import Hub
from server.lobby.messages import Attached
from server.link import Frame, HubLink, Peer
from server.store import Store
from server.table import TableActor
from server.table import messages as tm
from server.variants import validate_options, variant_infos
from tests.server.test_hub import Client, join
from tests.server.test_reconnect import (SLOW, last_update, settle_all, start_hub, stop_hub, two_at_a_table,
                                         until_updates)


async def attach(hub: Hub, conn_id: int, name: str, fp: str | None = None, table_id: str | None = None,
                 seat: int | None = None, resume: str = "", code: str = "") -> Client:
    link = HubLink(hub.post, conn_id)
    hub.post(Attached(Peer(conn_id, "10.0.0.1", name, fp), link, name, table_id, seat, resume, code))
    client = Client(link)
    await client.settle()
    return client


async def test_the_new_host_gives_back_what_its_state_confirms_and_nothing_else(tmp_path: Path) -> None:
    path = tmp_path / "db.sqlite3"
    hub, store, task = await start_hub(path, seat_hold=60)
    ana, beto = await two_at_a_table(hub)  # ana holds a key, beto is a guest
    table_id = ana.of(p.TableCreated)[0].table_id
    eve = await join(hub, "eve")
    eve.send(p.WatchTable(table_id=table_id))
    await until_updates(eve)
    code = last_update(beto).resume_code
    cards = {"ana": last_update(ana).view.own_cards, "beto": last_update(beto).view.own_cards}
    await stop_hub(hub, store, task)  # the old host is gone; its sessions live on elsewhere

    hub, store, task = await start_hub(path, seat_hold=60)
    try:
        ana = await attach(hub, 101, "ana", "SHA256:ana", table_id, 0)
        beto = await attach(hub, 102, "beto", None, table_id, 1, code)
        eve = await attach(hub, 103, "eve", None, table_id)
        mallory = await attach(hub, 104, "mallory", None, table_id, 1, "ZZZZZZ")  # a made-up code
        fake = await attach(hub, 105, "ana", "SHA256:other", table_id, 0)  # ana's name, another key
        cris = await attach(hub, 106, "cris")  # was in the lobby
        await asyncio.wait_for(hub.restored.wait(), 10)
        await until_updates(ana, beto, eve)
        everyone = (ana, beto, eve, mallory, fake, cris)
        await settle_all(*everyone)
        assert not any(c.of(p.Welcome) for c in everyone)  # screens stay where they are
        # The seats come back to the key and to the code the table knows, at the same hand
        for name, client, seat in (("ana", ana, 0), ("beto", beto, 1)):
            assert client.of(p.Seated)[-1] == p.Seated(table_id=table_id, seat=seat), name
            assert last_update(client).seat == seat and last_update(client).view.own_cards == cards[name]
        # The spectator watches again
        assert eve.of(p.Seated)[-1].table_id == table_id and eve.of(p.Seated)[-1].seat is None
        assert last_update(eve).seat is None and last_update(eve).view.own_cards == ()
        # A made-up code gets no seat: named, back in the lobby, told why
        assert mallory.of(p.Seated)[-1] == p.Seated() and not mallory.of(p.TableUpdate)
        assert [e.code for e in mallory.of(p.Error)] == ["not_back"] and mallory.of(p.LobbySnapshot)
        # Another key's claim on a reserved name is refused, as a ClaimName would be
        assert [r.reason for r in fake.of(p.NameRefused)] == ["reserved_key"] and not fake.of(p.Seated)
        # The one in the lobby gets its lists; the others see who is back
        players = {pl.name for pl in cris.of(p.LobbySnapshot)[-1].players}
        assert {"ana", "beto", "eve", "mallory", "cris"} <= players and "cris" in {
            m.player.name for m in mallory.of(p.PlayerUpdated)}
        # The same key coming back through yet another session: that later one won already
        again = await attach(hub, 107, "ana", "SHA256:ana")
        assert again.of(p.Notice) == [p.Notice(code="replaced")] and again.link.closed
        # ...and the attached players play on: a card reaches both
        mover = next(c for c in (ana, beto) if last_update(c).seat in last_update(c).waiting)
        card = next(a.card for a in last_update(mover).view.legal if a.call == "play")
        mover.send(p.TableAction(table_id=table_id, call="play", card=card, cid=1))
        for client in (ana, beto):  # (the move waits for its synced commit: not a few loop turns)
            await client.until(lambda c: bool(c.of(p.TableUpdate)) and bool(last_update(c).view.current_trick))
        for client in (ana, beto):
            assert not client.link.closed and not client.of(p.Error)
            assert [c for _, c in last_update(client).view.current_trick] == [card]
    finally:
        await stop_hub(hub, store, task)


async def test_a_private_tables_spectator_watches_again_with_its_code_and_only_so(tmp_path: Path) -> None:
    path = tmp_path / "db.sqlite3"
    hub, store, task = await start_hub(path, seat_hold=60)
    ana = await join(hub, "ana", "SHA256:ana")
    ana.send(p.CreateTable(variant="argentino", players=2, options={"flor": False}, private=True))
    await ana.settle()
    created = ana.of(p.TableCreated)[0]
    table_id, code = created.table_id, created.code
    beto = await join(hub, "beto", "SHA256:beto")
    beto.send(p.JoinByCode(code=code))
    await until_updates(ana, beto)
    await stop_hub(hub, store, task)

    hub, store, task = await start_hub(path, seat_hold=60)
    try:
        dora = await attach(hub, 201, "dora", None, table_id, None, code=code)
        zed = await attach(hub, 202, "zed", None, table_id, None, code="ZZZZZZ")  # not the code
        await asyncio.wait_for(hub.restored.wait(), 10)
        await until_updates(dora)
        await settle_all(dora, zed)
        assert dora.of(p.Seated)[-1].table_id == table_id and last_update(dora).seat is None
        assert zed.of(p.Seated)[-1] == p.Seated() and not zed.of(p.TableUpdate)
        assert [e.code for e in zed.of(p.Error)] == ["not_back"]
    finally:
        await stop_hub(hub, store, task)


async def _room_of_four(hub: Hub) -> tuple[str, list[Client]]:
    """ana (a key) opens a waiting room of four; beto, cris and dora (guests) sit."""
    ana = await join(hub, "ana", "SHA256:ana")
    ana.send(p.CreateTable(variant="argentino", players=4, options={"flor": False}, owner_starts=True))
    await ana.settle()
    table_id = ana.of(p.TableCreated)[0].table_id
    guests = [await join(hub, name) for name in ("beto", "cris", "dora")]
    for guest in guests:
        guest.send(p.JoinTable(table_id=table_id))
        await guest.settle()
        assert guest.of(p.Seated)[-1].table_id == table_id
    return table_id, [ana, *guests]


async def test_a_waiting_rooms_players_get_their_seats_back_and_the_room_starts(tmp_path: Path) -> None:
    path = tmp_path / "db.sqlite3"
    hub, store, task = await start_hub(path, seat_hold=60)
    table_id, _ = await _room_of_four(hub)
    codes = [o.resume if o is not None else "" for o in hub.tables[table_id].seats]
    assert codes[0] == "" and all(codes[1:]) and len(set(codes[1:])) == 3  # each guest's seat has its code
    await stop_hub(hub, store, task)

    hub, store, task = await start_hub(path, seat_hold=60)
    hub.expect_sessions_back(0.5)  # a cluster's new host (short, for the test)
    try:
        # beto comes back while the room is still being restored, ana and cris after it;
        # dora's session never comes back, and mallory makes a code up
        beto = await attach(hub, 302, "beto", None, table_id, 1, codes[1])
        await asyncio.wait_for(hub.restored.wait(), 10)
        ana = await attach(hub, 301, "ana", "SHA256:ana", table_id, 0)
        cris = await attach(hub, 303, "cris", None, table_id, 2, codes[2])
        mallory = await attach(hub, 304, "mallory", None, table_id, 3, "ZZZZZZ")
        back = (ana, beto, cris)
        await settle_all(*back, mallory)
        assert beto.of(p.TableUpdated)[0].table.status == "restoring"  # he came back before the room
        for seat, client in enumerate(back):
            assert client.of(p.Seated)[-1].table_id == table_id and client.of(p.Seated)[-1].seat == seat
            assert not client.of(p.Error)
        assert mallory.of(p.Seated)[-1] == p.Seated() and [e.code for e in mallory.of(p.Error)] == ["not_back"]
        # dora's seat is held for the moments her session could come back in, then free
        room = hub.tables[table_id]
        assert room.seats[3] is not None and room.seats[3].away

        async def dora_gone() -> None:
            while hub.tables[table_id].seats[3] is not None:
                await settle_all(ana)
        await asyncio.wait_for(dora_gone(), 10)
        # The room goes on: its owner adds a bot and starts the game, dealt to all three
        ana.send(p.AddBot(table_id=table_id, seat=3))
        await settle_all(*back)
        ana.send(p.StartTable(table_id=table_id))
        await until_updates(*back)
        for seat, client in enumerate(back):
            assert last_update(client).seat == seat and len(last_update(client).view.own_cards) == 3
        # A guest's seat code stays the one it had in the waiting room
        assert last_update(beto).resume_code == codes[1]
    finally:
        await stop_hub(hub, store, task)


async def test_after_a_restart_a_guests_waiting_room_seat_is_free_at_once(tmp_path: Path) -> None:
    """One process: a guest never saw their seat's code, and their session ended with the
    server, so nothing is held for them (only the key holder's seat is)."""
    path = tmp_path / "db.sqlite3"
    hub, store, task = await start_hub(path, seat_hold=60)
    table_id, _ = await _room_of_four(hub)
    await stop_hub(hub, store, task)
    hub, store, task = await start_hub(path, seat_hold=60)
    try:
        await asyncio.wait_for(hub.restored.wait(), 10)
        await asyncio.sleep(0.05)
        seats = hub.tables[table_id].seats
        assert seats[0] is not None and seats[0].away and seats[1:] == [None, None, None]
    finally:
        await stop_hub(hub, store, task)


async def test_a_card_played_before_the_table_is_back_is_played_once_it_is(tmp_path: Path) -> None:
    """The front end sends what a player did while there was no host right behind their
    attachment: at a table still being restored it waits for the table, then is played."""
    path = tmp_path / "db.sqlite3"
    hub, store, task = await start_hub(path, seat_hold=60)
    ana, beto = await two_at_a_table(hub)
    table_id = ana.of(p.TableCreated)[0].table_id
    code = last_update(beto).resume_code
    mover_seat = next(u.seat for u in (last_update(ana), last_update(beto)) if u.seat in u.waiting)
    before = (last_update(ana), last_update(beto))[mover_seat]
    card = next(a.card for a in before.view.legal if a.call == "play")
    await stop_hub(hub, store, task)

    hub, store, task = await start_hub(path, restore=False, seat_hold=60)  # the table comes back below
    try:
        ana = await attach(hub, 401, "ana", "SHA256:ana", table_id, 0)
        beto = await attach(hub, 402, "beto", None, table_id, 1, code)
        assert table_id not in hub.tables  # not back yet
        (ana, beto)[mover_seat].send(p.TableAction(table_id=table_id, call="play", card=card, cid=77))
        await settle_all(ana, beto)
        assert table_id not in hub.tables and not (ana.of(p.Error) or beto.of(p.Error))  # it waits
        hub.restore_tables()
        await asyncio.wait_for(hub.restored.wait(), 10)

        async def played() -> None:
            while not all(c.of(p.TableUpdate) and last_update(c).view.current_trick for c in (ana, beto)):
                await settle_all(ana, beto)
        await asyncio.wait_for(played(), 10)
        for client in (ana, beto):
            assert [c for _, c in last_update(client).view.current_trick] == [card]
            assert not client.of(p.Error)
    finally:
        await stop_hub(hub, store, task)



async def test_a_session_not_given_back_its_place_is_away_at_the_tables_owner(tmp_path: Path) -> None:
    """In a cluster, a table's owner keeps the place of each session the old host had there
    for a few seconds, sending it the table's frames meanwhile, until the new host seats it
    again or says it is away. A session the new host does not give its place back is away
    at once, or as soon as its table is restored: never left to the owner's grace period.
    What the hub posts to the tables' actors is what reaches their owners on the bus."""
    path = tmp_path / "db.sqlite3"
    hub, store, task = await start_hub(path, seat_hold=60)
    ana, beto = await two_at_a_table(hub)
    table_id = ana.of(p.TableCreated)[0].table_id
    await stop_hub(hub, store, task)

    posted: list[tuple[str, object]] = []

    class Recorded(TableActor):
        def post(self, message: tm.TableMessage) -> None:
            posted.append((self.table_id, message))
            super().post(message)

    store = Store(path)
    await store.open()
    hub = Hub(dataclasses.replace(ServerConfig(), seat_hold=60), variant_infos(), validate_options, store,
              pace=SLOW, actor_factory=Recorded)
    await hub.load(restore=False)  # the table comes back below, as the server's once it listens
    task = asyncio.create_task(hub.run())
    try:
        # While the table is being restored: a made-up seat code, and a name no one may use
        # from a key that holds a seat there, which then claims its own name
        mallory = await attach(hub, 501, "mallory", None, table_id, 1, "ZZZZZZ")
        ana = await attach(hub, 502, "\x1b[2J", "SHA256:ana", table_id, 0)
        assert table_id not in hub.tables and [r.reason for r in ana.of(p.NameRefused)] == ["invalid"]
        ana.send(p.ClaimName(name="ana"))
        hub.restore_tables()
        await asyncio.wait_for(hub.restored.wait(), 10)
        await settle_all(mallory, ana)
        # Once it is back: a made-up code again, and a spectator's place it may not have
        zed = await attach(hub, 503, "zed", None, table_id, 1, "YYYYYY")
        await settle_all(zed, ana)
        aways = sorted(m.conn_id for t, m in posted if t == table_id and isinstance(m, tm.Away))
        assert aways == [501, 503]  # not ana: she has her seat back
        assert ana.of(p.Seated)[-1] == p.Seated(table_id=table_id, seat=0) and last_update(ana).seat == 0
        for refused in (mallory, zed):
            assert refused.of(p.Seated)[-1] == p.Seated() and [e.code for e in refused.of(p.Error)] == ["not_back"]
    finally:
        await stop_hub(hub, store, task)


async def test_a_seating_command_sent_again_to_a_new_host_is_not_done_twice(tmp_path: Path) -> None:
    """What the lobby host that died never confirmed, a front end sends the next one again
    (server/cluster/held_input.py), marked as sent before: the dead host may have done it.
    A command that changes who sits where is then not done a second time (a second bot
    would take a friend's seat, a swap would be undone) and the player is told to look and
    do it again; the same command sent afresh is done, and a chat line sent again is said
    once (by its origin)."""
    hub, store, task = await start_hub(tmp_path / "db.sqlite3", seat_hold=60)
    try:
        ana = await join(hub, "ana", "SHA256:ana")
        beto = await join(hub, "beto")
        ana.send(p.CreateTable(variant="argentino", players=4, options={"flor": False}, turn_timer=0))
        await ana.until(lambda c: bool(c.of(p.TableCreated)))
        table_id = ana.of(p.TableCreated)[0].table_id

        def bots(client: Client) -> int:
            infos = [m.table for m in client.of(p.TableUpdated) if m.table.table_id == table_id]
            return sum(infos[-1].bots) if infos else 0

        add_bot = p.encode(p.AddBot(table_id=table_id))
        hub.post(Frame(ana.link.conn_id, add_bot, "front-1:7"))  # taken by the host that died
        await beto.until(lambda c: bots(c) == 1)
        hub.post(Frame(ana.link.conn_id, add_bot, "front-1:7", again=True))  # sent again to this one
        await ana.until(lambda c: p.Notice(code="reattach_dropped") in c.inbox)
        chat = p.encode(p.SendChat(text="sigo aca"))
        for again in (False, True):
            hub.post(Frame(ana.link.conn_id, chat, "front-1:8", again=again))
        hub.post(Frame(ana.link.conn_id, add_bot, "front-1:9"))  # a new press: done
        await beto.until(lambda c: bots(c) == 2)
        await settle_all(ana, beto)
        assert bots(beto) == 2  # not 3: the one sent again was not done
        assert [m.line.text for m in beto.of(p.Chat)] == ["sigo aca"]
    finally:
        await stop_hub(hub, store, task)


async def test_a_key_holder_attached_to_a_new_host_gets_back_whom_they_ignore(tmp_path: Path) -> None:
    """The ignore list is kept for a key; a session given to a new lobby host has it read again
    (the host also needs it: quick play never seats the two together)."""
    from protocol import moderation as m
    from server.moderation.book import Moderation

    path = tmp_path / "db.sqlite3"
    for round_ in range(2):
        store = Store(path)
        await store.open()
        hub = Hub(ServerConfig(), variant_infos(), validate_options, store, moderation=Moderation(records=store))
        await hub.load()
        task = asyncio.create_task(hub.run())
        try:
            if round_ == 0:
                ana = await join(hub, "ana", "SHA256:ana")
                ana.send(m.Ignore(name="mallory"))
                await ana.settle()
                assert ana.of(m.Listening)[-1].ignored == ("mallory",)
                continue
            ana = await attach(hub, 101, "ana", "SHA256:ana")

            async def told() -> None:
                while not ana.of(m.Listening):
                    await ana.settle()
                    await asyncio.sleep(0.01)

            await asyncio.wait_for(told(), 10)
            assert ana.of(m.Listening)[-1].ignored == ("mallory",)
        finally:
            await stop_hub(hub, store, task)


async def test_a_table_being_restored_is_watched_once_it_is_back(tmp_path: Path) -> None:
    """While a new host (or a restarted server) restores a table, the lobby still lists it:
    a player who asks to watch it then watches it once it is back, instead of being told it is
    gone (make chaos: three terminals that pressed w at that moment were told so, and waited)."""
    path = tmp_path / "db.sqlite3"
    hub, store, task = await start_hub(path, seat_hold=60)
    ana, _beto = await two_at_a_table(hub)
    table_id = ana.of(p.TableCreated)[0].table_id
    await stop_hub(hub, store, task)

    hub, store, task = await start_hub(path, restore=False, seat_hold=60)  # the table comes back below
    try:
        eve = await join(hub, "eve")
        eve.send(p.WatchTable(table_id=table_id))
        await settle_all(eve)
        assert not eve.of(p.Error) and not eve.of(p.Seated)  # it waits for the table
        hub.restore_tables()
        await asyncio.wait_for(hub.restored.wait(), 10)
        await until_updates(eve)
        assert eve.of(p.Seated)[-1] == p.Seated(table_id=table_id) and last_update(eve).seat is None
        assert not eve.of(p.Error)
    finally:
        await stop_hub(hub, store, task)
