"""A front end on a real nats-server: what its sessions send reaches the host in order, also
when they connect while a new host is taking over; a change of host keeps the sessions and
attaches them to the new one."""
from __future__ import annotations

import asyncio
import contextlib
from typing import AsyncIterator

import protocol as p
from protocol.bus import (ATTACH_CHECK_MAX, AttachCheck, ConnAttach, ConnClosed, ConnOpened, HangUp, PresenceEntry, ResumeCode,
                          Unattached, conn_id_batches, decode_bus)
from server.cluster.bus import CONN_HEADER, HUB_SUBJECT, Bus, BusOptions, front_subject, hub_subject, settle
from server.cluster.front import FrontEnd
from server.cluster.lobby_host import HostGateway
from server.lobby.messages import Attached, Opened
from server.link import Closed
from server.cluster.names import NameMirror
from server.cluster.order import MOVE_HEADER, SEQ_HEADER
from server.cluster.table_seq import TABLE_SEQ_HEADER, TABLES_KEPT, TableSeqs
from server.cluster.natsd import NatsServer
from tests.cluster.fake_hub import RecordingHub
from tests.cluster.procs import until


@contextlib.asynccontextmanager
async def front_and_host(nats_server: NatsServer
                         ) -> AsyncIterator[tuple[FrontEnd, Bus, Bus, list[tuple[str | None, bytes]]]]:
    """A started front end ("front-1") and its bus, a bus as the host ("host-1", or any other
    the front end is told of), and what reaches the hosts' subjects: (the connection header,
    the data)."""
    bus = await Bus.connect(nats_server.url, BusOptions(), owner="front-1")
    host = await Bus.connect(nats_server.url, BusOptions(), owner="host-1")
    names = await NameMirror.open(bus)
    front = FrontEnd(bus, names)
    got: list[tuple[str | None, bytes]] = []

    async def seen(msg: object) -> None:
        headers = getattr(msg, "headers", None) or {}
        got.append((headers.get(CONN_HEADER), getattr(msg, "data")))

    try:
        await host.nc.subscribe(HUB_SUBJECT + ".*", cb=seen)  # (whichever host the front end sends to)
        await settle(host.nc)
        await front.start()
        yield front, bus, host, got
    finally:
        await front.stop()
        await names.close()
        await bus.close()
        await host.close()


