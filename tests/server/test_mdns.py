"""The server's DNS-SD advertisement, seen by a zeroconf browser on the loopback interface."""
from __future__ import annotations

import secrets
import socket
import struct

import pytest

from server.lan.mdns import Advertiser, Found, find_servers, found_lines, instance_name, loopback_only
from tui.i18n import Translator

MDNS_GROUP = "224.0.0.251"


def _loopback_multicast() -> str:
    """Why multicast on 127.0.0.1 cannot be used here ("" if it can)."""
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
            sock.setsockopt(socket.IPPROTO_IP, socket.IP_ADD_MEMBERSHIP,
                            struct.pack("4s4s", socket.inet_aton(MDNS_GROUP), socket.inet_aton("127.0.0.1")))
            sock.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_IF, socket.inet_aton("127.0.0.1"))
    except OSError as exc:
        return f"this machine has no multicast on the loopback interface ({exc})"
    return ""


async def test_the_advertised_server_is_found_with_its_port_and_fingerprint() -> None:
    why = _loopback_multicast()
    if why:
        pytest.skip(why)
    name = f"mesa de ana {secrets.token_hex(3)}"
    advertiser = Advertiser(name, 2345, "SHA256:abcdef", ["127.0.0.1"], interfaces=["127.0.0.1"])
    advertiser.start()
    try:
        await advertiser.registered.wait()
        found = [f for f in await find_servers(2.0, interfaces=["127.0.0.1"]) if f.name == name]
        assert len(found) == 1, "the advertisement was not seen"
        server = found[0]
        assert server.port == 2345 and server.fingerprint == "SHA256:abcdef"
        assert server.addresses == ("127.0.0.1",)
        assert found_lines(found)[1] == "  ssh -p 2345 NAME@127.0.0.1"
    finally:
        await advertiser.close()


def test_nothing_is_advertised_from_the_loopback_and_names_fit_one_label() -> None:
    assert loopback_only("127.0.0.1") and loopback_only("::1") and loopback_only("localhost")
    assert not loopback_only("0.0.0.0") and not loopback_only("192.168.1.5")
    assert instance_name("ana.s table") == "ana s table"
    assert len(instance_name("ñ" * 100).encode()) <= 60
    assert instance_name("\x1b[31m") == "[31m" and instance_name("...") == "truco-ssh"


def test_nobody_found_is_said() -> None:
    assert found_lines([]) == ["No truco-ssh server answered on the LAN."]
    assert found_lines([], Translator("es")) == ["Ningún servidor de truco-ssh respondió en la red local."]
    assert found_lines([], Translator("pt")) == ["Nenhum servidor truco-ssh respondeu na rede local."]
    found = [Found("la mesa", ("192.168.1.5",), 2222, "")]
    assert found_lines(found, Translator("pt")) == ["la mesa  (chave do servidor não informada)",
                                                     "  ssh -p 2222 NOME@192.168.1.5"]


# (the Portuguese words are checked with the rest of the catalogue: tests/tui/test_i18n*.py)
@pytest.mark.parametrize("lang, key_word, player", [("en_US.UTF-8", "host key", "NAME"),
                                                    ("es_AR.UTF-8", "clave del servidor", "NOMBRE")])
@pytest.mark.slow
async def test_truco_ssh_find_prints_the_server_and_its_ssh_line(lang: str, key_word: str, player: str) -> None:
    import asyncio
    import subprocess
    import sys
    from pathlib import Path

    why = _loopback_multicast()
    if why:
        pytest.skip(why)
    name = f"la mesa {secrets.token_hex(3)}"
    advertiser = Advertiser(name, 2399, "SHA256:zz", ["127.0.0.1"], interfaces=["127.0.0.1"])
    advertiser.start()
    try:
        await advertiser.registered.wait()
        exe = Path(sys.executable).parent / "truco-ssh"
        ran = await asyncio.to_thread(
            # The browse window players get (3 s): 1.5 s missed the server once in a whole run.
            subprocess.run, [str(exe), "find", "--interface", "127.0.0.1"],
            capture_output=True, text=True, timeout=30, env=_with_lang(lang))
        assert ran.returncode == 0, ran.stderr
        lines = ran.stdout.splitlines()
        assert f"{name}  ({key_word} SHA256:zz)" in lines, (ran.stdout, ran.stderr)
        at = lines.index(f"{name}  ({key_word} SHA256:zz)")
        assert lines[at + 1] == f"  ssh -p 2399 {player}@127.0.0.1"
    finally:
        await advertiser.close()


def _with_lang(lang: str) -> dict[str, str]:
    import os

    env = dict(os.environ, LANG=lang)
    env.pop("LC_ALL", None)
    env.pop("LC_MESSAGES", None)
    return env
