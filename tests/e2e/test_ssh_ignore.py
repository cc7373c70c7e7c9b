"""The server sends one SSH packet per write (server/ssh/ignore.py): no SSH_MSG_IGNORE
ahead of each, with every cipher it offers; the screens arrive as before."""
from __future__ import annotations

import asyncio
from types import SimpleNamespace
from typing import Any

import pytest
from asyncssh.connection import SSHConnection
from asyncssh.constants import MSG_IGNORE

from server.ssh.server import ENCRYPTION_ALGS
from server.ssh.ignore import cbc_in_use
from tests.e2e.harness import ScreenClient, running_server
from tests.e2e.helpers import in_lobby_as

pytestmark = pytest.mark.e2e


@pytest.fixture
def ignores_received(monkeypatch: pytest.MonkeyPatch) -> list[SSHConnection]:
    """The connection of every SSH_MSG_IGNORE packet received in this process."""
    received: list[SSHConnection] = []
    handle = SSHConnection._packet_handlers[MSG_IGNORE]

    def counted(conn: SSHConnection, *args: Any) -> None:
        received.append(conn)
        handle(conn, *args)

    monkeypatch.setitem(SSHConnection._packet_handlers, MSG_IGNORE, counted)
    return received


@pytest.mark.parametrize("cipher", ENCRYPTION_ALGS)
async def test_a_client_is_sent_no_ignore_packets_and_sees_its_screens(
        tmp_path: Any, cipher: str, ignores_received: list[SSHConnection]) -> None:
    async with running_server(tmp_path) as srv:
        ana, beto = ScreenClient(), ScreenClient()
        await asyncio.wait_for(ana.connect(srv.port, "ana", encryption_algs=[cipher]), 10)
        try:
            await ana.wait_for(in_lobby_as("ana"), 10)
            assert ana.conn.get_extra_info("send_cipher") == cipher
            packets_before = ana.conn._recv_seq
            await asyncio.wait_for(beto.connect(srv.port, "beto"), 10)
            await ana.wait_for(lambda text: "beto" in text, 10)  # news drawn on ana's screen
            assert ana.conn._recv_seq > packets_before
            assert [conn for conn in ignores_received if conn is ana.conn] == []
        finally:
            await beto.close()
            await ana.close()


def test_a_connection_with_a_cbc_cipher_keeps_them() -> None:
    assert cbc_in_use(SimpleNamespace(_enc_alg_cs=b"aes128-ctr", _enc_alg_sc=b"aes256-cbc"))
    assert not cbc_in_use(SimpleNamespace(_enc_alg_cs=b"chacha20-poly1305@openssh.com",
                                          _enc_alg_sc=b"aes128-gcm@openssh.com"))
    assert not any(alg.endswith("-cbc") for alg in ENCRYPTION_ALGS)  # none is offered
