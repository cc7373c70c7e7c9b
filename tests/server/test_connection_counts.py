"""The per-address connection count over real SSH connections: a closed connection stops
counting at once, refused ones included, and a refused client is told why after the
version exchange (an SSH disconnect it can show), not with bytes before it."""
from __future__ import annotations

import asyncio
import dataclasses

import asyncssh
import pytest

from server.config import ServerConfig
from server.session.context import ServerContext
from server.link import HubLink
from server.ssh.server import start_ssh_server


class NoHub:
    """The SSH layer's view of the lobby; these connections never open a session."""

    refusal = ""  # what turning_away says

    def turning_away(self) -> str:
        return self.refusal

    def connect(self, ip: str, username: str, fingerprint: str | None) -> HubLink:
        raise AssertionError("no session is opened here")

    def reserved_fingerprint(self, key: str) -> str | None:
        return None


async def released(ctx: ServerContext) -> None:
    """Until no connection counts any more (each one lost sets ``ctx.released``)."""
    while ctx.per_ip or ctx.unauthenticated or ctx.refusing:
        ctx.released.clear()
        await ctx.released.wait()


async def open_conn(port: int, name: str) -> asyncssh.SSHClientConnection:
    return await asyncssh.connect("127.0.0.1", port, username=name, password="x", known_hosts=None,
                                  client_keys=None, agent_path=None, preferred_auth="password")


@pytest.fixture
async def server():  # type: ignore[no-untyped-def]
    config = dataclasses.replace(ServerConfig(), host="127.0.0.1", port=0, max_connections_per_ip=3,
                                 connections_per_minute_per_ip=1000.0)
    ctx = ServerContext(config, NoHub())  # type: ignore[arg-type]
    acceptor = await start_ssh_server(ctx, asyncssh.generate_private_key("ssh-ed25519"))
    yield ctx, acceptor.sockets[0].getsockname()[1]
    acceptor.close()
    await acceptor.wait_closed()


@pytest.mark.parametrize("count", [1, 3])
async def test_connections_opened_then_closed_leave_the_count_at_zero(server, count: int) -> None:  # type: ignore[no-untyped-def]
    ctx, port = server
    for _ in range(2):  # the same again: nothing was left counted the first time
        conns = [await open_conn(port, f"p{i}") for i in range(count)]
        assert ctx.per_ip["127.0.0.1"] == count
        for conn in conns:
            conn.close()
        await asyncio.wait_for(released(ctx), 10)
        assert dict(ctx.per_ip) == {} and ctx.unauthenticated == 0 and ctx.refusing == 0


async def test_a_refused_client_is_told_why_and_is_not_counted(server) -> None:  # type: ignore[no-untyped-def]
    ctx, port = server
    conns = [await open_conn(port, f"p{i}") for i in range(3)]
    with pytest.raises(asyncssh.DisconnectError) as refused:
        await asyncio.wait_for(open_conn(port, "late"), 10)
    assert refused.value.code == asyncssh.DISC_TOO_MANY_CONNECTIONS
    assert refused.value.reason.startswith("too many connections from your address (at most 3)")
    assert ctx.per_ip["127.0.0.1"] == 3  # the 3 live ones, no more
    for conn in conns:
        conn.close()
    await asyncio.wait_for(released(ctx), 10)
    assert dict(ctx.per_ip) == {} and ctx.refusing == 0
    late = await open_conn(port, "late")  # a slot is free again
    late.close()


async def test_a_hub_turning_players_away_refuses_with_its_words_until_it_stops(server) -> None:  # type: ignore[no-untyped-def]
    ctx, port = server
    ctx.hub.refusal = "this server is reconnecting to its cluster, try again in a few seconds"
    with pytest.raises(asyncssh.DisconnectError) as refused:
        await asyncio.wait_for(open_conn(port, "ana"), 10)
    assert refused.value.reason.startswith("this server is reconnecting to its cluster")
    await asyncio.wait_for(released(ctx), 10)
    ctx.hub.refusal = ""
    welcome = await open_conn(port, "ana")  # let in again (up to the session: NoHub opens none)
    welcome.close()
    await asyncio.wait_for(released(ctx), 10)
