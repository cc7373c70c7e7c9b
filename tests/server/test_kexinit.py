"""The server's first KEXINIT lists only what the client will pick (server/ssh/kexinit.py):
the same algorithms are agreed as with the full lists, in fewer bytes."""
from __future__ import annotations

import asyncio

import pytest
from hypothesis import given
from hypothesis import strategies as st

from server.ssh import compression, kexinit
from server.ssh.server import ENCRYPTION_ALGS, KEX_ALGS, MAC_ALGS
from tests.e2e.harness import ScreenClient, running_server
from tests.e2e.helpers import in_lobby_as

NAMES = [b"a", b"b", b"c", b"d", b"e", b"f"]
names = st.lists(st.sampled_from(NAMES), unique=True, max_size=6)


def _agreed(client: list[bytes], server: list[bytes]) -> bytes | None:
    """RFC 4253 7.1: the first algorithm of the client's list that the server lists too."""
    return next((alg for alg in client if alg in server), None)


def _names(items: list[bytes]) -> bytes:
    joined = b",".join(items)
    return len(joined).to_bytes(4, "big") + joined


def _kexinit(lists: kexinit.Lists) -> bytes:
    fields = (lists.kex, lists.host_key, lists.encryption_cs, lists.encryption_sc, lists.mac_cs,
              lists.mac_sc, lists.compression_cs, lists.compression_sc, [], [])
    return bytes([20]) + bytes(16) + b"".join(_names(f) for f in fields) + bytes(5)


@given(client=st.builds(kexinit.Lists, *([names] * 8)),
       offer=st.builds(kexinit.Offer, *([names] * 5)))
def test_the_narrowed_lists_agree_on_what_the_full_ones_do(client: kexinit.Lists, offer: kexinit.Offer) -> None:
    cut = kexinit.narrowed(client, offer)
    pairs = [(client.kex, offer.kex, cut.kex), (client.host_key, offer.host_key, cut.host_key)]
    pairs += [(mine, offer.encryption, cut.encryption) for mine in (client.encryption_cs, client.encryption_sc)]
    pairs += [(mine, offer.mac, cut.mac) for mine in (client.mac_cs, client.mac_sc)]
    pairs += [(mine, offer.compression, cut.compression)
              for mine in (client.compression_cs, client.compression_sc)]
    for mine, full, narrowed in pairs:
        assert _agreed(mine, narrowed) == _agreed(mine, full)
        assert set(narrowed) <= set(full)  # never an algorithm the server does not offer


def _fields(lists: kexinit.Lists) -> dict[str, list[bytes]]:
    return {name: getattr(lists, name) for name in kexinit.Lists.__dataclass_fields__}


def test_what_is_left_is_one_name_a_direction() -> None:
    openssh = kexinit.Lists(
        kex=[b"sntrup761x25519-sha512@openssh.com", b"curve25519-sha256", b"ext-info-c"],
        host_key=[b"ssh-ed25519-cert-v01@openssh.com", b"ssh-ed25519", b"rsa-sha2-512"],
        encryption_cs=[b"chacha20-poly1305@openssh.com", b"aes128-ctr", b"aes256-gcm@openssh.com"],
        encryption_sc=[b"chacha20-poly1305@openssh.com", b"aes128-ctr", b"aes256-gcm@openssh.com"],
        mac_cs=[b"umac-64-etm@openssh.com", b"hmac-sha2-256-etm@openssh.com"],
        mac_sc=[b"umac-64-etm@openssh.com", b"hmac-sha2-256-etm@openssh.com"],
        compression_cs=[b"none", b"zlib@openssh.com"], compression_sc=[b"none", b"zlib@openssh.com"])
    full = kexinit.Offer(kex=[a.encode() for a in KEX_ALGS], host_key=[b"ssh-ed25519"],
                         encryption=[a.encode() for a in ENCRYPTION_ALGS],
                         mac=[a.encode() for a in MAC_ALGS], compression=[b"zlib@openssh.com", b"none"])
    cut = compression.answer(_kexinit(openssh), full, ["zlib@openssh.com", "none"])
    assert cut == kexinit.Offer(kex=[b"curve25519-sha256"], host_key=[b"ssh-ed25519"],
                                encryption=[b"aes128-ctr"], mac=[b"hmac-sha2-256-etm@openssh.com"],
                                compression=[b"zlib@openssh.com"])
    # A place where the client picks nothing of ours: the full list, for asyncssh to refuse.
    nothing = kexinit.Lists(**{**_fields(openssh), "encryption_sc": [b"3des-cbc"]})
    assert kexinit.narrowed(nothing, full).encryption == full.encryption
    # A KEXINIT that does not parse: the offer as it is (compression decided as before).
    assert compression.answer(b"\x14broken", full, ["zlib@openssh.com", "none"]) == full


