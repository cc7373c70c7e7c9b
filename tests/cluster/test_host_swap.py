"""The lobby host killed (SIGKILL) while players on the other processes are in the lobby, at
a table a non-host process runs, and watching it: their sessions stay open, are told the
lobby is coming back, and are attached to the new host as they were (still named, still
seated, still watching); the hand goes on, lobby chat works, and the player whose process
died reconnects as before. Forged attachments on the bus get nothing the state does not
confirm. The players are programs on the `truco` subsystem."""
from __future__ import annotations

import asyncio
import re
import signal
import time

import asyncssh
import nats
import pytest

import protocol as p
from protocol.bus import ConnAttach, LeaseValue
from protocol.client import Client, Closed
from server.cluster.bus import HOST_LEASE, LEASE_BUCKET, Bus, BusOptions, hub_subject, settle
from server.cluster.host_record import HOST_KEY
from server.cluster.jsstore import META_BUCKET
from server.cluster.natsd import NatsServer
from server.cluster.presence import PresenceMirror
from tests.cluster.procs import HOST, Proc, taken_by_host, wait_for_host
from tests.e2e import programs
from tests.e2e.helpers import lobby_client

pytestmark = pytest.mark.e2e



async def _notice(client: Client, timeout: float = 15.0) -> str:
    return (await client.wait_for(p.Notice, timeout)).code


async def _conn_of(url: str, name: str) -> int:
    """A session's connection id, from the presence bucket."""
    reader = await Bus.connect(url, BusOptions(), owner="test-reader")
    try:
        mirror = await PresenceMirror.open(reader)
        try:
            for _ in range(200):
                found = [e.conn_id for e in mirror.entries() if e.name == name]
                if found:
                    return found[0]
                await asyncio.sleep(0.05)
        finally:
            await mirror.close()
    finally:
        await reader.close()
    raise AssertionError(f"{name} is not in the presence bucket")


async def _forge(url: str, table_id: str, known_conn: int, host: str) -> None:
    """Attachments nobody's state confirms, straight onto the host's subject."""
    hostile = await nats.connect(url)
    try:
        forged = [
            # a guest claiming beto's seat with a made-up code
            ConnAttach(conn_id=2**40 + 1, front="nobody", ip="10.9.9.9", username="x", name="mallory",
                       table_id=table_id, seat=1, resume="ZZZZZZ"),
            # ana's name (her key reserved it) from another key, claiming her seat
            ConnAttach(conn_id=2**40 + 2, front="nobody", ip="10.9.9.9", username="x", name="ana",
                       fingerprint="SHA256:notanaskey", table_id=table_id, seat=0),
            # a connection the host has already
            ConnAttach(conn_id=known_conn, front="nobody", ip="10.9.9.9", username="x", name="zed"),
        ]
        for message in forged:
            await hostile.publish(hub_subject(host), p.encode(message))
        await hostile.publish(hub_subject(host), p.encode(forged[0])[:-3])  # cut short: malformed
        await settle(hostile)
    finally:
        await hostile.close()