async def test_a_session_opened_without_a_host_waits_for_the_next(nats_server: NatsServer) -> None:
    async with front_and_host(nats_server) as (front, bus, host, got):
        link = front.connect("10.0.0.1", "ana", None)  # no host yet: it waits
        link.send(p.encode(p.ClaimName(name="ana")))
        # Nothing goes to a host meanwhile: proved below, where the opening comes first of all
        # and the claim after it, once a host is known.
        assert got == []
        front.host_changed("host-1")
        for _ in range(1500):  # up to 15 s on a loaded machine
            if len(got) >= 2:
                break
            await asyncio.sleep(0.01)
        opened = decode_bus(got[0][1])
        assert got[0][0] is None and isinstance(opened, ConnOpened) and opened.username == "ana"
        assert got[1] == (str(link.conn_id), p.encode(p.ClaimName(name="ana")))
        # What the host sends reaches the session; its hang-up ends it.
        await host.nc.publish(front_subject("front-1"), p.encode(p.Pong(n=7)),
                              headers={CONN_HEADER: str(link.conn_id)})
        assert p.decode(await asyncio.wait_for(link.receive(), 5) or b"") == p.Pong(n=7)
        await host.nc.publish(front_subject("front-1"), p.encode(HangUp(conn_id=link.conn_id)))
        assert await asyncio.wait_for(link.receive(), 5) is None
        # A change of host: the sessions stay, are told, and are attached to the next host
        # with what the old one said of them; what they send meanwhile waits behind that.
        beto = front.connect("10.0.0.2", "beto", None)
        cris = front.connect("10.0.0.3", "cris", "SHA256:cris")
        for message in (PresenceEntry(conn_id=beto.conn_id, front="front-1", name="beto", table_id="t1", seat=1),
                        ResumeCode(conn_id=beto.conn_id, code="ABCDEF"),
                        ResumeCode(conn_id=beto.conn_id + 999, code="GHJKLM")):  # not a session of it
            await host.nc.publish(front_subject("front-1"), p.encode(message))
        seated = p.encode(p.Seated(table_id="t1", seat=1, code="PRIV23"))  # a private table's
        await host.nc.publish(front_subject("front-1"), seated,
                              headers={CONN_HEADER: str(beto.conn_id), SEQ_HEADER: "1", MOVE_HEADER: "1"})
        await settle(host.nc)
        assert await asyncio.wait_for(beto.receive(), 5) == seated

        def opened(conn_id: int) -> bool:
            return any(header is None and isinstance(m := decode_bus(data), ConnOpened) and m.conn_id == conn_id
                       for header, data in list(got))

        # What went to host-1 (beto's and cris's openings, the last of it) has reached it,
        # so that what is heard from here on went to the next host
        await until(lambda: opened(beto.conn_id) and opened(cris.conn_id))
        got.clear()
        front.host_changed(None)  # the old host's lease ran out; no new one yet
        for link in (beto, cris):
            assert p.decode(await asyncio.wait_for(link.receive(), 5) or b"") == p.Notice(code="reattaching")
        beto.send(p.encode(p.SendChat(text="sigo aca")))
        # It waits: proved below, where it reaches the next host after beto's attachment.
        assert got == [] and not beto.closed
        front.host_changed("host-2")
        for _ in range(1500):
            if len(got) >= 3:
                break
            await asyncio.sleep(0.01)
        messages = {(header, type(m).__name__): m for header, data in got
                    for m in [decode_bus(data) if header is None else p.decode(data)]}
        assert messages[(None, "ConnAttach")] == ConnAttach(
            conn_id=beto.conn_id, front="front-1", ip="10.0.0.2", username="beto", fingerprint=None,
            name="beto", table_id="t1", seat=1, resume="ABCDEF", code="PRIV23")
        assert messages[(None, "ConnOpened")].conn_id == cris.conn_id  # never named: opened again
        assert [m for (header, _), m in messages.items() if header == str(beto.conn_id)] == [p.SendChat(text="sigo aca")]
        assert [h for h, _ in got].index(str(beto.conn_id)) > 0  # after its attachment
        attached = next(i for i, (header, data) in enumerate(got)
                        if header is None and isinstance(decode_bus(data), ConnAttach))
        assert [h for h, _ in got].index(str(beto.conn_id)) > attached


async def test_a_host_that_claimed_the_lobby_again_gets_the_sessions_attached_again(nats_server: NatsServer) -> None:
    """The host stepped down (its lease lost in a NATS outage) and took the lobby again before
    this front end looked: the same process, a later claim, a new lobby that knows none of the
    sessions. They are attached to it again, as to any new host (a terminal watching a table
    was never sent the table again after a power cut of every NATS node: make chaos)."""
    async with front_and_host(nats_server) as (front, bus, host, got):
        async def heard(count: int) -> None:
            for _ in range(1500):  # up to 15 s on a loaded machine
                if len(got) >= count:
                    return
                await asyncio.sleep(0.01)

        front.host_changed("host-1", since=100.0)
        ana = front.connect("10.0.0.1", "ana", None)
        await heard(1)
        assert isinstance(decode_bus(got[0][1]), ConnOpened)
        got.clear()
        front.host_changed("host-1", since=100.0)  # the same claim, renewed: nothing to do
        front.host_changed("host-1", since=250.0)  # claimed again: a new lobby
        assert p.decode(await asyncio.wait_for(ana.receive(), 5) or b"") == p.Notice(code="reattaching")
        await heard(1)
        await settle(bus.nc)
        await settle(host.nc)
        # Opened again once (never named), for the later claim alone
        assert [type(decode_bus(data)).__name__ for _, data in got] == ["ConnOpened"] and not ana.closed


