"""Compression: on by default for clients that can inflate, optional for those that cannot,
and a zlib bomb from a client costs the server a bounded amount of memory."""
from __future__ import annotations

import asyncio
import gc
import tracemalloc
import zlib

import asyncssh
import pytest

from server.ssh import compression
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
        # the server, answering the client's KEXINIT, offers it zlib alone.
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


async def test_compression_comes_with_the_first_key_exchange(tmp_path):
    """No second key exchange to switch it on (two round trips and 4.8 KB more: 5 s of a
    connection at 9600 bit/s): a client that lists zlib both ways, "none" first, compresses
    from its first key exchange on, before it opens a session."""
    async with running_server(tmp_path) as srv:
        conn = await asyncssh.connect(
            "127.0.0.1", srv.port, username="ana", password="", known_hosts=None,
            client_keys=None, compression_algs=["none", "zlib@openssh.com"])
        try:
            assert conn.get_extra_info("send_compression") == "zlib@openssh.com"
            assert conn.get_extra_info("recv_compression") == "zlib@openssh.com"
        finally:
            conn.close()
            await conn.wait_closed()


async def test_a_client_that_waits_for_the_servers_kexinit_gets_it(tmp_path, monkeypatch):
    """The server answers the client's KEXINIT; one that waits for the server's first (the
    RFC lets it) gets the configured list after ANSWER_WITHIN, and can go on from there."""
    monkeypatch.setattr(compression, "ANSWER_WITHIN", 0.2)
    async with running_server(tmp_path) as srv:
        reader, writer = await asyncio.open_connection("127.0.0.1", srv.port)
        try:
            writer.write(b"SSH-2.0-Waiting_1.0\r\n")
            assert (await asyncio.wait_for(reader.readline(), 10)).startswith(b"SSH-2.0-")
            head = await asyncio.wait_for(reader.readexactly(6), 10)  # length, padding, type
            assert head[5] == 20  # SSH_MSG_KEXINIT
            body = await asyncio.wait_for(reader.readexactly(int.from_bytes(head[:4], "big") - 2), 10)
            cs, sc = compression.compression_lists(head[5:] + body[:len(body) - head[4]])
            assert cs == sc == [b"zlib@openssh.com", b"none"]
        finally:
            writer.close()


def test_what_is_offered_follows_what_the_client_listed():
    def kexinit(cs: list[bytes], sc: list[bytes]) -> bytes:
        def names(items: list[bytes]) -> bytes:
            joined = b",".join(items)
            return len(joined).to_bytes(4, "big") + joined
        return (bytes([20]) + bytes(16) + b"".join(names([b"x"]) for _ in range(6))
                + names(cs) + names(sc) + names([]) + names([]) + bytes(5))

    zlib_, none = b"zlib@openssh.com", b"none"
    both = ["zlib@openssh.com", "none"]
    assert compression.compression_for(kexinit([none, zlib_], [none, zlib_]), both) == [zlib_]
    assert compression.compression_for(kexinit([zlib_, none], [zlib_, none]), both) == [zlib_]
    # One direction only, or none at all: the configured list (the client chooses "none").
    assert compression.compression_for(kexinit([none], [none, zlib_]), both) == [zlib_, none]
    assert compression.compression_for(kexinit([none], [none]), both) == [zlib_, none]
    # Compression off, or a KEXINIT that does not parse: the configured list as it is.
    assert compression.compression_for(kexinit([none, zlib_], [none, zlib_]), ["none"]) == [none]
    assert compression.compression_for(b"\x14broken", both) == [zlib_, none]


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
