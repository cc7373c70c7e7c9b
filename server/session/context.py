"""What every connection of one server shares: its settings, the hub, the open sessions
and the per-address counters (all on one event loop)."""
from __future__ import annotations

import asyncio
import time
import weakref
from collections import Counter
from dataclasses import dataclass, field
from typing import Protocol

from server.config import ServerConfig
from server.session.cpu_budget import Budgets, address_budget
from server.link import HubLink
from server.moderation.book import Moderation
from server.ratelimit import TokenBucket


class HubPort(Protocol):
    """What the SSH layer asks of the lobby: the ``Hub`` itself, or in a cluster this
    process's front end to it (server/cluster/front.py)."""

    def connect(self, ip: str, username: str, fingerprint: str | None) -> HubLink: ...

    def reserved_fingerprint(self, key: str) -> str | None: ...

    def turning_away(self) -> str:
        """Why new players are refused now, in words for their SSH client ("": they are not)."""
        ...


class OpenSession(Protocol):
    """A running shell session, as the server sees it at shutdown."""

    def close(self) -> None: ...


@dataclass
class ServerContext:
    """Shared by every connection of one server (all on one event loop)."""

    config: ServerConfig
    hub: HubPort
    sessions: set[OpenSession] = field(default_factory=set)
    per_ip: Counter[str] = field(default_factory=Counter)
    unauthenticated: int = 0
    refusing: int = 0  # refused connections not yet told why (server/ssh/server.py)
    released: asyncio.Event = field(default_factory=asyncio.Event)  # set when a connection's counts go
    connect_rate: dict[str, TokenBucket] = field(default_factory=dict)
    # Each address's input CPU budget, shared by its sessions' input gates while one lives.
    address_cpu: weakref.WeakValueDictionary[str, Budgets] = field(default_factory=weakref.WeakValueDictionary)
    # The operators and the bans in force: a banned key, name or address is refused at the
    # handshake (server/ssh/server.py); the hub writes the same book (server/lobby/moderation.py).
    moderation: Moderation = field(default_factory=Moderation)

    async def end_sessions(self, grace: float) -> None:
        """At shutdown, once every player was told: let the sessions end by themselves for up
        to ``grace`` seconds (each writes its last screen and hangs up), then close the rest."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + grace
        while self.sessions and loop.time() < deadline:
            await asyncio.sleep(0.05)
        for session in list(self.sessions):
            session.close()

    def address_budget(self, ip: str) -> Budgets:
        """The input CPU budget the sessions from ``ip`` share (server/session/input_gate.py)."""
        budget = self.address_cpu.get(ip)
        if budget is None:
            budget = self.address_cpu[ip] = address_budget(self.config, time.perf_counter)
        return budget

    def connection_allowed(self, ip: str) -> bool:
        """The per-address connection rate (a token bucket per address)."""
        per_minute = self.config.connections_per_minute_per_ip
        bucket = self.connect_rate.get(ip)
        if bucket is None:
            if len(self.connect_rate) > 10_000:  # bound the table: forget idle addresses
                self.connect_rate = {k: b for k, b in self.connect_rate.items() if not b.full()}
            bucket = self.connect_rate[ip] = TokenBucket(per_minute / 60.0, max(1, int(per_minute)))
        return bucket.take()
