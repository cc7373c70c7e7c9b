"""A process running a table for the lobby host, on a real nats-server: asked on its own
subject, it claims the table's lease, sends each player's frames to that player's front end,
reports the table, refuses a table another live process runs, and when the lobby closes a
table everybody left, it rates the unfinished match as lost for each (as one process does)."""
from __future__ import annotations

import asyncio
from typing import Any

import protocol as p
from protocol.bus import SeatRecord, TableCall, TableOwn, TableStatus, Viewer, decode_bus
from server.cluster.bus import (
    CONN_HEADER, Bus, BusOptions, front_subject, owner_subject, settle, table_lease, table_subject,
)
from server.cluster.jsstore import JetStreamStore
from server.cluster.lease import Leases
from server.cluster.names import NameMirror
from server.cluster.natsd import NatsServer
from server.cluster.owner import CHECK_OPEN_EVERY, TableOwner
from server.cluster.proxy import TableRegistry
from server.store import TableRecord
from server.table import Occupant

OPTIONS = BusOptions(lease_ttl=1.0, renew_every=0.3)


async def _process(url: str, name: str) -> tuple[Bus, NameMirror, TableOwner]:
    bus = await Bus.connect(url, OPTIONS, owner=name)
    names = await NameMirror.open(bus)
    owner = TableOwner(bus, await Leases.open(bus))
    owner.store = JetStreamStore(bus, names, owner.still_owns)
    await owner.store.open()
    await owner.start()
    return bus, names, owner


async def _in_the_directory(owner: TableOwner) -> None:
    """As the lobby writes a table it starts (an owner drops a table the lobby closed)."""
    assert owner.store is not None
    await owner.store.create_table(TableRecord(
        table_id="t1", title="mesa", variant="argentino", options={}, owner="ana", private=False,
        code="", turn_timer=0, seats=[], seed="s33d"))


def _ask(adopt: bool = False) -> TableOwn:
    seats = (SeatRecord(name="ana", conn_id=11, fingerprint="SHA256:a", was_human=True),
             SeatRecord(name="beto", conn_id=12, fingerprint="SHA256:b", was_human=True))
    viewers = (Viewer(conn_id=11, front="front-1", seat=0), Viewer(conn_id=12, front="front-1", seat=1))
    return TableOwn(table_id="t1", variant="argentino", options={}, title="mesa", seed="s33d",
                    seats=seats, viewers=viewers, bot_delay=0.0, hand_pause=0.0, away_grace=60.0,
                    adopt=adopt)


async def _request(bus: Bus, process: str, ask: TableOwn) -> TableStatus:
    reply = await bus.nc.request(owner_subject(process), p.encode(ask), timeout=10)
    status = decode_bus(reply.data)
    assert isinstance(status, TableStatus)
    return status


async def _until(check: Any, timeout: float = 15.0) -> None:
    for _ in range(int(timeout / 0.05)):
        if await check():
            return
        await asyncio.sleep(0.05)
    raise AssertionError("not in time")


async def test_an_owner_runs_a_table_for_the_lobby_and_rates_a_deserted_match(nats_server: NatsServer) -> None:
    bus, names, owner = await _process(nats_server.url, "proc-a")
    bus2, names2, other = await _process(nats_server.url, "proc-b")
    frames: list[tuple[int, p.Message]] = []
    news: list[TableStatus] = []

    async def on_front(msg: Any) -> None:
        frames.append((int(msg.headers[CONN_HEADER]), p.decode(msg.data)))

    async def on_news(message: Any, msg: Any) -> None:
        news.append(message)

    try:
        await bus.nc.subscribe(front_subject("front-1"), cb=on_front)
        await bus.subscribe("truco.tables.news", on_news)
        await _in_the_directory(owner)
        status = await _request(bus, "proc-a", _ask())
        assert status.running and status.owner == "proc-a" and [s.name for s in status.seats] == ["ana", "beto"]
        leases = await Leases.open(bus)
        holder = await leases.owner(table_lease("t1"))
        assert holder is not None and holder.owner == "proc-a"

        async def both_see_it() -> bool:
            return {c for c, m in frames if isinstance(m, p.TableUpdate)} == {11, 12}

        await _until(both_see_it)  # the first deal, to each player's front end
        assert news and news[-1].owner == "proc-a" and news[-1].running
        # Asked again (an answer the lobby did not get): the same table, not a second one
        assert (await _request(bus, "proc-a", _ask())).running
        # Another process is asked while proc-a lives: it waits for the lease, then refuses
        refused = await _request(bus, "proc-b", _ask())
        assert not refused.running and "another process" in refused.reason
        assert not (await _request(bus, "proc-b", _ask(adopt=True))).running  # it does not run it

        # Both leave before the end and the lobby closes the table: a rated loss for each
        for conn in (11, 12):
            await bus.nc.publish(table_subject("t1"), p.encode(TableCall(table_id="t1", kind="leave", conn_id=conn)))
        await bus.nc.publish(table_subject("t1"), p.encode(TableCall(table_id="t1", kind="stop")))

        async def closed() -> bool:
            return "t1" not in owner.tables and await leases.owner(table_lease("t1")) is None

        await _until(closed)
        assert owner.store is not None
        for fp in ("SHA256:a", "SHA256:b"):
            stats = await owner.store.player_stats(fp)
            assert stats["totals"][:2] == (1, 0) and stats["recent"][0][4] == 1  # lost, abandoned
            assert stats["ratings"][0][3:] == (1, 0)
    finally:
        await other.stop()
        await owner.stop()
        await names2.close()
        await names.close()
        await bus2.close()
        await bus.close()


