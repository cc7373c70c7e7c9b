"""The server as systemd runs it: its own process, SIGTERM to stop it (players are told, as
with Ctrl-C), its log on stderr for the journal (JOURNAL_STREAM set: no time stamps)."""
from __future__ import annotations

import asyncio
import os
import re
import signal
import sys

import pytest

from server.cluster.natsd import free_port
from tests.e2e.helpers import close_all, lobby_client

pytestmark = pytest.mark.e2e
NOTICE = "The server is shutting down"


async def test_sigterm_tells_a_connected_player_and_the_journal_gets_plain_lines(tmp_path):
    port = free_port()
    env = {**os.environ, "JOURNAL_STREAM": "8:12345", "LANG": "C.UTF-8"}
    env.pop("LC_ALL", None)
    server = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "server.cli.main", "serve", "--host", "127.0.0.1", "--port", str(port),
        "--data-dir", str(tmp_path / "data"), "--host-key", str(tmp_path / "key"), "--log-level", "INFO",
        cwd=tmp_path, env=env, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    assert server.stdout is not None and server.stderr is not None
    ana = None
    try:
        async with asyncio.timeout(60):
            while b"listening on" not in (line := await server.stdout.readline()):
                assert line, "the server ended before it listened"
        ana = await lobby_client(port, "ana")
        server.send_signal(signal.SIGTERM)
        await ana.wait_for(NOTICE, 15)
        assert not ana.closed.is_set()  # told while still connected
        async with asyncio.timeout(30):
            out, err = await server.communicate()
        assert server.returncode == 0
    finally:
        if server.returncode is None:
            server.kill()
            await server.wait()
        if ana is not None:
            await close_all(ana)
    log = err.decode()
    assert re.search(r"^INFO \S+:\d+ server\.session\.shell: conn \d+: 'ana' from 127\.0\.0\.1 connected \(guest\)$", log, re.M), log
    assert re.search(r"server\.lobby\.names: conn \d+: plays as .ana. \(guest\)$", log, re.M), log
    assert re.search(r"server\.session\.shell: conn \d+: 'ana' hung up \(shutdown\)$", log, re.M), log
    assert not re.search(r"^\d{4}-\d\d-\d\d", log, re.M)  # the journal stamps the lines itself
    assert not (tmp_path / "data" / "truco-ssh.log").exists()
