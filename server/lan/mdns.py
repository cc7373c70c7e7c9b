"""The server on the LAN's DNS-SD (mDNS): advertised as ``_truco._tcp`` and ``_ssh._tcp``,
and found by ``truco-ssh find``.

Each service carries the port and, in its TXT record, the server's host key fingerprint
(``fp``: a player compares it with what ssh shows the first time) and the table or server
name (``table``). A private table's join code is never advertised: the LAN is not the
guest list. Only zeroconf's asyncio API is used, so nothing blocks the event loop.
"""
from __future__ import annotations

import asyncio
import ipaddress
import logging
import socket
from dataclasses import dataclass

from zeroconf import IPVersion, InterfaceChoice, NonUniqueNameException
from zeroconf.asyncio import AsyncServiceBrowser, AsyncServiceInfo, AsyncZeroconf

from protocol.text import clean_text
from server.say import ENGLISH
from tui.i18n import Translator

log = logging.getLogger(__name__)

TRUCO = "_truco._tcp.local."
SSH = "_ssh._tcp.local."
NAME_MAX = 60  # a DNS label is at most 63 bytes; the instance name is one label
RESOLVE_MS = 3000


def instance_name(text: str) -> str:
    """``text`` as a DNS-SD instance name: no dots (they would split the label), bounded."""
    cleaned = "".join(c for c in text.replace(".", " ") if c.isprintable()).strip() or "truco-ssh"
    data = cleaned.encode()[:NAME_MAX]
    return data.decode("utf-8", "ignore").strip()


def loopback_only(bind_host: str) -> bool:
    """Bound to the loopback: nobody else on the LAN could connect, so nothing to advertise."""
    if bind_host in ("localhost",):
        return True
    try:
        return ipaddress.ip_address(bind_host).is_loopback
    except ValueError:
        return False


def _packed(addresses: list[str]) -> list[bytes]:
    packed = []
    for text in addresses:
        try:
            packed.append(ipaddress.ip_address(text).packed)
        except ValueError:
            continue  # a host name given with --host: zeroconf needs addresses
    return packed


class Advertiser:
    """The server's two services, registered in the background and withdrawn at stop."""

    def __init__(self, name: str, port: int, fingerprint: str, addresses: list[str],
                 interfaces: list[str] | None = None) -> None:
        self.name = instance_name(name)
        self._port = port
        self._fingerprint = fingerprint
        self._addresses = addresses
        self._interfaces = interfaces
        self._zc: AsyncZeroconf | None = None
        self._task: asyncio.Task[None] | None = None
        self.registered = asyncio.Event()

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._register(), name="mdns")

    async def _register(self) -> None:
        try:
            await self._register_services()
        except Exception as exc:  # the LAN advertisement is a convenience: never fatal
            log.warning("mDNS: not advertised: %s", exc)
        finally:
            self.registered.set()

    async def _register_services(self) -> None:
        interfaces = self._interfaces if self._interfaces is not None else InterfaceChoice.All
        self._zc = zc = AsyncZeroconf(interfaces=interfaces, ip_version=IPVersion.V4Only)
        host = instance_name(socket.gethostname().split(".")[0]).replace(" ", "-") + ".local."
        addresses = _packed(self._addresses)
        for kind in (TRUCO, SSH):
            info = AsyncServiceInfo(
                kind, f"{self.name}.{kind}", port=self._port, addresses=addresses, server=host,
                properties={"fp": self._fingerprint, "table": self.name, "app": "truco-ssh"},
            )
            try:
                waiting = await zc.async_register_service(info, allow_name_change=True)
                await waiting
            except (NonUniqueNameException, OSError) as exc:
                log.warning("mDNS: could not advertise %s: %s", kind, exc)

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)
        if self._zc is not None:
            try:
                await asyncio.wait_for(self._zc.async_unregister_all_services(), 3)
            except Exception as exc:  # e.g. the network went away: still close
                log.warning("mDNS: could not withdraw the services: %s", exc)
            await self._zc.async_close()


@dataclass(frozen=True)
class Found:
    """A truco-ssh server seen on the LAN."""

    name: str
    addresses: tuple[str, ...]
    port: int
    fingerprint: str


async def find_servers(seconds: float = 3.0, interfaces: list[str] | None = None) -> list[Found]:
    """The ``_truco._tcp`` services that answer within ``seconds``, sorted by name."""
    zc = AsyncZeroconf(interfaces=interfaces if interfaces is not None else InterfaceChoice.All,
                       ip_version=IPVersion.V4Only)
    names: list[str] = []

    def seen(zeroconf: object, service_type: str, name: str, state_change: object) -> None:
        if name not in names:
            names.append(name)

    browser = AsyncServiceBrowser(zc.zeroconf, [TRUCO], handlers=[seen])
    try:
        await asyncio.sleep(seconds)
        found = []
        for name in names:
            info = AsyncServiceInfo(TRUCO, name)
            if not await info.async_request(zc.zeroconf, RESOLVE_MS):
                continue
            props = {k.decode(errors="replace"): (v or b"").decode(errors="replace")
                     for k, v in info.properties.items()}
            # Anyone on the LAN can answer: their words reach the terminal cleaned.
            found.append(Found(
                name=clean_text(props.get("table") or name.removesuffix("." + TRUCO), NAME_MAX),
                addresses=tuple(info.parsed_addresses()), port=info.port or 0,
                fingerprint=clean_text(props.get("fp", ""), 80),
            ))
        return sorted(found, key=lambda f: f.name.casefold())
    finally:
        await browser.async_cancel()
        await zc.async_close()


def found_lines(found: list[Found], tr: Translator = ENGLISH) -> list[str]:
    """What ``truco-ssh find`` prints."""
    from server.lan.netinfo import ssh_command

    if not found:
        return [tr("cli.find.nobody")]
    lines = []
    name = tr("cli.player_name")
    for server in found:
        lines.append(tr("cli.find.server", name=server.name,
                        fingerprint=server.fingerprint or tr("cli.find.no_fingerprint")))
        lines += [f"  {ssh_command(address, server.port, name)}" for address in server.addresses]
    return lines
