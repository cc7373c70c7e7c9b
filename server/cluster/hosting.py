"""What a process runs while it holds the host lease, and how that stops (server/cluster/node.py
starts it, renews its lease and steps down from it)."""
from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Awaitable, Callable

from server.cluster.directory import HostLists
from server.cluster.host_record import HostRecord
from server.cluster.jsstore import JetStreamStore
from server.cluster.lease import Lease
from server.cluster.lobby_host import HostGateway
from server.cluster.proxy import TableRegistry
from server.lobby import Hub


@dataclass
class Hosting:
    """The lobby of the cluster, run here."""

    lease: Lease
    store: JetStreamStore
    hub: Hub
    gateway: HostGateway
    registry: TableRegistry
    task: "asyncio.Task[None]"
    record: HostRecord
    failed_renewals: int = 0
    lists: HostLists | None = None  # the table directory this host writes
    lapses_checked: int = 0  # the lease's lapses (``Lease.lapsed``) looked into by ``other_host``

    async def other_host(self, owner: str) -> str | None:
        """The process that ran the lobby while the lease had run out, if it ran out and
        another did (host_record.py); None otherwise. Raises if the bus does not answer (the
        next renewal asks again)."""
        lapsed = self.lease.lapsed
        if lapsed == self.lapses_checked:
            return None
        other = await self.record.other_host(owner, self.lease.since)
        self.lapses_checked = lapsed
        return other

    async def stop(self, grace: float, release: Callable[[Lease], Awaitable[None]]) -> None:
        """The lobby stops here (its tables' last events logged, the lease released with
        ``release``); the sessions of every front end go to the next host."""
        await self.gateway.stop()
        self.gateway.release_sessions()  # the other front ends attach them to the next host
        self.hub.request_shutdown("shutdown")
        try:
            await asyncio.wait_for(self.task, timeout=grace)
        except asyncio.TimeoutError:
            self.task.cancel()
        await self.hub.stop_tables()  # proxies: the tables run on (another host adopts them)
        await self.registry.stop()
        await self.gateway.flush()
        await self.hub.drain_writes()
        if self.lists is not None:
            await self.lists.stop()
        await self.store.close()
        await release(self.lease)
