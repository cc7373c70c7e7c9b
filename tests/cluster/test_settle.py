"""bus.settle: when it returns, the NATS server has had everything the connection sent.

A stand-in NATS server (the protocol's few lines, on 127.0.0.1) answers each PING with a
PONG and notes which commands came before it. nats-py's own ``flush()`` writes its PING
ahead of a SUB still queued for its flusher task, so the PONG it waits for says nothing of
the SUB (a real server then drops a message another process publishes just after: about
one in twenty on a loaded machine, as CI saw). settle's PING must come after the SUB.
"""
from __future__ import annotations

import asyncio
import json
from typing import AsyncIterator

import nats
import pytest
from nats.aio.client import Client

from server.cluster.bus import settle


class StandIn:
    """Just enough of a NATS server for a client to connect, subscribe and ping."""

    def __init__(self) -> None:
        self.received: list[str] = []  # the commands, in the order they came
        self.answered: list[list[str]] = []  # for each PING answered, what had come before it
        self.server: asyncio.Server | None = None

    async def start(self) -> int:
        self.server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        return int(self.server.sockets[0].getsockname()[1])

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        info = {"server_id": "stand-in", "version": "2.10.0", "go": "go", "host": "127.0.0.1",
                "port": 4222, "headers": True, "max_payload": 1048576, "proto": 1}
        writer.write(f"INFO {json.dumps(info)}\r\n".encode())
        await writer.drain()
        while line := await reader.readline():
            words = line.decode().split()
            command = words[0] if words else ""
            if command in ("PUB", "HPUB"):
                await reader.readexactly(int(words[-1]) + 2)  # headers and payload, then CRLF
            self.received.append(command)
            if command == "PING":
                self.answered.append(list(self.received))
                writer.write(b"PONG\r\n")
                await writer.drain()
        writer.close()

    async def stop(self) -> None:
        assert self.server is not None
        self.server.close()
        await self.server.wait_closed()


@pytest.fixture
async def stand_in() -> AsyncIterator[tuple[StandIn, Client]]:
    """The stand-in server and a nats-py connection to it."""
    server = StandIn()
    port = await server.start()
    nc = await nats.connect(f"nats://127.0.0.1:{port}", max_reconnect_attempts=0, allow_reconnect=False)
    try:
        yield server, nc
    finally:
        await nc.close()
        await server.stop()


async def test_a_subscription_reaches_the_server_before_settle_returns(stand_in: tuple[StandIn, Client]) -> None:
    server, nc = stand_in
    for subject in ("truco.a", "truco.b", "truco.c"):
        await nc.subscribe(subject)
        await settle(nc)
        assert server.answered[-1].count("SUB") == len(server.answered) - 1  # the connect's PING: none


async def test_a_publish_reaches_the_server_before_settle_returns(stand_in: tuple[StandIn, Client]) -> None:
    server, nc = stand_in
    await nc.publish("truco.x", b"uno")
    await nc.publish("truco.x", b"dos", headers={"Truco-Conn": "7"})
    await settle(nc)
    assert server.answered[-1][-3:] == ["PUB", "HPUB", "PING"]


async def test_nats_py_flush_alone_answers_before_a_queued_subscription(stand_in: tuple[StandIn, Client]) -> None:
    """Why settle exists: if nats-py's flush starts waiting for the queue, settle may become
    plain flush (this test then fails and says so)."""
    server, nc = stand_in
    await nc.subscribe("truco.a")
    await nc.flush()
    assert "SUB" not in server.answered[-1], "nats-py's flush now follows queued commands"
