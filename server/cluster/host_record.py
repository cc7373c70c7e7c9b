"""Who ran the lobby last, kept with no TTL, so that a host that took back a lease that had
run out can tell whether another process ran the lobby in between.

The host lease alone cannot tell: a process on a machine cut off from the others keeps its
NATS connection and does not know it was absent to them. Meanwhile another process may claim
the lobby, run it (sessions attached to it, tables moved to other owners) and lose the lease
in turn when its own renewals fail as the partition heals. The key is then empty again, and
the first holder takes it back with a lobby that missed all of that: in make chaos, after a
partition of the lobby host's machine, one player's table had moved while that host's proxy
still named the old owner, and no frame reached him again (the table played on by timeouts).

So each new host writes its name and claim here before it loads the lobby, and a host that
took its lease back reads it: if it names another, this one steps down and the lobby is
loaded again from the store (``Node._renew``).
"""
from __future__ import annotations

from nats.js.errors import KeyNotFoundError, NotFoundError
from nats.js.kv import KeyValue

import protocol as p
from protocol.bus import LeaseValue
from server.cluster.bus import HOST_LEASE, Bus, bucket
from server.cluster.jsstore import META_BUCKET

HOST_KEY = "host"  # in the meta bucket, beside the host's "alive at"


class HostRecord:
    """The last host's name and claim (``LeaseValue``), in the meta bucket."""

    def __init__(self, kv: KeyValue) -> None:
        self._kv = kv

    @classmethod
    async def open(cls, bus: Bus) -> "HostRecord":
        return cls(await bucket(bus, META_BUCKET))

    async def write(self, owner: str, since: float) -> None:
        """``owner``, which claimed the host lease at ``since``, runs the lobby from now on."""
        await self._kv.put(HOST_KEY, p.encode(LeaseValue(key=HOST_LEASE, owner=owner, since=since, ready=True)))

    async def other_host(self, owner: str, since: float) -> str | None:
        """The process that ran the lobby after ``owner``'s claim made at ``since``, or None if
        nobody did (the record is still that claim's). Raises if the bus does not answer."""
        try:
            entry = await self._kv.get(HOST_KEY)
        except (KeyNotFoundError, NotFoundError):
            return None  # written by every host since this one: none newer
        if entry.value is None:
            return None
        try:
            record = p.decode(entry.value, {LeaseValue.TYPE: LeaseValue})
        except p.ProtocolError:
            return "an unreadable record"
        assert isinstance(record, LeaseValue)
        if (record.owner, record.since) == (owner, since):
            return None
        return record.owner
