"""One connection's frames from the lobby host and from a table's owner, in order at its front
end: a table frame waits for the lobby frame it follows, one made before the session moved
is dropped, and nothing waits for ever (server/cluster/order.py). First the rules alone, then
a front end on a real nats-server given the owner's frame before the host's (as a NATS
cluster may deliver them)."""
from __future__ import annotations

import asyncio

import pytest

import protocol as p
from server.cluster import order
from server.cluster.bus import CONN_HEADER, Bus, BusOptions, front_subject, settle
from server.cluster.front import FrontEnd
from server.cluster.names import NameMirror
from server.cluster.natsd import NatsServer
from server.cluster.order import (AFTER_HEADER, MOVE_HEADER, SEQ_HEADER, FrameOrder, StampBook, after_value,
                                  is_move, parse_after, parse_seq)
from tests.cluster.procs import until

SEATED = p.encode(p.Seated(table_id="t1", seat=0))
LOBBY = p.encode(p.Seated())


def _order() -> tuple[FrameOrder, list[bytes]]:
    got: list[bytes] = []
    return FrameOrder(lambda conn_id, data: got.append(data)), got


def test_a_moving_frame_is_told_from_its_bytes() -> None:
    assert is_move(SEATED) and is_move(LOBBY)
    assert not is_move(p.encode(p.Chat(line=p.ChatLine(sender="ana", text="seated", ts=1))))
    assert not is_move(p.encode(p.Pong(n=1)))


def test_stamps_are_read_strictly() -> None:
    assert parse_after(after_value(7, "host-1")) == (7, "host-1")
    assert parse_seq("12") == 12
    for junk in ("", "x", "-1", "1" * 20, "1.5"):
        assert parse_seq(junk) is None
    for junk in ("", "7", " host", "x host", "-3 host", "9" * 20 + " host"):
        assert parse_after(junk) is None


async def test_a_table_frame_waits_for_the_lobby_frame_it_follows() -> None:
    frames, got = _order()
    frames.host_frame(5, 1, True, SEATED)
    frames.owner_frame(5, 3, b"deal")  # overtook the host's frames 2 and 3
    frames.owner_frame(5, 1, b"next")  # behind it, though it follows frame 1 only
    assert got == [SEATED]
    frames.host_frame(5, 2, False, b"chat")
    assert got == [SEATED, b"chat"]
    frames.host_frame(5, 3, False, b"news")
    assert got == [SEATED, b"chat", b"news", b"deal", b"next"]
    frames.owner_frame(5, 3, b"play")  # nothing waits: at once
    assert got[-1] == b"play"


async def test_a_table_frame_made_before_the_player_moved_is_dropped() -> None:
    frames, got = _order()
    frames.host_frame(5, 3, True, SEATED)
    frames.owner_frame(5, 3, b"update")
    frames.host_frame(5, 4, True, LOBBY)  # back in the lobby
    frames.owner_frame(5, 3, b"late")  # the table's last frame, after it: not shown
    assert got == [SEATED, b"update", LOBBY]
    # One that waited when the move came is dropped too
    frames.owner_frame(5, 6, b"waits")
    frames.host_frame(5, 5, False, b"chat")
    frames.host_frame(5, 7, True, SEATED)
    assert got[-2:] == [b"chat", SEATED]
    # Other connections are not concerned
    frames.owner_frame(9, 0, b"theirs")
    assert got[-1] == b"theirs"


