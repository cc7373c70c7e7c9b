"""A killed ``--workers`` supervisor takes its workers and nats-server with it, and one data
directory serves one server at a time (server/ops/process_life.py)."""
from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from server.ops.process_life import DataDirInUse, ending_with_this_process, lock_data_dir
from tests.cluster.procs import children
from tests.ports import free_port

EXE = Path(sys.executable).parent / "truco-ssh"


def _alive(pid: int) -> bool:
    """Running (a zombie waiting for init to reap it has ended)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


async def _until(check, what: str, timeout: float = 30.0) -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"not in {timeout} s: {what}")
        await asyncio.sleep(0.05)


async def test_a_second_server_on_a_data_dir_in_use_is_refused_with_what_to_do(tmp_path: Path) -> None:
    first = await lock_data_dir(tmp_path / "data")
    try:
        with pytest.raises(DataDirInUse, match=r"in use by another truco-ssh server \(process \d+.*--data-dir"):
            await lock_data_dir(tmp_path / "data", wait=0.3)
        assert await lock_data_dir(tmp_path / "other", wait=0) >= 0  # another directory is free
    finally:
        os.close(first)
    os.close(await lock_data_dir(tmp_path / "data", wait=0))  # free once its holder let go


async def test_a_child_holding_the_lock_keeps_the_data_dir_until_it_ends(tmp_path: Path) -> None:
    lock = await lock_data_dir(tmp_path)
    child = await asyncio.create_subprocess_exec(
        *ending_with_this_process([sys.executable, "-c", "import sys; sys.stdin.read()"]),
        stdin=asyncio.subprocess.PIPE, pass_fds=(lock,))
    os.close(lock)  # the parent lets go; the child still holds the file
    try:
        with pytest.raises(DataDirInUse):
            await lock_data_dir(tmp_path, wait=0.3)
    finally:
        assert child.stdin is not None
        child.stdin.close()
        await child.wait()
    os.close(await lock_data_dir(tmp_path, wait=5))


@pytest.mark.slow
async def test_workers_and_the_bus_end_with_a_killed_supervisor_and_the_data_dir_is_free(tmp_path: Path) -> None:
    port = free_port()
    argv = [str(EXE), "serve", "--workers", "2", "--host", "127.0.0.1", "--port", str(port),
            "--data-dir", str(tmp_path / "data"), "--host-key", str(tmp_path / "key")]
    supervisor = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    lines: list[str] = []

    def read() -> None:
        assert supervisor.stdout is not None
        for line in supervisor.stdout:
            lines.append(line)

    reader = asyncio.get_running_loop().run_in_executor(None, read)
    kids: list[int] = []
    try:
        await _until(lambda: sum("listening on" in line for line in lines) == 2, "two workers listening")
        kids += children(supervisor.pid)
        names = sorted(Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")[0].rsplit(b"/", 1)[-1].decode()
                       for pid in kids)
        assert len(kids) == 3 and "nats-server" in names, names  # two workers and the bus
        supervisor.kill()  # kill -9: it cannot stop them itself
        supervisor.wait()
        await _until(lambda: not any(_alive(pid) for pid in kids), "the workers and nats-server ended")
        # The next server on that data directory starts (the lock went with the last of them).
        again = await asyncio.create_subprocess_exec(
            str(EXE), "serve", "--host", "127.0.0.1", "--port", str(free_port()),
            "--data-dir", str(tmp_path / "data"), "--host-key", str(tmp_path / "key"),
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT)
        assert again.stdout is not None
        said = []
        try:
            async with asyncio.timeout(60):
                async for raw in again.stdout:
                    said.append(raw.decode(errors="replace"))
                    if "listening on" in said[-1]:
                        break
        finally:
            again.send_signal(signal.SIGINT)
            await again.wait()
        assert "listening on" in said[-1], said
    finally:
        if supervisor.poll() is None:
            kids += children(supervisor.pid)
            supervisor.kill()
        for pid in kids:  # (they hold its output pipe open: the reader ends with the last)
            if _alive(pid):
                os.kill(pid, signal.SIGKILL)
        await asyncio.wait_for(reader, 30)
