"""A session's first bytes (the terminal's modes) leave in one SSH packet with its first
screen, not in packets of their own (server/session/shell.py, OPENING_HOLD): each packet
costs its header, padding and MAC on a slow link."""
from __future__ import annotations

import asyncio

import asyncssh
import pytest

from tests.e2e.harness import running_server

pytestmark = pytest.mark.e2e


class Packets(asyncssh.SSHClientSession[bytes]):
    """Each channel data message as it arrived (asyncssh hands the session one at a time)."""

    def __init__(self) -> None:
        self.received: list[bytes] = []
        self.screen = asyncio.Event()

    def data_received(self, data: bytes, datatype: asyncssh.DataType) -> None:
        self.received.append(data)
        if b"Lobby" in data:
            self.screen.set()


async def test_the_terminal_modes_come_in_the_first_screens_packet(tmp_path) -> None:
    async with running_server(tmp_path) as srv:
        conn = await asyncssh.connect("127.0.0.1", srv.port, username="ana", password="x",
                                      known_hosts=None, client_keys=None, agent_path=None,
                                      preferred_auth="keyboard-interactive,password")
        try:
            _, session = await conn.create_session(Packets, term_type="xterm-256color",
                                                   term_size=(80, 24), encoding=None)
            await asyncio.wait_for(session.screen.wait(), 10)
        finally:
            conn.close()
            await conn.wait_closed()
    first = session.received[0]
    assert first.startswith(b"\x1b[?1049h")  # the alternate screen, and in the same packet...
    assert b"Lobby" in first  # ...the lobby
