"""Presence in the cluster's key-value bucket: each front end writes where its own named
sessions are and deletes them when they end; every process keeps a watched copy, which
drops malformed entries; a front end killed outright has its entries dropped once its lease
is gone, and a new lobby host after a kill -9 finds the survivors' entries there."""
from __future__ import annotations

import signal

import pytest

import protocol as p
from protocol.bus import HangUp, PresenceEntry
from server.cluster.bus import Bus, BusOptions, front_subject, presence_key
from server.cluster.front import FrontEnd
from server.cluster.names import NameMirror
from server.cluster.natsd import NatsServer
from server.cluster.presence import PresenceMirror, PresenceWriter
from tests.cluster.procs import LEASE_TTL, Proc, until
from tests.e2e import programs



def _where(mirror: PresenceMirror) -> dict[str, tuple[str | None, int | None]]:
    return {e.name: (e.table_id, e.seat) for e in mirror.entries()}


async def test_the_copy_keeps_valid_entries_and_drops_malformed_ones(nats_server: NatsServer) -> None:
    bus = await Bus.connect(nats_server.url, BusOptions(), owner="reader")
    try:
        mirror = await PresenceMirror.open(bus)
        kv = mirror.kv
        ana = PresenceEntry(conn_id=5, front="front-a", name="ana", guest=False)
        await kv.put("junk.1", b"\xc1\x00")  # not msgpack
        await kv.put("client.2", p.encode(p.Ping(n=1)))  # a client's message, not a bus one
        await kv.put("front-b.9", p.encode(ana))  # an entry under another session's key
        await kv.put("front-a.6", p.encode(ana).replace(b"ana", b"a\x00a"))  # a bad name
        await kv.put(presence_key("front-a", 5), p.encode(ana))
        # The watch applies the puts in order, one after the other: once the last (the valid
        # one) is in the copy, every malformed one before it has been seen and dropped.
        await until(lambda: bool(mirror.entries()), timeout=30)
        assert mirror.entries() == [ana]
        assert bus.dropped >= 3
        assert mirror.fronts() == {"front-a"}
        # Deleting the key takes the entry out of every copy
        await kv.delete(presence_key("front-a", 5))
        await until(lambda: not mirror.entries())
        await mirror.close()
    finally:
        await bus.close()


async def test_a_front_end_writes_its_own_sessions_and_deletes_them_when_they_end(
        nats_server: NatsServer) -> None:
    bus = await Bus.connect(nats_server.url, BusOptions(), owner="front-1")
    host = await Bus.connect(nats_server.url, BusOptions(), owner="host-1")
    names = await NameMirror.open(bus)
    seen = await PresenceMirror.open(host)
    front = FrontEnd(bus, names, PresenceWriter(seen.kv))
    subject = front_subject("front-1")
    try:
        await front.start()
        front.host_changed("host-1")
        ana = front.connect("10.0.0.1", "ana", None)
        beto = front.connect("10.0.0.2", "beto", "SHA256:beto")
        # What the host says of them (and of sessions that are not this front end's)
        for entry in (PresenceEntry(conn_id=ana.conn_id, front="front-1", name="ana"),
                      PresenceEntry(conn_id=beto.conn_id, front="front-1", name="beto", guest=False,
                                    table_id="t000001", seat=1),
                      PresenceEntry(conn_id=ana.conn_id + 1000, front="front-1", name="ghost"),
                      PresenceEntry(conn_id=ana.conn_id, front="front-2", name="other")):
            await host.nc.publish(subject, p.encode(entry))
        await until(lambda: len(seen.entries()) == 2, timeout=30)
        assert _where(seen) == {"ana": (None, None), "beto": ("t000001", 1)}
        # ana sits down somewhere: her entry is replaced. It comes after the ghost's and the
        # other front end's on the same subject, and is written after them: once it is in the
        # copy, those two would be as well had they been taken.
        await host.nc.publish(subject, p.encode(PresenceEntry(conn_id=ana.conn_id, front="front-1",
                                                              name="ana", table_id="t000002")))
        await until(lambda: _where(seen).get("ana") == ("t000002", None), timeout=30)
        assert _where(seen) == {"ana": ("t000002", None), "beto": ("t000001", 1)}
        ana.close()  # her session ends: her entry goes
        await until(lambda: set(_where(seen)) == {"beto"})
        # The host hangs up on beto: his goes too
        await host.nc.publish(subject, p.encode(HangUp(conn_id=beto.conn_id)))
        await until(lambda: not seen.entries())
    finally:
        await front.stop()
        await seen.close()
        await names.close()
        await bus.close()
        await host.close()


@pytest.mark.e2e
async def test_the_cluster_knows_who_is_online_where_also_after_kills(
        nats_server: NatsServer, cluster: list[Proc]) -> None:
    p1, p2, p3 = cluster
    reader = await Bus.connect(nats_server.url, BusOptions(), owner="test-reader")
    mirror = await PresenceMirror.open(reader)
    ana, beto = await programs.connect(p2.port, "ana", "beto")
    cris, = await programs.connect(p3.port, "cris")
    clients = [ana, beto, cris]
    try:
        await until(lambda: set(_where(mirror)) == {"ana", "beto", "cris"})
        fronts = {e.name: e.front for e in mirror.entries()}
        assert fronts == {"ana": p2.owner, "beto": p2.owner, "cris": p3.owner}
        table_id = await programs.table_of(ana, 2)
        await until(lambda: _where(mirror)["ana"] == (table_id, 0))
        await beto.send(p.WatchTable(table_id=table_id))
        await until(lambda: _where(mirror)["beto"] == (table_id, None))
        # cris's process dies without a word: his entry goes once its lease is gone
        await p3.stop(signal.SIGKILL)
        await until(lambda: "cris" not in _where(mirror), LEASE_TTL + 10)
        # The lobby host dies: the sessions of the surviving front end are told (they stay:
        # test_host_swap.py), these leave and come back through it, see each other online,
        # and the bucket holds just them.
        await p1.stop(signal.SIGKILL)
        for client in clients[:2]:  # their front end saw the host go
            assert (await client.wait_for(p.Notice, 15)).code == "reattaching"
        await programs.close_all(clients)
        clients = []
        clients = await programs.connect(p2.port, "ana", "beto")
        await programs.Online(clients[0]).until(lambda names: names == {"ana", "beto"})
        await programs.Online(clients[1]).until(lambda names: names == {"ana", "beto"})
        await until(lambda: _where(mirror) == {"ana": (None, None), "beto": (None, None)})
        assert {e.front for e in mirror.entries()} == {p2.owner}
    finally:
        await programs.close_all(clients)
        await mirror.close()
        await reader.close()