async def test_nothing_waits_for_ever(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(order, "HOLD_SECONDS", 0.05)
    frames, got = _order()
    frames.owner_frame(5, 4, b"a")  # the host's frames 1-4 were lost
    frames.owner_frame(5, 4, b"b")
    await until(lambda: len(got) >= 2)  # once they have waited HOLD_SECONDS
    assert got == [b"a", b"b"]
    frames.owner_frame(5, 4, b"c")  # given up on: what it waited for counts as passed
    assert got == [b"a", b"b", b"c"]
    monkeypatch.setattr(order, "HELD_MAX", 3)
    for n in range(4):
        frames.owner_frame(5, 10, bytes([n]))
    assert got[3:] == [bytes([n]) for n in range(4)]  # past the bound: out, in order
    frames.owner_frame(7, 2, b"x")
    frames.reset()  # a new host: what waited goes out, and numbers start again
    assert got[-1] == b"x"
    frames.host_frame(7, 1, False, b"y")
    frames.owner_frame(7, 1, b"z")
    assert got[-2:] == [b"y", b"z"]


def test_an_owner_keeps_the_latest_stamp_of_each_connection_of_the_current_host() -> None:
    book = StampBook("host-1", limit=2)
    book.note("host-1", 5, 3, lambda c: True)
    book.note("host-1", 5, 2, lambda c: True)  # an older one changes nothing
    assert book.header(5) == after_value(3, "host-1")
    book.note("host-1", 6, 1, lambda c: True)
    book.note("host-1", 7, 1, lambda c: c == 6)  # full: those no longer seeing the table go
    assert book.header(5) is None and book.header(7) == after_value(1, "host-1")
    book.new_host("host-2")
    assert book.header(6) is None


async def test_a_front_end_puts_the_owners_frame_after_the_hosts(nats_server: NatsServer) -> None:
    bus = await Bus.connect(nats_server.url, BusOptions(), owner="front-1")
    host = await Bus.connect(nats_server.url, BusOptions(), owner="host-1")
    owner = await Bus.connect(nats_server.url, BusOptions(), owner="owner-1")
    names = await NameMirror.open(bus)
    front = FrontEnd(bus, names)
    subject = front_subject("front-1")
    try:
        await front.start()
        front.host_changed("host-1")
        link = front.connect("10.0.0.1", "ana", None)
        conn = str(link.conn_id)
        update = p.encode(p.Pong(n=99))  # stands for a table update

        async def from_owner(after: int, data: bytes, host_name: str = "host-1") -> None:
            await owner.nc.publish(subject, data, headers={CONN_HEADER: conn,
                                                           AFTER_HEADER: after_value(after, host_name)})
            await settle(owner.nc)

        async def from_host(seq: int, data: bytes) -> None:
            headers = {CONN_HEADER: conn, SEQ_HEADER: str(seq)}
            if is_move(data):
                headers[MOVE_HEADER] = "1"
            await host.nc.publish(subject, data, headers=headers)
            await settle(host.nc)

        probe = p.encode(p.Pong(n=0))

        async def next_frame() -> bytes:
            while (frame := await asyncio.wait_for(link.receive(), 5) or b"") == probe:
                pass  # a late copy of a probe below
            return frame

        # Once on a loaded machine a new connection's first frames never arrived: each
        # sender's path to the session is proven live first.
        for sender in (host, owner):
            for _ in range(20):
                await sender.nc.publish(subject, probe, headers={CONN_HEADER: conn})
                await settle(sender.nc)
                try:
                    if await asyncio.wait_for(link.receive(), 1) == probe:
                        break
                except asyncio.TimeoutError:
                    continue

        await from_owner(1, update)  # the table's first update overtook Seated
        # It waits at the front end: a frame the owner sent after it (no stamp: passed on at
        # once) has been taken there, and nothing before it reached the session
        barrier = p.encode(p.Pong(n=100))
        await owner.nc.publish(subject, barrier, headers={CONN_HEADER: conn})
        await settle(owner.nc)
        assert await next_frame() == barrier
        await from_host(1, SEATED)
        assert await next_frame() == SEATED
        assert await next_frame() == update
        await from_host(2, LOBBY)  # the player left; the table's last frame comes after
        # (NATS keeps no order between two publishers' messages, even when the first was
        # flushed before the second was sent: the table's frame is published once the
        # move has arrived, as it would be had it overtaken nothing.)
        assert await next_frame() == LOBBY
        await from_owner(1, p.encode(p.Pong(n=1)))  # made before the move: dropped
        await from_owner(9, p.encode(p.Pong(n=2)), "host-0")  # another host's numbers: as it is
        assert p.decode(await next_frame()) == p.Pong(n=2)
    finally:
        await front.stop()
        await names.close()
        for b in (bus, host, owner):
            await b.close()