async def test_the_host_killed_the_other_processes_sessions_stay_where_they_were(
        nats_server: NatsServer, cluster: list[Proc]) -> None:
    p1, p2, p3 = cluster
    key = asyncssh.generate_private_key("ssh-ed25519")
    ana, = await programs.connect(p2.port, "ana", client_keys=[key])  # a key holder, seated
    beto, cris = await programs.connect(p3.port, "beto", "cris")  # a guest seated; one in the lobby
    eve, = await programs.connect(p2.port, "eve")  # watches the table
    dora, = await programs.connect(p1.port, "dora")  # on the host's own process
    clients = [ana, beto, cris, eve, dora]
    try:
        table_id = await programs.table_of(ana, 2, options={"flor": False})
        await beto.send(p.JoinTable(table_id=table_id))
        dealt = [await programs.update(c, programs.dealt) for c in (ana, beto)]
        await eve.send(p.WatchTable(table_id=table_id))
        assert (await eve.wait_for(p.Seated)).table_id == table_id
        await p1.wait_line(re.compile(rf"table {table_id} runs on {re.escape(p2.owner)}"))
        mover = next(i for i, u in enumerate(dealt) if u.seat in u.waiting and u.view.turn == u.seat)
        card = next(a.card for a in dealt[mover].view.legal if a.call == "play")
        await (ana, beto)[mover].act(table_id, "play", card=card)  # the hand is under way
        after = [await programs.update(c, lambda u: bool(u.view.current_trick)) for c in (ana, beto)]
        seen = {name: (u.view.own_cards, u.waiting) for name, u in zip(("ana", "beto"), after)}
        # The guest's seat code has reached his front end, and the host has confirmed what
        # the sessions on the other processes sent it
        await taken_by_host(nats_server.url, p1.owner, (beto, p3.owner), (ana, p2.owner))

        await p1.stop(signal.SIGKILL)  # the lobby host (the table runs on ana's process)
        # Everyone on a live process is told the lobby is coming back; nobody is hung up
        for client in (ana, beto, cris, eve):
            assert await _notice(client) == "reattaching"
        with pytest.raises(Closed):  # dora's process died with the host
            while True:
                await dora.receive(15)
        new_host = await wait_for_host(p2, p3)
        # Still seated: the new host seats them again, and the table comes back to both
        # screens as it was, without reconnecting
        for name, client, seat in (("ana", ana, 0), ("beto", beto, 1)):
            assert await client.wait_for(p.Seated, 20) == p.Seated(table_id=table_id, seat=seat), name
            back = await programs.update(client, lambda u: u.table_id == table_id and programs.dealt(u), 20,
                                         peek=True)
            assert (back.view.own_cards, back.waiting) == seen[name], name
        # Still watching
        assert (await eve.wait_for(p.Seated, 20)).table_id == table_id
        watched = await programs.update(eve, lambda u: u.table_id == table_id, 20)
        assert watched.seat is None and watched.view.own_cards == ()
        # Still named, in the lobby, with the others online; lobby chat reaches a seated player
        # (dora, whose process died, leaves the list once its lease has run out too)
        await programs.Online(cris).until(lambda names: names == {"ana", "beto", "cris", "eve"}, 20)
        await programs.round_trip(cris, ana, "sigue el salón")
        # The player whose process died reconnects through a survivor, as before
        dora, = await programs.connect(p3.port, "dora")
        clients[-1] = dora
        await programs.round_trip(dora, cris, "volví")
        # Forged attachments get nothing: ana and beto keep their seats and play on
        await _forge(nats_server.url, table_id, known_conn=await _conn_of(nats_server.url, "ana"),
                     host=new_host.owner)
        await new_host.wait_line(re.compile(r"host: connection \d+ refused \(known"))

        def hand_two(u: p.TableUpdate) -> bool:
            return u.view.deal_no > after[0].view.deal_no

        await asyncio.gather(programs.play(ana, table_id, hand_two, seed=1, timeout=90),
                             programs.play(beto, table_id, hand_two, seed=2, timeout=90))
        assert not any("Traceback" in line for proc in (p2, p3) for line in proc.lines)
    finally:
        await programs.close_all(clients)


async def _one_on_each(cluster: list[Proc]) -> list[Client]:
    """ana on the second process, beto on the third, dora on the host's; once all are online."""
    p1, p2, p3 = cluster
    clients: list[Client] = []
    try:
        for proc, name in ((p2, "ana"), (p3, "beto"), (p1, "dora")):
            clients += await programs.connect(proc.port, name)
        await programs.Online(clients[1]).until(lambda names: {"ana", "beto", "dora"} <= names)
    except BaseException:
        await programs.close_all(clients)
        raise
    return clients


async def test_the_host_stopped_cleanly_only_its_own_sessions_end(cluster: list[Proc]) -> None:
    """Ctrl-C on the lobby host: its own players are told the server is shutting down; those
    of the other processes are told the lobby is coming back, and it does."""
    p1, p2, p3 = cluster
    clients = ana, beto, dora = await _one_on_each(cluster)
    try:
        await p1.stop(signal.SIGINT)
        assert await _notice(dora) == "shutdown"
        for client in (ana, beto):
            assert await _notice(client) == "reattaching"
        await wait_for_host(p2, p3)
        await programs.Online(beto).until(lambda names: names == {"ana", "beto"}, 20)
        await programs.round_trip(ana, beto, "seguimos", timeout=15)
    finally:
        await programs.close_all(clients)