async def test_a_table_frame_older_than_one_the_session_has_is_dropped(nats_server: NatsServer) -> None:
    """A table owner cut off by a partition sends, once it heals, views older than those of
    the process that took its table over (make chaos saw seq 262 after 264): a session never
    sees its table go back. Other tables, the same moment and frames of no table go on."""
    async with front_and_host(nats_server) as (front, bus, host, got):
        ana = front.connect("10.0.0.1", "ana", None)

        async def owner_sends(pong: int, stamp: str | None) -> None:
            headers = {CONN_HEADER: str(ana.conn_id)}
            if stamp is not None:
                headers[TABLE_SEQ_HEADER] = stamp
            await host.nc.publish(front_subject("front-1"), p.encode(p.Pong(n=pong)), headers=headers)

        sent = [(1, "264 t1"), (2, "262 t1"), (3, "264 t1"), (4, "3 t2"), (5, None), (6, "bad"),
                (7, "263 t1"), (8, "265 t1")]
        for pong, stamp in sent:
            await owner_sends(pong, stamp)
        await host.nc.publish(front_subject("front-1"), p.encode(p.Pong(n=99)), headers={CONN_HEADER: str(ana.conn_id)})
        received = []
        while not received or received[-1] != 99:
            received.append(p.decode(await asyncio.wait_for(ana.receive(), 5) or b"").n)  # type: ignore[union-attr]
        assert received == [1, 3, 4, 5, 6, 8, 99]


def test_table_seqs_pass_only_what_is_not_older_per_session_and_table() -> None:
    seqs = TableSeqs()
    assert seqs.fresh(1, "10 t1") and seqs.fresh(1, "10 t1") and not seqs.fresh(1, "9 t1")
    assert seqs.fresh(2, "9 t1")  # another session's own count
    for n in range(2, 2 + TABLES_KEPT):  # the oldest table is forgotten past TABLES_KEPT
        assert seqs.fresh(1, f"1 t{n}")
    assert seqs.fresh(1, "9 t1")
    seqs.forget(2)
    assert seqs.fresh(2, "1 t1") and seqs.fresh(2, None) and seqs.fresh(2, "x t1") and seqs.fresh(2, "5")


@contextlib.asynccontextmanager
async def front_and_gateway(nats_server: NatsServer, hub: RecordingHub, presence: object = None
                            ) -> AsyncIterator[tuple[FrontEnd, HostGateway, Bus, Bus]]:
    """A front end ("front-1") and a lobby host's gateway ("host-1") over ``hub``, neither
    started; both stopped after. Their buses: the front end's, the host's."""
    bus = await Bus.connect(nats_server.url, BusOptions(), owner="front-1")
    host_bus = await Bus.connect(nats_server.url, BusOptions(), owner="host-1")
    gateway = HostGateway(host_bus, hub)  # type: ignore[arg-type]
    names = await NameMirror.open(bus)
    front = FrontEnd(bus, names, presence)  # type: ignore[arg-type]
    try:
        yield front, gateway, bus, host_bus
    finally:
        await front.stop()
        await gateway.stop()
        await names.close()
        await bus.close()
        await host_bus.close()


