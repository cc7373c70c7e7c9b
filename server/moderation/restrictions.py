"""A ban or a mute, and whom it holds to: a key, a name, or an address or network."""
from __future__ import annotations

import ipaddress
import time
from dataclasses import dataclass

from protocol import moderation as m

# An address widened to its network (``prefix``): an IPv4 /24, an IPv6 /64, where one
# household or one provider's customer usually gets a new address.
PREFIX_V4, PREFIX_V6 = 24, 64
Network = ipaddress.IPv4Network | ipaddress.IPv6Network


class BadTarget(ValueError):
    """What a restriction was asked to hold to is not a key, a name or an address."""


@dataclass(frozen=True)
class Restriction:
    number: int
    what: str  # m.BAN | m.MUTE
    on: str  # m.ON_KEY | m.ON_NAME | m.ON_ADDRESS
    target: str  # a fingerprint, a name key, a network ("203.0.113.7/32")
    until: float  # unix seconds; 0: for good
    reason: str = ""
    by: str = ""  # the operator's key
    at: float = 0.0

    def in_force(self, now: float) -> bool:
        return self.until == 0 or now < self.until

    def holds_to(self, fingerprint: str | None, name_key: str | None, ip: str) -> bool:
        if self.on == m.ON_KEY:
            return fingerprint is not None and fingerprint == self.target
        if self.on == m.ON_NAME:
            return name_key is not None and name_key == self.target
        return address_in(ip, self.target)

    def told(self) -> str:
        """What the person it holds to is told (their SSH client shows it for a ban)."""
        verb = "banned from this server" if self.what == m.BAN else "muted"
        when = "for good" if self.until == 0 else "until " + time.strftime("%Y-%m-%d %H:%M UTC",
                                                                            time.gmtime(self.until))
        return f"{verb} {when}" + (f": {self.reason}" if self.reason else "")

    def line(self) -> m.RestrictionLine:
        return m.RestrictionLine(number=self.number, what=self.what, on=self.on, target=self.target,
                                 until=int(self.until), reason=self.reason[:m.REASON_MAX], by=self.by,
                                 at=int(self.at))


def network(text: str, prefix: bool = False) -> str:
    """An address or network as the canonical network it names (``prefix``: an address's
    /24 or /64); ``BadTarget`` if it is neither."""
    try:
        net: Network = ipaddress.ip_network(text.strip(), strict=False)
    except ValueError as exc:
        raise BadTarget(f"not an address or a network: {text[:64]!r}") from exc
    mapped = net.network_address.ipv4_mapped if isinstance(net, ipaddress.IPv6Network) else None
    if mapped is not None and net.prefixlen == 128:  # an IPv4 client as a dual-stack socket sees it
        net = ipaddress.ip_network(mapped)
    if prefix:
        wide = PREFIX_V4 if net.version == 4 else PREFIX_V6
        if net.prefixlen > wide:
            net = net.supernet(new_prefix=wide)
    return str(net)


def address_in(ip: str, target: str) -> bool:
    try:
        address = ipaddress.ip_address(ip)
        net = ipaddress.ip_network(target)
    except ValueError:
        return False
    candidates: list[ipaddress.IPv4Address | ipaddress.IPv6Address] = [address]
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        candidates.append(address.ipv4_mapped)  # a dual-stack socket's view of an IPv4 client
    return any(c.version == net.version and c in net for c in candidates)