async def test_a_players_screen_says_the_lobby_is_coming_back_and_goes_on(cluster: list[Proc]) -> None:
    """Over SSH with a terminal, in Spanish: the notice, then the same lobby screen works."""
    p1, p2, p3 = cluster
    ana = await lobby_client(p2.port, "ana", env={"LANG": "es_AR.UTF-8"}, lobby_word="Salón")
    beto, = await programs.connect(p3.port, "beto")
    try:
        await ana.wait_for("beto", 10)
        await p1.stop(signal.SIGKILL)
        await ana.wait_for("Reconectando con el salón", 15)
        assert await _notice(beto) == "reattaching"
        await beto.wait_for(p.LobbySnapshot, 15)  # beto is attached to the new host
        await beto.send(p.SendChat(text="hola ana"))
        await ana.wait_for("hola ana", 15)
        await ana.press("c")  # the chat opens (its input redrawn focused)
        ana.send("de vuelta\r")
        while (await beto.wait_for(p.Chat, 15)).line.text != "de vuelta":
            pass
        assert not ana.closed.is_set()
    finally:
        await ana.close()
        await programs.close_all([beto])


async def _all_go_on_under_a_new_host(cluster: list[Proc], clients: list[Client]) -> None:
    """The old host stepped down: every session is told the lobby comes back, sees everyone
    online, chats both ways; the old host did not stop, and a host was elected again."""
    ana, beto, dora = clients
    for client in clients:
        assert await _notice(client) == "reattaching"
    await programs.Online(beto).until(lambda names: {"ana", "beto", "dora"} <= names, 30)
    for sender, viewer in ((ana, beto), (dora, ana), (beto, dora)):
        await programs.round_trip(sender, viewer, f"seguimos {sender.welcome.name if sender.welcome else ''}",
                                  timeout=20)
    assert cluster[0].process.returncode is None  # it did not stop
    assert sum(len(proc.saw(HOST)) for proc in cluster) >= 2  # a host was elected again


async def test_a_host_whose_lease_another_took_steps_down_and_the_cluster_goes_on(
        nats_server: NatsServer, cluster: list[Proc]) -> None:
    """The host lease is written by someone else under the host (as a process that claimed it
    while the host was cut off would): the host steps down instead of stopping, the cluster
    elects a host again, and every session, the old host's own included, goes on."""
    p1, p2, p3 = cluster
    clients = ana, beto, dora = await _one_on_each(cluster)
    try:
        nc = await nats.connect(nats_server.url)
        try:
            kv = await nc.jetstream().key_value(LEASE_BUCKET)
            await kv.put(HOST_LEASE, p.encode(LeaseValue(key=HOST_LEASE, owner="elsewhere", since=time.time())))
        finally:
            await nc.close()
        await p1.wait_line(re.compile(r"lost the host lease; it steps down"))
        await _all_go_on_under_a_new_host(cluster, clients)
    finally:
        await programs.close_all(clients)


async def test_a_host_that_takes_back_a_lease_another_held_meanwhile_loads_the_lobby_again(
        nats_server: NatsServer, cluster: list[Proc]) -> None:
    """While the host was cut off (a partition of its machine), another process claimed the
    lobby, ran it, and lost the lease in turn; the key is empty again and the host takes it
    back. Its lobby missed what the other did, so it steps down and the lobby is loaded
    again from the store (server/cluster/host_record.py); every session goes on."""
    p1, p2, p3 = cluster
    clients = ana, beto, dora = await _one_on_each(cluster)
    try:
        nc = await nats.connect(nats_server.url)
        try:
            js = nc.jetstream()
            meta = await js.key_value(META_BUCKET)  # what the other host wrote as it claimed
            await meta.put(HOST_KEY, p.encode(LeaseValue(key=HOST_LEASE, owner="elsewhere", since=time.time(),
                                                         ready=True)))
            await (await js.key_value(LEASE_BUCKET)).delete(HOST_LEASE)  # its lease ran out
        finally:
            await nc.close()
        await p1.wait_line(re.compile(r"held again"))
        await p1.wait_line(re.compile(r"elsewhere ran the lobby while this process's host lease had run out"))
        await _all_go_on_under_a_new_host(cluster, clients)
    finally:
        await programs.close_all(clients)