async def test_sessions_of_a_process_the_host_judged_gone_attach_to_it_again(nats_server: NatsServer) -> None:
    """Cut off from the other machines while its own NATS node still answered, a process
    cannot tell that the lobby host judged it gone and closed its sessions (make chaos: a
    partitioned machine's players stayed attached to nothing). The host says so when it
    closes them, and the front end asks it once it has taken its lapsed lease back; either
    way each session attaches to the host again with where it was, and its presence entry,
    which the host deleted, is written again."""
    hub = RecordingHub()
    posted = hub.posted
    written: list[PresenceEntry] = []

    class Presence:
        def start(self) -> None:
            pass

        async def stop(self) -> None:
            pass

        def put(self, entry: PresenceEntry) -> None:
            written.append(entry)

        def delete(self, _front: str, _conn_id: int) -> None:
            pass

    def hub_got(kind: type, conn_id: int) -> int:
        return sum(isinstance(m, kind) and getattr(m, "peer", m).conn_id == conn_id for m in posted)

    async with front_and_gateway(nats_server, hub, Presence()) as (front, gateway, bus, host_bus):
        await front.start()
        front.host_changed("host-1")
        ana = front.connect("10.0.0.1", "ana", None)  # its opening goes nowhere: the host is not listening yet
        await until(lambda: not front._queue)
        await settle(bus.nc)
        await gateway.start()
        beto = front.connect("10.0.0.2", "beto", None)
        # Not confirmed, ana's opening is sent again, before beto's (taken strictly in turn)
        await until(lambda: hub_got(Opened, ana.conn_id) == 1 and hub_got(Opened, beto.conn_id) == 1, 10)
        assert [m.peer.conn_id for m in posted if isinstance(m, Opened)] == [ana.conn_id, beto.conn_id]
        # The host loses ana (as a host that judged her process gone would)
        await host_bus.nc.publish(hub_subject("host-1"), p.encode(ConnClosed(conn_id=ana.conn_id)))
        await until(lambda: hub_got(Closed, ana.conn_id) == 1)
        where = PresenceEntry(conn_id=beto.conn_id, front="front-1", name="beto", table_id="t1", seat=1)
        for _ in range(2):  # said twice, written once
            await host_bus.nc.publish(front_subject("front-1"), p.encode(where))
        await settle(host_bus.nc)
        await until(lambda: written == [where])

        # Its lease ran out and was taken back: the host is asked, and ana, whom it does not
        # hold, is opened again; beto, whom it holds, is left alone.
        front.lease_renewed(0)  # (no lapse: nothing to ask)
        front.lease_renewed(1)
        await until(lambda: hub_got(Opened, ana.conn_id) == 2)
        assert p.decode(await asyncio.wait_for(ana.receive(), 5) or b"") == p.Notice(code="reattaching")
        assert beto.queued == 0 and not beto.closed

        # The host judges the process gone and closes both: told, they attach to it again.
        await gateway.drop_dead_fronts(lambda front_id: _answer(front_id != "front-1"))
        assert hub_got(Closed, ana.conn_id) == 2 and hub_got(Closed, beto.conn_id) == 1
        await until(lambda: hub_got(Opened, ana.conn_id) == 3 and hub_got(Attached, beto.conn_id) == 1)
        attached = next(m for m in posted if isinstance(m, Attached))
        assert (attached.name, attached.table_id, attached.seat) == ("beto", "t1", 1)
        assert set(gateway.links) == {ana.conn_id, beto.conn_id} and not ana.closed and not beto.closed
        await host_bus.nc.publish(front_subject("front-1"), p.encode(where))  # where it is, again
        await until(lambda: written == [where, where])
        # A word of a host the sessions are not attached to is ignored.
        await host_bus.nc.publish(front_subject("front-1"), p.encode(Unattached(host="host-0", conn_ids=(ana.conn_id,))))
        await settle(host_bus.nc)
        await settle(bus.nc)
        assert hub_got(Opened, ana.conn_id) == 3


async def _answer(value: bool) -> bool:
    return value


def test_a_front_ends_sessions_are_named_in_bounded_messages() -> None:
    ids = list(range(1, 2 * ATTACH_CHECK_MAX + 2))
    batches = conn_id_batches(ids)
    assert [len(b) for b in batches] == [ATTACH_CHECK_MAX, ATTACH_CHECK_MAX, 1]
    assert [i for b in batches for i in b] == ids and conn_id_batches([]) == []
    for batch in batches:  # each one a valid message
        assert decode_bus(p.encode(AttachCheck(front="front-1", conn_ids=batch))) == AttachCheck(front="front-1",
                                                                                                 conn_ids=batch)


async def test_what_the_host_sent_a_front_end_that_missed_it_is_sent_again_in_order(nats_server: NatsServer) -> None:
    """NATS delivers at most once: a host frame published while the front end could not get it
    (here: not subscribed yet; in life, its connection moving to another NATS node) is sent
    again, and the frames after it wait for it, so the session gets all of them, in order,
    once (before, the first was lost for good: a lost welcome left a player with no lobby)."""
    async with front_and_gateway(nats_server, RecordingHub()) as (front, gateway, bus, host_bus):
        await gateway.start()
        front.host_changed("host-1")
        ana = front.connect("10.0.0.1", "ana", None)  # (its opening waits: the front end is not started)
        await host_bus.nc.publish(hub_subject("host-1"), p.encode(ConnOpened(conn_id=ana.conn_id, front="front-1",
                                                                             ip="10.0.0.1", username="ana")))
        await until(lambda: ana.conn_id in gateway.links)
        gateway.links[ana.conn_id].deliver(p.encode(p.Pong(n=1)))  # nobody listens yet: lost
        await settle(host_bus.nc)
        await front.start()
        gateway.links[ana.conn_id].deliver(p.encode(p.Pong(n=2)))
        gateway.links[ana.conn_id].deliver(p.encode(p.Pong(n=3)))
        got = [p.decode(await asyncio.wait_for(ana.receive(), 10) or b"") for _ in range(3)]
        assert got == [p.Pong(n=1), p.Pong(n=2), p.Pong(n=3)]
        await settle(bus.nc)
        assert ana.queued == 0  # nothing twice
