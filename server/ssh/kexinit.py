"""The server's first KEXINIT, sent in answer to the client's, lists only what will be chosen.

In SSH each algorithm is the first one on the client's list that the server lists too
(RFC 4253 7.1). The server answers the client's KEXINIT (server/ssh/compression.py says
why), so it knows the client's lists before it writes its own: listing only the client's
pick in each place, rather than every algorithm it supports, agrees on exactly the same
algorithms (the pick is the first of the client's list in both) and sends fewer bytes.
On a 9600 bit/s link the full list was 496 bytes on the wire, about 0.4 s before the key
exchange could go on. A place where the client picks nothing of ours keeps the full list,
so asyncssh refuses the client with its own message.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from asyncssh.packet import SSHPacket

from server.asyncssh_private import Offer

__all__ = ["Lists", "Offer", "narrowed", "parse"]


@dataclass(frozen=True)
class Lists:
    """One side's algorithm lists, as in a KEXINIT (encryption and MAC: both directions)."""

    kex: list[bytes]
    host_key: list[bytes]
    encryption_cs: list[bytes]
    encryption_sc: list[bytes]
    mac_cs: list[bytes]
    mac_sc: list[bytes]
    compression_cs: list[bytes]
    compression_sc: list[bytes]


def parse(kexinit: bytes) -> Lists:
    """The lists of a KEXINIT message (its payload, from the message number on)."""
    packet = SSHPacket(kexinit)
    packet.get_byte()  # MSG_KEXINIT
    packet.get_bytes(16)  # cookie
    return Lists(*(list(packet.get_namelist()) for _ in range(8)))


def _pick(client: list[bytes], ours: list[bytes]) -> bytes | None:
    return next((alg for alg in client if alg in ours), None)


def _picks(ours: list[bytes], *client_lists: list[bytes]) -> list[bytes]:
    """The client's pick among ``ours`` for each of its lists, once each, in order; ``ours``
    as it is if any list picks nothing."""
    picks: list[bytes] = []
    for client in client_lists:
        pick = _pick(client, ours)
        if pick is None:
            return ours
        if pick not in picks:
            picks.append(pick)
    return picks


def narrowed(client: Lists, offer: Offer) -> Offer:
    """``offer`` cut to the algorithms this client will choose from it."""
    return dataclasses.replace(
        offer,
        kex=_picks(offer.kex, client.kex),
        host_key=_picks(offer.host_key, client.host_key),
        encryption=_picks(offer.encryption, client.encryption_cs, client.encryption_sc),
        mac=_picks(offer.mac, client.mac_cs, client.mac_sc),
        compression=_picks(offer.compression, client.compression_cs, client.compression_sc))
