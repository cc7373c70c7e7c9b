"""``truco-ssh serve --workers 2``: one port, two processes, one lobby; Ctrl-C stops all."""
from __future__ import annotations

import asyncio
import os
import re
import signal
import sys
from pathlib import Path

import pytest

from tests.ports import free_port
from server.cluster.workers import worker_argv, worker_count, worker_metrics
from tests.cluster.procs import children, established
from protocol.client import Client
from tests.e2e import programs

pytestmark = pytest.mark.e2e

MAX_CLIENTS = 16  # connections opened until both workers hold some (2**-15 to miss)


def test_worker_count_and_command_line() -> None:
    assert worker_count("3") == 3
    assert worker_count("auto") >= 1
    for bad in ("0", "x", "65"):
        with pytest.raises(ValueError):
            worker_count(bad)
    argv = ["serve", "--workers", "2", "--port=2222", "--host", "0.0.0.0", "--nats", "x", "--lite",
            "--metrics", "127.0.0.1:9100"]
    # --workers 1: a settings file's `workers` must not make each worker start workers
    assert worker_argv(argv, "nats://127.0.0.1:9", 2022) == [
        "serve", "--host", "0.0.0.0", "--lite", "--port", "2022", "--nats", "nats://127.0.0.1:9", "--reuse-port",
        "--workers", "1"]
    # each worker its own /metrics port
    assert worker_metrics("127.0.0.1:9100", 0) == ["--metrics", "127.0.0.1:9100"]
    assert worker_metrics("[::1]:9100", 2) == ["--metrics", "[::1]:9102"]
    assert worker_metrics("", 1) == []


async def test_connections_land_on_both_workers_and_see_one_lobby(tmp_path: Path) -> None:
    port, bus_port = free_port(), free_port()
    exe = Path(sys.executable).parent / "truco-ssh"
    supervisor = await asyncio.create_subprocess_exec(
        str(exe), "serve", "--workers", "2", "--host", "127.0.0.1", "--port", str(port),
        "--data-dir", str(tmp_path / "data"), "--host-key", str(tmp_path / "key"),
        # Up to MAX_CLIENTS from this address may land on one worker (the kernel spreads them
        # at random), past its default per-address limit of 8.
        "--max-connections-per-ip", str(MAX_CLIENTS), "--bus-port", str(bus_port),
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT,
    )
    lines: list[str] = []

    async def read() -> None:
        assert supervisor.stdout is not None
        async for raw in supervisor.stdout:
            lines.append(raw.decode(errors="replace"))

    reader = asyncio.create_task(read())
    clients: list[Client] = []  # programs on the `truco` subsystem: the lobby is the point
    try:
        for _ in range(400):
            if sum("listening on" in line for line in lines) == 2:
                break
            await asyncio.sleep(0.05)
        else:
            raise AssertionError("the workers did not start:\n" + "".join(lines))
        # How to connect is said once, by the supervisor, not by each worker.
        assert sum("Press Ctrl-C" in line for line in lines) == 1, lines
        assert any(f"nats://127.0.0.1:{bus_port}" in line for line in lines), lines  # the bus where asked
        assert sum("ssh -p" in line for line in lines) >= 1, lines
        workers = [pid for pid in children(supervisor.pid)
                   if "--reuse-port" in Path(f"/proc/{pid}/cmdline").read_text()]
        assert len(workers) == 2
        while len(clients) < MAX_CLIENTS:
            clients += await programs.connect(port, f"p{len(clients)}")
            if len(clients) >= 4 and all(established(pid, port) for pid in workers):
                break
        held = [established(pid, port) for pid in workers]
        assert all(held) and sum(held) == len(clients), held
        # Every session, on either worker, sees everybody online: one lobby.
        everybody = {f"p{i}" for i in range(len(clients))}
        for client in clients:
            await programs.Online(client).until(lambda names: names == everybody, 10)
        # The bus dies: the supervisor starts it again, the workers reconnect, one lobby still.
        bus = next(pid for pid in children(supervisor.pid)
                   if "nats-server" in Path(f"/proc/{pid}/cmdline").read_text())
        os.kill(bus, signal.SIGKILL)
        first = clients[0]
        last = clients[-1]
        for attempt in range(30):  # (a chat line a second: under the chat rate limit)
            try:
                await programs.round_trip(first, last, f"hi {attempt}", timeout=1.0)
                break
            except TimeoutError:
                continue
        else:
            raise AssertionError("the lobby did not come back after the bus was killed")
        assert any("nats-server" in Path(f"/proc/{pid}/cmdline").read_text()
                   for pid in children(supervisor.pid))
    finally:
        await programs.close_all(clients)
        if supervisor.returncode is None:
            supervisor.send_signal(signal.SIGINT)  # Ctrl-C
        code = await asyncio.wait_for(supervisor.wait(), 30)
        await reader
    assert code == 0
    assert "".join(lines).count("Stopped.") == 3  # two workers and the supervisor
    assert not any(Path(f"/proc/{pid}").exists() for pid in workers)
    # The only error: the bus we killed (and its restart)
    errors = [line for line in lines if re.search(r"Traceback|ERROR", line)]
    assert all("nats-server exited" in line for line in errors), errors


async def test_a_supervisor_that_stops_by_itself_exits_with_a_failure_status(tmp_path: Path) -> None:
    """Its workers cannot start (three copies of each stream asked of its one nats-server):
    it stops, and says so with its exit status, so that systemd starts it again."""
    exe = Path(sys.executable).parent / "truco-ssh"
    supervisor = await asyncio.create_subprocess_exec(
        str(exe), "serve", "--workers", "2", "--replicas", "3", "--host", "127.0.0.1", "--port", str(free_port()),
        "--data-dir", str(tmp_path / "data"), "--host-key", str(tmp_path / "key"),
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT,
    )
    try:
        output, _ = await asyncio.wait_for(supervisor.communicate(), 120)
    finally:
        if supervisor.returncode is None:
            supervisor.kill()
            await supervisor.wait()
    text = output.decode(errors="replace")
    assert supervisor.returncode == 1, text[-2000:]
    assert "failed at start" in text and "stopped:" in text, text[-2000:]
