"""Compression: on by default for clients that can inflate, optional for those that cannot,
and a zlib bomb from a client costs the server a bounded amount of memory."""
from __future__ import annotations

import asyncio
import gc
import tracemalloc
import zlib

import pytest

from server.ssh.compression import MAX_INFLATED_PACKET, BoundedZlibDecompress
from tests.e2e.harness import ScreenClient, running_server
from tests.e2e.helpers import in_lobby_as

pytestmark = pytest.mark.e2e


async def _lobby(port: int, name: str, **kwargs) -> ScreenClient:
    client = ScreenClient()
    await asyncio.wait_for(client.connect(port, name, **kwargs), 10)
    await client.wait_for(in_lobby_as(name), 10)
    return client


async def test_compression_is_negotiated_by_default_and_optional(tmp_path):
    async with running_server(tmp_path) as srv:
        # asyncssh's client default is "none, then zlib@openssh.com" (like OpenSSH without -C):
        # the server upgrades it to zlib once the session is open.
        zipped = await _lobby(srv.port, "ana")
        plain = await _lobby(srv.port, "beto", compression_algs=["none"])
        dumb = await _lobby(srv.port, "carla", compression_algs=None)  # no compression at all
        try:
            assert zipped.conn.get_extra_info("recv_compression") == "zlib@openssh.com"
            assert zipped.conn.get_extra_info("send_compression") == "zlib@openssh.com"
            for client in (plain, dumb):
                assert client.conn.get_extra_info("recv_compression") == "none"
            # All three keep working after the upgrade.
            for client, name in ((zipped, "ana"), (plain, "beto"), (dumb, "carla")):
                await client.wait_for(lambda t: all(n in t for n in ("ana", "beto", "carla")))
        finally:
            for client in (zipped, plain, dumb):
                await client.close()


async def test_server_can_be_run_without_compression(tmp_path):
    async with running_server(tmp_path, compression=False) as srv:
        client = await _lobby(srv.port, "ana", compression_algs=["zlib@openssh.com", "none"])
        try:
            assert client.conn.get_extra_info("recv_compression") == "none"
        finally:
            await client.close()


class _Bomb:
    """A client-side compressor whose next packet starts with ``size`` zeros.

    The zeros are deflated ahead of time (in 1 MiB pieces, so the client side of this
    process never holds them) on the zlib stream the server is inflating."""

    def __init__(self, inner, size: int) -> None:
        self._comp = inner._comp
        zeros = bytes(1024 * 1024)
        self._prefix = b"".join(self._comp.compress(zeros) for _ in range(size // len(zeros)))
        self.sent = 0

    def compress(self, data: bytes) -> bytes:
        out = self._prefix + self._comp.compress(data) + self._comp.flush(zlib.Z_SYNC_FLUSH)
        self._prefix = b""
        self.sent += len(out)
        return out


def test_bounded_decompressor_refuses_past_its_bound():
    data = bytes(10 * MAX_INFLATED_PACKET)
    assert BoundedZlibDecompress().decompress(zlib.compress(data)) is None
    small = b"hello" * 1000
    comp = zlib.compressobj()
    packet = comp.compress(small) + comp.flush(zlib.Z_SYNC_FLUSH)
    assert BoundedZlibDecompress().decompress(packet) == small


async def test_zlib_bomb_from_a_client_is_bounded_and_dropped(tmp_path):
    async with running_server(tmp_path) as srv:
        victim_watch = await _lobby(srv.port, "watcher")
        bomber = await _lobby(srv.port, "bomber")
        try:
            conn = bomber.conn
            assert conn.get_extra_info("send_compression") == "zlib@openssh.com"
            bomb_size = 30 * 1024 * 1024  # 30 MiB of zeros: ~30 KiB on the wire, one packet
            bomb = _Bomb(conn._compressor, bomb_size)
            conn._compressor = bomb
            gc.collect()
            tracemalloc.start()
            try:
                bomber.send("x")
                # The server hung up: it had read (inflated) the packet before. Then a round
                # trip through it for another player, past whatever the hang-up left it to do.
                await asyncio.wait_for(bomber.closed.wait(), 10)
                await victim_watch.press("c")  # the chat takes the focus: it is drawn again
                _, peak = tracemalloc.get_traced_memory()
            finally:
                tracemalloc.stop()
            assert bomb.sent < 64 * 1024  # it really was a small packet...
            assert peak < 8 * 1024 * 1024, f"server allocated {peak} bytes inflating a bomb"
            # ...and the server carries on for everybody else.
            late = await _lobby(srv.port, "late")
            await late.close()
            assert not victim_watch.closed.is_set()
        finally:
            await bomber.close()
            await victim_watch.close()
