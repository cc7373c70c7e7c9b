"""The welcome tells an operator's session that it is one (its lobby then offers the
operators' screen); nobody else's."""
from __future__ import annotations

import asyncio
from pathlib import Path

import protocol as p
from server.config import ServerConfig
from server.lobby import Hub
from server.moderation.book import Moderation
from server.variants import validate_options, variant_infos
from tests.server.test_hub import join


async def test_only_an_operators_key_is_welcomed_as_an_operator(tmp_path: Path) -> None:
    hub = Hub(ServerConfig(), variant_infos(), validate_options,
              moderation=Moderation(operators=frozenset({"SHA256:op"})))
    await hub.load()
    task = asyncio.create_task(hub.run())
    try:
        op = await join(hub, "op", "SHA256:op")
        ana = await join(hub, "ana", "SHA256:ana")
        guest = await join(hub, "carla")  # no key
        assert [c.of(p.Welcome)[0].operator for c in (op, ana, guest)] == [True, False, False]
    finally:
        hub.request_shutdown()
        await task
