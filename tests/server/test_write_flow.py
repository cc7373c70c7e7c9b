"""server/session/write_flow.py: a session's output is held while its channel or its connection is
full, and the kernel holds little for a connection (the e2e side: tests/e2e/test_hardening.py)."""
from __future__ import annotations

import asyncio
import socket

import pytest

from server.session.write_flow import KERNEL_UNSENT, WriteFlow, hold_little


def test_held_while_either_is_full_and_free_again_only_when_both_are_empty() -> None:
    flow = WriteFlow()
    assert not flow.paused and flow.since is None
    assert flow.update(now=1.0, channel=True) is False
    assert flow.paused and flow.since == 1.0
    assert flow.update(now=2.0, link=True) is False
    assert flow.since == 1.0  # paused since the first of them
    assert flow.update(now=3.0, channel=False) is False  # the connection is still full
    assert flow.paused and flow.since == 1.0
    assert flow.update(now=4.0, link=False) is True  # writing goes on: the caller repaints
    assert not flow.paused and flow.since is None
    assert flow.update(now=5.0, link=False) is False  # nothing changed: no second repaint


@pytest.mark.skipif(not hasattr(socket, "TCP_NOTSENT_LOWAT"), reason="no TCP_NOTSENT_LOWAT here")
async def test_a_connection_keeps_little_unsent_in_the_kernel() -> None:
    accepted: asyncio.Future[asyncio.Transport] = asyncio.get_running_loop().create_future()

    class Keep(asyncio.Protocol):
        def connection_made(self, transport: asyncio.BaseTransport) -> None:
            accepted.set_result(transport)  # type: ignore[arg-type]

    server = await asyncio.get_running_loop().create_server(Keep, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    _reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        transport = await asyncio.wait_for(accepted, 5)
        hold_little(transport, 256 * 1024)
        sock = transport.get_extra_info("socket")
        assert sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NOTSENT_LOWAT) == KERNEL_UNSENT
        assert transport.get_write_buffer_limits() == (64 * 1024, 256 * 1024)
        transport.close()
    finally:
        writer.close()
        server.close()
        await server.wait_closed()
