"""One SSH packet per write, not two: no SSH_MSG_IGNORE ahead of every packet sent.

asyncssh 2.24 sends an empty SSH_MSG_IGNORE packet ahead of every packet once the keys
are exchanged (``SSHConnection.send_packet``). That is the defence RFC 4251 (9.3.1)
describes for CBC-mode ciphers, where the last block of one packet is the IV of the
next and so known to an attacker before it is used. The server offers only AES-GCM and
AES-CTR (``server/ssh/server.py``: ``ENCRYPTION_ALGS``), where
no packet's keystream or nonce follows from the one before; for them the ignore packet
protects nothing and costs as much as the packet it comes with: a compression, an
encryption and its MAC, and a socket send of its own. A table update to a terminal seat
was two packets, about half of what sending it cost the server, and 36 bytes more on the
player's link.

Here asyncssh's own ignore packet is left out while neither direction uses a CBC cipher
(a connection that negotiated one keeps it). Replaces asyncssh's ``send_packet`` and reads
the negotiated ciphers through server/asyncssh_private.py; tests/e2e/test_ssh_ignore.py checks a
client is sent none and that the screens still arrive.
"""
from __future__ import annotations

from typing import Any

from asyncssh.connection import SSHConnection
from asyncssh.constants import MSG_IGNORE, MSG_KEX_LAST

from server import asyncssh_private

_SENDING = "_truco_sending_after_kex"  # set on a connection while it sends such a packet
_installed = False


def cbc_in_use(conn: Any) -> bool:
    """Whether either direction of ``conn`` encrypts with a CBC-mode cipher."""
    return any(alg.endswith(b"-cbc") for alg in asyncssh_private.encryption_algs(conn))


def install() -> None:
    """Replace ``SSHConnection.send_packet`` (once per process; a second call changes nothing)."""
    global _installed
    if _installed:
        return
    original = SSHConnection.send_packet

    def send_packet(self: SSHConnection, pkttype: int, *args: bytes, handler: Any = None) -> None:
        if pkttype == MSG_IGNORE and getattr(self, _SENDING, False) and not cbc_in_use(self):
            return  # the one asyncssh puts ahead of the packet being sent
        if pkttype <= MSG_KEX_LAST:  # (asyncssh puts none ahead of these)
            original(self, pkttype, *args, handler=handler)
            return
        outer = getattr(self, _SENDING, False)
        setattr(self, _SENDING, True)
        try:
            original(self, pkttype, *args, handler=handler)
        finally:
            setattr(self, _SENDING, outer)

    SSHConnection.send_packet = send_packet  # type: ignore[method-assign]
    _installed = True
