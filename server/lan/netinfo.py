"""The machine's own addresses, for the LAN invite printed at start."""
from __future__ import annotations

import fcntl
import ipaddress
import socket
import struct
from pathlib import Path

from server.say import ENGLISH
from tui.i18n import Translator

_SIOCGIFADDR = 0x8915


def _ipv4_addresses() -> list[str]:
    found = []
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        for _index, name in socket.if_nameindex():
            request = struct.pack("256s", name.encode()[:15])
            try:
                reply = fcntl.ioctl(sock.fileno(), _SIOCGIFADDR, request)
            except OSError:  # interface without an IPv4 address
                continue
            found.append(socket.inet_ntoa(reply[20:24]))
    return found


def _ipv6_addresses() -> list[str]:
    table = Path("/proc/net/if_inet6")
    if not table.exists():
        return []
    found = []
    for line in table.read_text().splitlines():
        fields = line.split()
        if len(fields) >= 6:
            found.append(str(ipaddress.IPv6Address(bytes.fromhex(fields[0]))))
    return found


def lan_addresses(bind_host: str) -> list[str]:
    """Addresses players on other machines can use to reach ``bind_host``.

    Loopback and link-local addresses are left out: they do not work from
    another machine (link-local would need a zone id).
    """
    if bind_host not in ("0.0.0.0", "::", ""):
        candidates = [bind_host]
    else:
        try:
            candidates = _ipv4_addresses()
        except OSError:
            candidates = []
        if bind_host == "::":
            candidates += _ipv6_addresses()
    result = []
    for text in candidates:
        try:
            addr = ipaddress.ip_address(text)
        except ValueError:
            result.append(text)  # a host name given with --host
            continue
        if not (addr.is_loopback or addr.is_link_local or addr.is_unspecified):
            result.append(text)
    return sorted(set(result), key=result.index)


PLAYER_NAME = "NAME"  # stands for the player's name in the printed ssh lines (cli.player_name)


def ssh_command(address: str, port: int, user: str = PLAYER_NAME) -> str:
    """The line a player types: the SSH user name is their player name."""
    host = f"[{address}]" if ":" in address else address
    return f"ssh -p {port} {user}@{host}" if port != 22 else f"ssh {user}@{host}"


def connect_lines(addresses: list[str], port: int, tr: Translator = ENGLISH) -> list[str]:
    """What ``truco-ssh serve`` prints under its listening line: how players connect.

    Without a name before the @, ssh sends the local login (often ``root``), which the
    server cannot use as a player name; so every line shows where the name goes.
    """
    name = tr("cli.player_name")
    lines = [tr("cli.connect_with", name=name)]
    lines += [f"  {ssh_command(address, port, name)}" for address in addresses]
    if not addresses:
        lines.append(f"  {ssh_command('127.0.0.1', port, name)}   {tr('cli.this_machine_only')}")
    return lines
