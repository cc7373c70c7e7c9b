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
from server.lobby import Hub
from server.lobby.state import CHAT_HISTORY
from server.variants import validate_options, variant_infos
from tests.server.test_hub import join


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
            await log.said(p.ChatLine(sender="ana", text=f"m{n}", ts=1_700_000_000 + n))
        await bus.js.publish(CHAT_SUBJECT, b"\x93junk")
        before = bus.dropped
        lines = await log.history()
        assert [line.text for line in lines] == [f"m{n}" for n in range(11, CHAT_HISTORY + 10)]
        assert bus.dropped == before + 1  # the junk still in the stream (the rest rolled off)
    finally:
        await bus.close()
