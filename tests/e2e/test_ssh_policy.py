"""What an SSH client may ask for: only an interactive shell with a terminal."""
from __future__ import annotations

import asyncio
import re

import asyncssh
import pytest

from tests.e2e.harness import ScreenClient, running_server

pytestmark = pytest.mark.e2e


async def _connect(port: int, username: str = "probe") -> asyncssh.SSHClientConnection:
    return await asyncio.wait_for(
        asyncssh.connect(
            "127.0.0.1", port, username=username, known_hosts=None, client_keys=[],
            agent_path=None, password="x", preferred_auth="keyboard-interactive,password",
        ),
        10,
    )


async def test_exec_request_is_refused_and_runs_nothing(tmp_path):
    async with running_server(tmp_path) as srv:
        async with await _connect(srv.port) as conn:
            # The server refuses the "exec" channel request, so asyncssh fails the session
            # open itself: no process, no exit status, no output.
            with pytest.raises(asyncssh.ChannelOpenError) as refused:
                await asyncio.wait_for(conn.run("id"), 10)
            assert "uid=" not in str(refused.value)
            # The connection itself is still fine (and still refuses).
            with pytest.raises(asyncssh.ChannelOpenError):
                await asyncio.wait_for(conn.run("echo pwned"), 10)


async def test_sftp_subsystem_is_refused(tmp_path):
    async with running_server(tmp_path) as srv:
        async with await _connect(srv.port) as conn:
            with pytest.raises((asyncssh.ChannelOpenError, asyncssh.SFTPError)):
                await asyncio.wait_for(conn.start_sftp_client(), 10)


async def test_session_without_pty_gets_one_line_about_a_terminal_and_exits(tmp_path):
    async with running_server(tmp_path) as srv:
        async with await _connect(srv.port) as conn:
            result = await asyncio.wait_for(conn.run(encoding="utf-8"), 10)
    assert result.exit_status not in (0, None)
    lines = [line for line in result.stdout.splitlines() if line.strip()]
    assert len(lines) == 1, result.stdout
    assert "terminal" in lines[0]
    assert "\x1b" not in result.stdout  # no TUI was started on a pipe
    assert not result.stderr


async def test_port_forwarding_is_refused(tmp_path):
    async with running_server(tmp_path) as srv:
        async with await _connect(srv.port) as conn:
            # Direct (local -> server -> target) channels are refused by the server.
            with pytest.raises(asyncssh.ChannelOpenError):
                await asyncio.wait_for(conn.open_connection("127.0.0.1", srv.port), 10)
            # The same through a local listener: the forwarded connection is closed at once,
            # without a byte from the target (which would have sent its SSH banner).
            listener = await asyncio.wait_for(
                conn.forward_local_port("127.0.0.1", 0, "127.0.0.1", srv.port), 10
            )
            try:
                reader, writer = await asyncio.wait_for(
                    asyncio.open_connection("127.0.0.1", listener.get_port()), 10
                )
                data = await asyncio.wait_for(reader.read(256), 10)
                writer.close()
                assert data == b"", data
            finally:
                listener.close()
            # Remote (server listens for us) forwarding is refused too.
            with pytest.raises(asyncssh.ChannelListenError):
                await asyncio.wait_for(conn.forward_remote_port("127.0.0.1", 0, "127.0.0.1", 9), 10)


async def test_server_version_does_not_name_the_ssh_library(tmp_path):
    async with running_server(tmp_path) as srv:
        async with await _connect(srv.port) as conn:
            version = conn.get_extra_info("server_version")
    assert version.startswith("SSH-2.0-"), version
    software = version[len("SSH-2.0-"):]
    assert "asyncssh" not in software.lower()
    assert asyncssh.__version__ not in software
    assert not re.search(r"\d+\.\d+", software), version


async def test_one_session_per_connection(tmp_path):
    async with running_server(tmp_path) as srv:
        client = ScreenClient()
        await client.connect(srv.port, "ana")
        try:
            await client.wait_for("Lobby")
            assert client.conn is not None
            with pytest.raises(asyncssh.ChannelOpenError):
                await client.conn.create_process(term_type="xterm", encoding=None)
            await client.wait_for("Lobby")  # the first session is unaffected
            assert not client.closed.is_set()
        finally:
            await client.close()
