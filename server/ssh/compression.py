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

* ``offer_compression``: in SSH the client's preference wins, and OpenSSH (without
  ``-C``) and asyncssh clients list ``none`` first, so offering zlib and none would
  compress nothing. The server therefore sends its first KEXINIT once the client's has
  come (asyncssh_private.answer_kexinit) and offers only ``zlib@openssh.com`` to a client
  that listed it in both directions: the client's own list says it can. Others are
  offered the configured list (zlib or none), so a client without zlib still connects.
  Client-to-server data becomes zlib too, which the bounded decompressor makes safe.
  Every other list of that answer is cut to the client's pick (server/ssh/kexinit.py).
  (It used to be a second key exchange once the session opened: 4.8 KB more and two
  round trips, 5 s of a 12.4 s connection at 9600 bit/s with a 300 ms round trip, and
  a second post-quantum key exchange's CPU on the server for every connection.)
"""
from __future__ import annotations

import dataclasses
import logging
import zlib
from typing import Any

from asyncssh import compression as _cmp
from server import asyncssh_private
from server.ssh import kexinit

log = logging.getLogger(__name__)

ZLIB_OPENSSH = b"zlib@openssh.com"
# Offered at the first key exchange: a client asking for compression gets it at once,
# one preferring none gets none (and possibly the upgrade below).
COMPRESSION_ALGS = ["zlib@openssh.com", "none"]
MAX_INFLATED_PACKET = 256 * 1024


def configured(enabled: bool) -> list[str]:
    """The compression list the server offers (``--no-compression``: none only)."""
    return COMPRESSION_ALGS if enabled else ["none"]


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


# The client's KEXINIT arrives within a round trip of its version line; past this, the
# server sends its own anyway (RFC 4253 lets either side send first).
ANSWER_WITHIN = 10.0


def compression_lists(message: bytes) -> tuple[list[bytes], list[bytes]]:
    """The (client-to-server, server-to-client) compression lists of a KEXINIT."""
    lists = kexinit.parse(message)
    return lists.compression_cs, lists.compression_sc


def compression_for(message: bytes, configured: list[str]) -> list[bytes]:
    """What the server offers this client for compression: zlib@openssh.com alone when the
    configured list has it and the client listed it both ways, else the configured list."""
    try:
        client = kexinit.parse(message)
    except Exception:  # a KEXINIT asyncssh reads otherwise: its own checks answer it
        return [alg.encode() for alg in configured]
    return _compression(client, configured)


def _compression(client: kexinit.Lists, configured: list[str]) -> list[bytes]:
    offered = [alg.encode() for alg in configured]
    if ZLIB_OPENSSH in offered and ZLIB_OPENSSH in client.compression_cs and ZLIB_OPENSSH in client.compression_sc:
        return [ZLIB_OPENSSH]
    return offered


def answer(message: bytes, offer: kexinit.Offer, configured: list[str]) -> kexinit.Offer:
    """The server's first KEXINIT for a client whose KEXINIT is ``message``: compression as
    ``compression_for`` says, every list cut to what the client will pick
    (server/ssh/kexinit.py); for a KEXINIT that does not parse, ``offer`` with the
    configured compression."""
    try:
        client = kexinit.parse(message)
    except Exception:
        return dataclasses.replace(offer, compression=[alg.encode() for alg in configured])
    return kexinit.narrowed(client, dataclasses.replace(offer, compression=_compression(client, configured)))


def offer_compression(conn: Any, configured: list[str]) -> None:
    """Answer this connection's client KEXINIT (see ``answer``)."""
    if ZLIB_OPENSSH.decode() not in configured:
        return  # compression off: asyncssh's own KEXINIT, at once
    asyncssh_private.answer_kexinit(conn, lambda message, offer: answer(message, offer, configured),
                                    ANSWER_WITHIN)


install_bounded_decompressor()
