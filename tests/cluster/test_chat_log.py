"""Lobby chat in cluster mode: the lines a lobby host sent are on the chat stream, and a new
lobby host starts with the last of them; the stream keeps only as many as the lobby shows,
and anything else found in it is skipped."""
from __future__ import annotations

import asyncio

import protocol as p
from server.cluster.bus import Bus, BusOptions
from server.cluster.chat import CHAT_SUBJECT, ChatLog
from server.cluster.natsd import NatsServer
from server.config import ServerConfig
from server.link import Frame
from server.lobby import Hub
from server.lobby.state import CHAT_HISTORY
from server.variants import validate_options, variant_infos
from tests.server.test_hub import Client, join


async def _hub(bus: Bus) -> tuple[Hub, "asyncio.Task[None]"]:
    chat = ChatLog(bus)
    await chat.open()
    hub = Hub(ServerConfig(), variant_infos(), validate_options, chat_log=chat)
    await hub.load()
    return hub, asyncio.create_task(hub.run())


async def test_a_new_lobby_host_starts_with_the_chat_as_it_was(nats_server: NatsServer) -> None:
    bus = await Bus.connect(nats_server.url, BusOptions(), owner="host-1")
    try:
        hub, task = await _hub(bus)
        ana = await join(hub, "ana")
        for text in ("hola", "¿quién juega?", "dale"):
            ana.send(p.SendChat(text=text))
        await ana.settle()
        task.cancel()
        await hub.drain_writes()  # the lines are on the stream
        # The next host (the same bus here; another process in a cluster)
        hub2, task2 = await _hub(bus)
        try:
            beto = await join(hub2, "beto")
            chat = beto.of(p.LobbySnapshot)[-1].chat
            assert [(line.sender, line.text) for line in chat] == [
                ("ana", "hola"), ("ana", "¿quién juega?"), ("ana", "dale")]
        finally:
            task2.cancel()
    finally:
        await bus.close()


async def test_the_stream_keeps_the_last_lines_and_skips_what_is_not_one(nats_server: NatsServer) -> None:
    bus = await Bus.connect(nats_server.url, BusOptions(), owner="host-1")
    try:
        log = ChatLog(bus)
        await log.open()
        assert await log.history() == []
        await bus.js.publish(CHAT_SUBJECT, b"\x00junk")
        await bus.js.publish(CHAT_SUBJECT, p.encode(p.Ping(n=1)))
        for n in range(CHAT_HISTORY + 10):
            await log.said(p.ChatLine(sender="ana", text=f"m{n}", ts=1_700_000_000 + n), f"front-1:{n}")
        await bus.js.publish(CHAT_SUBJECT, b"\x93junk")
        before = bus.dropped
        lines = await log.history()
        assert [(line.text, origin) for line, origin in lines] == [
            (f"m{n}", f"front-1:{n}") for n in range(11, CHAT_HISTORY + 10)]
        assert bus.dropped == before + 1  # the junk still in the stream (the rest rolled off)
    finally:
        await bus.close()


async def test_a_line_sent_again_to_the_next_host_is_said_once(nats_server: NatsServer) -> None:
    """A front end gives the next lobby host the frames the last one never confirmed
    (server/cluster/held_input.py): a line the last host said in its final moments comes
    again, with the origin it had (its front end and its number there). The chat stream
    keeps each line's origin, so the next host does not say it again; the same words in a
    new frame are a new line, and one process (no origins) says every line it gets."""
    bus = await Bus.connect(nats_server.url, BusOptions(), owner="host-1")
    hubs: list[asyncio.Task[None]] = []

    async def next_host() -> tuple[Hub, Client, Client]:
        hub, task = await _hub(bus)
        hubs.append(task)
        return hub, await join(hub, "ana"), await join(hub, "beto")

    def said(beto: Client) -> list[str]:
        return [m.line.text for m in beto.of(p.Chat)]

    async def host_dies(hub: Hub) -> None:
        hubs[-1].cancel()
        await hub.drain_writes()

    try:
        hub, ana, beto = await next_host()
        truco = p.encode(p.SendChat(text="¿truco?"))
        hub.post(Frame(ana.link.conn_id, truco, "front-1:5"))
        await beto.settle()
        assert said(beto) == ["¿truco?"]
        await host_dies(hub)

        hub, ana, beto = await next_host()
        assert [line.text for line in beto.of(p.LobbySnapshot)[-1].chat] == ["¿truco?"]
        hub.post(Frame(ana.link.conn_id, truco, "front-1:5"))  # sent again
        hub.post(Frame(ana.link.conn_id, truco, "front-1:9"))  # said again
        hub.post(Frame(ana.link.conn_id, truco, "front-2:5"))  # another front end's
        for _ in range(2):
            hub.post(Frame(ana.link.conn_id, p.encode(p.SendChat(text="dale")), ""))
        await beto.settle()
        assert said(beto) == ["¿truco?", "¿truco?", "dale", "dale"]
        await host_dies(hub)

        hub, ana, beto = await next_host()  # the lines this host said keep their origins too
        hub.post(Frame(ana.link.conn_id, truco, "front-1:9"))
        hub.post(Frame(ana.link.conn_id, truco, "front-1:5"))
        await beto.settle()
        assert said(beto) == []
    finally:
        for task in hubs:
            task.cancel()
        await bus.close()