@pytest.mark.e2e
async def test_the_server_answers_a_client_kexinit_with_its_picks(tmp_path) -> None:
    client = kexinit.Lists(
        kex=[b"curve25519-sha256", b"ext-info-c", b"kex-strict-c-v00@openssh.com"],
        host_key=[b"ssh-ed25519"], encryption_cs=[b"aes128-ctr"], encryption_sc=[b"aes256-gcm@openssh.com"],
        mac_cs=[b"hmac-sha2-512-etm@openssh.com", b"hmac-sha2-256-etm@openssh.com"],
        mac_sc=[b"hmac-sha2-256-etm@openssh.com"],
        compression_cs=[b"none", b"zlib@openssh.com"], compression_sc=[b"none", b"zlib@openssh.com"])
    async with running_server(tmp_path) as srv:
        reader, writer = await asyncio.open_connection("127.0.0.1", srv.port)
        try:
            writer.write(b"SSH-2.0-Narrow_1.0\r\n")
            payload = _kexinit(client)
            padding = 8 - (len(payload) + 5) % 8 + 8
            writer.write((len(payload) + padding + 1).to_bytes(4, "big") + bytes([padding]) + payload
                         + bytes(padding))
            assert (await asyncio.wait_for(reader.readline(), 10)).startswith(b"SSH-2.0-")
            head = await asyncio.wait_for(reader.readexactly(5), 10)
            body = await asyncio.wait_for(reader.readexactly(int.from_bytes(head[:4], "big") - 1), 10)
            answer = kexinit.parse(body[:len(body) - head[4]])
        finally:
            writer.close()
    assert answer.kex == [b"curve25519-sha256", b"ext-info-s", b"kex-strict-s-v00@openssh.com"]
    assert answer.host_key == [b"ssh-ed25519"]
    assert answer.encryption_cs == answer.encryption_sc == [b"aes128-ctr", b"aes256-gcm@openssh.com"]
    assert answer.mac_cs == [b"hmac-sha2-512-etm@openssh.com", b"hmac-sha2-256-etm@openssh.com"]
    assert answer.compression_cs == answer.compression_sc == [b"zlib@openssh.com"]


@pytest.mark.e2e
async def test_a_client_that_re_keys_keeps_its_algorithms_and_compression(tmp_path) -> None:
    """The narrowed lists shape only the first KEXINIT's bytes: re-keys (after every 256
    bytes the client sends, its lists the same) agree again, compression included, and the
    session goes on."""
    async with running_server(tmp_path) as srv:
        client = ScreenClient()
        await asyncio.wait_for(client.connect(srv.port, "ana", rekey_bytes=256,
                                              compression_algs=["none", "zlib@openssh.com"]), 10)
        try:
            await client.wait_for(in_lobby_as("ana"), 10)
            first = _negotiated(client)
            kexinits = []
            send = client.conn._send_kexinit  # (the client's: counts its re-keys)
            client.conn._send_kexinit = lambda: (kexinits.append(1), send())[1]
            for _ in range(10):  # the help screen and back, until two re-keys were made
                if len(kexinits) >= 2:
                    break
                client.send("?")
                await client.wait_for("Esc Close", 10)
                client.send("\x1b")
                await client.wait_for(lambda text: "Esc Close" not in text, 10)
            assert len(kexinits) >= 2
            assert _negotiated(client) == first
            assert first[2] == "zlib@openssh.com"
        finally:
            await client.close()


def _negotiated(client: ScreenClient) -> list[object]:
    return [client.conn.get_extra_info(k) for k in ("send_cipher", "send_mac", "send_compression")]
