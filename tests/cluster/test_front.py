"""A front end on a real nats-server: what its sessions send reaches the host in order, also
when they connect while a new host is taking over; a change of host ends the old sessions."""
from __future__ import annotations

import asyncio

import protocol as p
from protocol.bus import ConnOpened, HangUp, decode_bus
from server.cluster.bus import CONN_HEADER, HUB_SUBJECT, Bus, BusOptions, front_subject
from server.cluster.front import FrontEnd
from server.cluster.names import NameMirror
from server.cluster.natsd import NatsServer


async def test_a_session_opened_without_a_host_waits_for_the_next(nats_server: NatsServer) -> None:
    bus = await Bus.connect(nats_server.url, BusOptions(), owner="front-1")
    host = await Bus.connect(nats_server.url, BusOptions(), owner="host-1")
    names = await NameMirror.open(bus)
    front = FrontEnd(bus, names)
    got: list[tuple[str | None, bytes]] = []

    async def seen(msg: object) -> None:
        headers = getattr(msg, "headers", None) or {}
        got.append((headers.get(CONN_HEADER), getattr(msg, "data")))

    try:
        await host.nc.subscribe(HUB_SUBJECT, cb=seen)
        await host.nc.flush()
        await front.start()
        link = front.connect("10.0.0.1", "ana", None)  # no host yet: it waits
        link.send(p.encode(p.ClaimName(name="ana")))
        await asyncio.sleep(0.2)
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
        # A change of host ends the sessions of the old one.
        other = front.connect("10.0.0.2", "beto", None)
        front.host_changed("host-2")
        assert await asyncio.wait_for(other.receive(), 5) is None
    finally:
        await front.stop()
        await names.close()
        await bus.close()
        await host.close()