async def test_an_owner_drops_a_table_the_lobby_closed_without_telling_it(nats_server: NatsServer) -> None:
    bus, names, owner = await _process(nats_server.url, "proc-a")
    try:
        await _in_the_directory(owner)
        assert (await _request(bus, "proc-a", _ask())).running
        assert owner.store is not None
        await owner.store.close_table("t1")  # a lobby host that died before it told the owner
        leases = await Leases.open(bus)

        async def dropped() -> bool:
            return "t1" not in owner.tables and await leases.owner(table_lease("t1")) is None

        await _until(dropped, OPTIONS.renew_every * CHECK_OPEN_EVERY * 3)
    finally:
        await owner.stop()
        await names.close()
        await bus.close()


async def test_a_stopped_owner_releases_its_tables_and_says_so(nats_server: NatsServer) -> None:
    bus, names, owner = await _process(nats_server.url, "proc-a")
    news: list[TableStatus] = []

    async def on_news(message: Any, msg: Any) -> None:
        news.append(message)

    try:
        await bus.subscribe("truco.tables.news", on_news)
        assert (await _request(bus, "proc-a", _ask())).running
        await owner.stop()
        await settle(bus.nc)
        leases = await Leases.open(bus)
        assert await leases.owner(table_lease("t1")) is None  # another process may take it at once

        async def told() -> bool:
            return any(not s.running and s.reason == "shutdown" for s in news)

        await _until(told)
    finally:
        await names.close()
        await bus.close()


async def test_a_chat_line_sent_again_after_a_host_change_is_said_once(nats_server: NatsServer) -> None:
    """A front end gives a new lobby host what the last one never confirmed, and that host
    passes a table's chat line on to the table's owner again, with the origin the frame had
    (server/origins.py): the owner says it once. The same words in another frame, and lines
    with no origin (what a lobby host in one process would send), are said each time."""
    bus, names, owner = await _process(nats_server.url, "proc-a")
    said: list[tuple[int, str]] = []

    async def on_front(msg: Any) -> None:
        message = p.decode(msg.data)
        if isinstance(message, p.Chat):
            said.append((int(msg.headers[CONN_HEADER]), message.line.text))

    try:
        await bus.nc.subscribe(front_subject("front-1"), cb=on_front)
        assert (await _request(bus, "proc-a", _ask())).running
        for origin, text in (("front-1:5", "buenas"), ("front-1:5", "buenas"), ("front-1:6", "buenas"),
                             ("front-2:5", "buenas"), ("", "che"), ("", "che"), ("front-1:7", "fin")):
            await bus.nc.publish(table_subject("t1"), p.encode(TableCall(
                table_id="t1", kind="chat", conn_id=11, front="front-1", sender="ana", text=text, origin=origin)))

        # A last line after them: once it is said, each of them was said or not already
        await bus.nc.publish(table_subject("t1"), p.encode(TableCall(
            table_id="t1", kind="chat", conn_id=11, front="front-1", sender="ana", text="listo", origin="front-1:8")))

        async def all_said() -> bool:
            return (12, "listo") in said

        await _until(all_said)
        assert [text for conn, text in said if conn == 12] == ["buenas", "buenas", "buenas", "che", "che", "fin",
                                                               "listo"]
    finally:
        await owner.stop()
        await names.close()
        await bus.close()


async def test_the_host_does_not_wait_out_a_process_that_died_before_it_answered(nats_server: NatsServer) -> None:
    """The lobby host asks the process holding a table's lease to run it, and that process dies
    before it answers (make chaos: killed right after it was asked). The host looks every
    second whether it still lives, and once it does not, asks another process, well before
    its request's own time runs out (2 TTLs and 5 s: two tables waited 17 s for it)."""
    bus, names, owner = await _process(nats_server.url, "host-1")
    dead = await Bus.connect(nats_server.url, OPTIONS, owner="proc-dead")
    asked: list[float] = []

    async def swallowed(msg: Any) -> None:  # it took the question, and died before answering
        asked.append(asyncio.get_running_loop().time())

    living = {"proc-dead": True}

    async def alive(process: str) -> bool:
        return living.get(process, True)

    registry = TableRegistry(bus, await Leases.open(bus), alive)
    try:
        await _in_the_directory(owner)
        await dead.nc.subscribe(owner_subject("proc-dead"), cb=swallowed)
        await settle(dead.nc)
        assert await (await Leases.open(dead)).claim(table_lease("t1")) is not None  # never renewed
        await registry.start()
        proxy = registry.new_proxy("t1", "argentino", {}, [Occupant("bot", None, bot=True, level="easy"),
                                                            Occupant("bot", None, bot=True, level="easy")],
                                   seed="s33d")
        registry.proxies["t1"] = proxy
        proxy.assign()
        await _until(lambda: _true(bool(asked)))
        living["proc-dead"] = False
        waited = 2 * OPTIONS.lease_ttl + 5  # what the request itself waits
        await asyncio.wait_for(_until(lambda: _true(proxy.owner == "host-1"), waited), waited - 1)
        assert asyncio.get_running_loop().time() - asked[0] < waited - 1
    finally:
        await registry.stop()
        await owner.stop()
        await names.close()
        await dead.close()
        await bus.close()


async def _true(value: bool) -> bool:
    return value
