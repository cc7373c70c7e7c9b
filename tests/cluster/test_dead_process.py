"""A process killed outright is known dead as soon as nobody on the bus listens for it, not
when its leases run out: its leases are voided and its tables move at once. (The lobby host
itself is still replaced when its lease runs out.)

The leases here last 60 s, far longer than the test waits: a table that moves can only have
done so by the voiding."""
from __future__ import annotations

import asyncio
import re
import signal
from pathlib import Path

import asyncssh
import pytest

import protocol as p
from protocol.client import Client
from server.cluster.natsd import NatsServer
from tests.cluster.procs import RESTORED, Proc, start, until
from tests.e2e import programs

LONG_LEASES = ("--lease-ttl", "60")
RUNS_ON = re.compile(r"table (\S+) runs on (\S+)")


async def _line(procs: list[Proc], pattern: re.Pattern[str]) -> tuple[Proc, re.Match[str]]:
    found: list[tuple[Proc, re.Match[str]]] = []

    def seen() -> bool:
        found.extend((proc, matches[-1]) for proc in procs if (matches := proc.saw(pattern)))
        return bool(found)
    await until(seen, 30)
    return found[0]


@pytest.mark.e2e
async def test_a_killed_table_owner_is_replaced_long_before_its_leases_end(
        tmp_path: Path, nats_server: NatsServer) -> None:
    host = await start(tmp_path, nats_server.url, *LONG_LEASES)
    assert host.is_host
    owner, third = await asyncio.gather(*(start(tmp_path, nats_server.url, *LONG_LEASES) for _ in range(2)))
    procs = [host, owner, third]
    keys = {name: asyncssh.generate_private_key("ssh-ed25519") for name in ("ana", "beto")}
    clients: list[Client] = []
    try:
        ana, = await programs.connect(owner.port, "ana", client_keys=[keys["ana"]])
        beto, = await programs.connect(third.port, "beto", client_keys=[keys["beto"]])
        clients = [ana, beto]
        table_id = await programs.table_of(ana, 2, options={"target": 30})
        await beto.send(p.JoinTable(table_id=table_id))
        await programs.update(beto, programs.dealt, timeout=15)
        _, placed = await _line([host], RUNS_ON)
        assert placed.group(2) == owner.owner  # on the process of its first player

        await owner.stop(signal.SIGKILL)
        _, restored = await _line([host, third], RESTORED)
        assert restored.group(1) == table_id
        # (judged by the host, or first by the third process, which forgets dead front ends too)
        assert any(f"process {owner.owner} is gone from the bus" in line for proc in (host, third)
                   for line in proc.lines)
        # Ana connects again, to the host's process, and the table plays on
        ana = clients[0] = await Client.connect("127.0.0.1", host.port, "ana", client_keys=[keys["ana"]])
        seated = await programs.update(ana, lambda u: u.table_id == table_id, timeout=15)
        assert seated.seat == 0  # her seat back

    finally:
        await programs.close_all(clients)
        await asyncio.gather(*(proc.stop() for proc in procs))
