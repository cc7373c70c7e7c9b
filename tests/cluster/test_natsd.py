"""The local nats-server: version check, start with JetStream, clean stop."""
from __future__ import annotations

import asyncio
import json
import stat
import urllib.request
from pathlib import Path
from typing import Any

import nats
import pytest

from server.cluster.natsd import NatsServer, NatsServerError, check_version, find_binary, parse_version
from tests.ports import free_port


async def test_the_pinned_binary_is_found_and_new_enough() -> None:
    assert await check_version(find_binary()) >= (2, 10, 0)


def test_versions_are_read_from_the_banner() -> None:
    assert parse_version("nats-server: v2.15.1\n") == (2, 15, 1)
    with pytest.raises(NatsServerError):
        parse_version("something else")


def _fake_server(tmp_path: Path, banner: str) -> Path:
    fake = tmp_path / "nats-server"
    fake.write_text(f"#!/bin/sh\necho '{banner}'\n")
    fake.chmod(fake.stat().st_mode | stat.S_IXUSR)
    return fake


async def test_an_old_server_is_refused_with_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(NatsServerError, match=r"2\.9\.25.*needs 2\.10\.0 or later"):
        await check_version(_fake_server(tmp_path, "nats-server: v2.9.25"))


async def test_an_old_server_is_never_started(tmp_path: Path) -> None:
    server = NatsServer(tmp_path / "js", binary=_fake_server(tmp_path, "nats-server: v2.2.0"))
    with pytest.raises(NatsServerError):
        await server.start()
    assert server.process is None


async def test_jetstream_answers_and_the_server_stops_cleanly(nats_server: NatsServer) -> None:
    nc = await nats.connect(nats_server.url)
    try:
        info = await nc.jetstream().account_info()
        assert info.limits is not None  # JetStream is enabled for the account
    finally:
        await nc.close()
    process = nats_server.process
    assert process is not None
    await nats_server.stop()
    assert process.returncode == 0  # SIGTERM: a clean exit, not a kill
    assert nats_server.process is None
    await nats_server.stop()  # twice is harmless


async def test_a_port_in_use_is_reported(tmp_path: Path, nats_server: NatsServer) -> None:
    second = NatsServer(tmp_path / "other", port=nats_server.port)
    with pytest.raises(NatsServerError, match="did not start"):
        await second.start()


@pytest.mark.parametrize("sync_always", [True, False])
async def test_a_server_asked_to_sync_every_write_does_so(tmp_path: Path, sync_always: bool) -> None:
    """``--workers`` starts its nats-server with ``sync_interval: always``: what its monitoring
    page says (nats-server's default is a sync every two minutes)."""
    monitor = free_port()
    server = NatsServer(tmp_path / "js", port=free_port(), args=("-m", str(monitor)), sync_always=sync_always)
    await server.start()
    try:
        def varz() -> dict[str, Any]:
            with urllib.request.urlopen(f"http://127.0.0.1:{monitor}/varz", timeout=10) as answer:
                return json.load(answer)

        config = (await asyncio.to_thread(varz))["jetstream"]["config"]
        assert bool(config.get("sync_always")) is sync_always
    finally:
        await server.stop()
