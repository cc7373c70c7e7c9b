"""A process that claimed the host lease but could not load the lobby (JetStream answering
nothing for a moment) lets go of the lease, so that the next claim (its own or another's)
is made at once, not after the lease's TTL (server/cluster/node.py, ``_become_host``)."""
from __future__ import annotations

import asyncio
import dataclasses
from pathlib import Path

import pytest
from nats import errors as nats_errors

from server.cluster import node as node_module
from server.cluster.bus import BusOptions
from server.cluster.natsd import NatsServer
from server.cluster.serve import serve_cluster
from server.config import ServerConfig
from tests.ports import free_port

LONG_TTL = 120.0  # a lease left held would keep every process from hosting for two minutes
START_BOUND = 60.0  # (a bound for a hang, not a measure: a start takes a few seconds)


async def test_a_host_that_cannot_load_lets_go_of_the_lease_and_the_next_claim_hosts(
        tmp_path: Path, nats_server: NatsServer, monkeypatch: pytest.MonkeyPatch) -> None:
    opened = 0
    real_open = node_module.JetStreamStore.open

    async def open_failing_once_as_host(self: object) -> None:
        nonlocal opened
        opened += 1
        if opened == 2:  # the first is the table owner's store; the second, the host's
            raise nats_errors.TimeoutError
        await real_open(self)  # type: ignore[arg-type]

    monkeypatch.setattr(node_module.JetStreamStore, "open", open_failing_once_as_host)
    config = dataclasses.replace(ServerConfig(), host="127.0.0.1", port=free_port(),
                                 data_dir=tmp_path / "data", host_key=tmp_path / "hostkeys" / "key")
    ready, stop = asyncio.Event(), asyncio.Event()
    said: list[str] = []
    task = asyncio.create_task(serve_cluster(config, [nats_server.url], BusOptions(lease_ttl=LONG_TTL),
                                             said.append, ready=ready, stop=stop))
    try:
        waiting = asyncio.create_task(ready.wait())
        done, _ = await asyncio.wait([task, waiting], timeout=START_BOUND, return_when=asyncio.FIRST_COMPLETED)
        if task in done:
            task.result()
        assert waiting in done, f"no lobby host within {START_BOUND:.0f} s: the host lease was kept"
        assert opened == 3  # the failed load, then the lobby loaded on the next claim
        assert any("lobby host" in line for line in said), said
    finally:
        stop.set()
        await asyncio.wait_for(task, timeout=15)
