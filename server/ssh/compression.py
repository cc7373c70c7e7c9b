"""SSH compression: zlib from server to client by default, with bounded inflation.

Two pieces, both touching asyncssh internals (through server/asyncssh_private.py, which
checks the pinned version at start-up; tests/e2e/test_compression_ssh.py checks both):

* ``install_bounded_decompressor``: asyncssh inflates each incoming packet with an
  unbounded ``zlib.decompressobj().decompress(data)``; a 35 KB packet can inflate to
  ~35 MB, and a client can send them back to back (a zlib bomb). The replacement
  inflates at most ``MAX_INFLATED_PACKET`` bytes per packet; a packet that would
  inflate further fails decompression, which makes asyncssh drop the connection.
  The bound is far above any legitimate packet (SSH packets carry at most 32 KiB of
  channel data; RFC 4253 6.1 caps an uncompressed payload at 32768 bytes), so the
  memory a client can make the server spend on inflation is one zlib window plus
  this bound.

* ``prefer_compression``: in SSH the client's preference wins and OpenSSH (without
  ``-C``) and asyncssh clients put ``none`` first, so offering zlib alone would
  compress nothing. Once a client has authenticated and opened its session, if its
  key exchange listed ``zlib@openssh.com`` in both directions, the server starts a
  second key exchange offering only that: the client's own list says it can, and
  clients that never listed zlib keep ``none``. Client-to-server data becomes zlib
  too, which the bounded decompressor makes safe.
"""
from __future__ import annotations

import logging
import zlib
from typing import Any

from asyncssh import compression as _cmp
from asyncssh.packet import SSHPacket

from server import asyncssh_private

log = logging.getLogger(__name__)

ZLIB_OPENSSH = b"zlib@openssh.com"
# Offered at the first key exchange: a client asking for compression gets it at once,
# one preferring none gets none (and possibly the upgrade below).
COMPRESSION_ALGS = ["zlib@openssh.com", "none"]
MAX_INFLATED_PACKET = 256 * 1024


class BoundedZlibDecompress(_cmp.Decompressor):
    """Inflate one SSH packet, refusing (``None``) past ``MAX_INFLATED_PACKET`` bytes."""

    def __init__(self, limit: int | None = None) -> None:
        self._decomp = zlib.decompressobj()
        self._limit = limit or MAX_INFLATED_PACKET

    def decompress(self, data: bytes) -> bytes | None:
        try:
            out = self._decomp.decompress(data, self._limit)
        except zlib.error:
            return None
        if self._decomp.unconsumed_tail:  # more output than the bound: a bomb, not SSH
            log.warning("compressed packet inflates past %d bytes: connection dropped", self._limit)
            return None
        return out


def install_bounded_decompressor() -> None:
    """Make every zlib decompressor asyncssh creates (server and client) bounded."""
    for alg in (ZLIB_OPENSSH, b"zlib"):  # (registered by asyncssh.compression at import)
        asyncssh_private.replace_decompressor(alg, BoundedZlibDecompress)


def client_compression_lists(conn: Any) -> tuple[list[bytes], list[bytes]]:
    """The (client-to-server, server-to-client) compression lists of the client's KEXINIT."""
    raw = asyncssh_private.client_kexinit(conn)
    if not raw:
        return [], []
    packet = SSHPacket(raw)
    packet.get_byte()  # MSG_KEXINIT
    packet.get_bytes(16)  # cookie
    for _ in range(6):  # kex, host key, encryption x2, MAC x2
        packet.get_namelist()
    return list(packet.get_namelist()), list(packet.get_namelist())


def prefer_compression(conn: Any) -> bool:
    """Re-key to zlib@openssh.com when the client offered it; True if a re-key started."""
    try:
        if conn.get_extra_info("send_compression") != "none":
            return False  # already compressing (e.g. ssh -C)
        cs, sc = client_compression_lists(conn)
        if ZLIB_OPENSSH not in cs or ZLIB_OPENSSH not in sc:
            return False  # this client cannot compress: stay uncompressed
        if not asyncssh_private.keys_settled(conn):
            return False
        asyncssh_private.rekey_with_compression(conn, [ZLIB_OPENSSH])
        return True
    except Exception:  # an asyncssh change must not cost the player the connection
        log.exception("could not switch to compression")
        return False


install_bounded_decompressor()
