"""Fixtures the server's tests share."""
from __future__ import annotations

import asyncio
from typing import AsyncIterator

import pytest

from server.config import ServerConfig
from server.lobby import Hub
from server.store import Store
from server.variants import validate_options, variant_infos


@pytest.fixture
async def hub(tmp_path) -> AsyncIterator[Hub]:
    store = Store(tmp_path / "db.sqlite3")
    await store.open()
    hub = Hub(ServerConfig(), variant_infos(), validate_options, store)
    await hub.load()
    task = asyncio.create_task(hub.run())
    yield hub
    task.cancel()
    await hub.drain_writes()
    await store.close()
