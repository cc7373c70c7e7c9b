"""Leases in a JetStream key-value bucket: who is the lobby host (the ``lobby`` key, whose
holder runs the lobby and every table), and which front ends are alive (each holds its own).

A process claims a key with a create-only write (exactly one claimant wins),
renews it with writes that name the revision it last wrote (so it notices at once when
another process holds the key now), and releases it on a clean stop. The bucket's TTL
removes a key nobody renewed: when a holder dies its leases vanish within ``lease_ttl``
seconds and another process's claim succeeds. The event streams' expected-sequence
check (``eventlog``) fences a host that lost its lease without noticing.
"""
from __future__ import annotations

import dataclasses
import logging
import time
from dataclasses import dataclass, field

from nats.js.api import KeyValueConfig, StorageType
from nats.js.errors import APIError, BucketNotFoundError, KeyWrongLastSequenceError, NotFoundError
from nats.js.kv import KeyValue

import protocol as p
from protocol.bus import LeaseValue
from server.cluster.bus import LEASE_BUCKET, Bus

log = logging.getLogger(__name__)

WRONG_LAST_SEQUENCE = (10071, 10164)
FRESH_SHARE = 0.8  # of the TTL: a lease renewed longer ago than this is not relied on  # JetStream's error codes for a failed expected revision


async def lease_bucket(bus: Bus) -> KeyValue:
    """The lease bucket, created on first use with the cluster's TTL and replicas.

    The TTL is the bucket's: a process started with another ``--lease-ttl`` than the
    cluster's first one adopts the bucket's (and renews at a third of it), with a warning.
    """
    try:
        kv = await bus.js.key_value(LEASE_BUCKET)
    except (BucketNotFoundError, NotFoundError):
        pass
    else:
        ttl = (await kv.status()).ttl
        if ttl and abs(ttl - bus.options.lease_ttl) > 1e-3:
            log.warning("lease: the cluster's lease TTL is %.1f s (not %.1f s): using it",
                        ttl, bus.options.lease_ttl)
            bus.options = dataclasses.replace(bus.options, lease_ttl=ttl, renew_every=ttl / 3)
        return kv
    config = KeyValueConfig(bucket=LEASE_BUCKET, history=1, ttl=bus.options.lease_ttl,
                            storage=StorageType.FILE, replicas=bus.options.replicas)
    return await bus.js.create_key_value(config=config)


@dataclass
class Lease:
    """This process's hold on one key (``revision``: the last write of it)."""

    key: str
    revision: int
    since: float
    lost: bool = False
    ready: bool = False  # written with the next renewal
    renewed_at: float = field(default_factory=time.monotonic)  # the last write that succeeded

    def fresh(self, ttl: float) -> bool:
        """Held for sure: renewed well within the TTL (a process that stalled longer may
        have lost it without knowing yet)."""
        return not self.lost and time.monotonic() - self.renewed_at < ttl * FRESH_SHARE


class Leases:
    """The leases of one process."""

    def __init__(self, bus: Bus, kv: KeyValue) -> None:
        self._bus = bus
        self._kv = kv
        self.held: dict[str, Lease] = {}

    @classmethod
    async def open(cls, bus: Bus) -> "Leases":
        return cls(bus, await lease_bucket(bus))

    def _value(self, key: str, since: float, ready: bool = False) -> bytes:
        return p.encode(LeaseValue(key=key, owner=self._bus.owner, since=since, ready=ready))

    async def claim(self, key: str) -> Lease | None:
        """The lease, if nobody holds it now (None: another process does)."""
        since = time.time()
        try:
            revision = await self._kv.create(key, self._value(key, since))
        except KeyWrongLastSequenceError:
            return None
        lease = self.held[key] = Lease(key, revision, since)
        log.info("lease: %s now holds lease %s", self._bus.owner, key)
        return lease

    async def renew(self, lease: Lease) -> bool:
        """Write the lease again (its TTL starts over); False: it was lost (expired and
        claimed by another process, or deleted): this process must stop what it guarded."""
        if lease.lost:
            return False
        try:
            asked = time.monotonic()
            lease.revision = await self._kv.update(lease.key, self._value(lease.key, lease.since, lease.ready),
                                                   last=lease.revision)
            lease.renewed_at = asked
            return True
        except KeyWrongLastSequenceError:
            lease.lost = True
            self.held.pop(lease.key, None)
            log.warning("lease: %s lost lease %s", self._bus.owner, lease.key)
            return False

    async def renew_all(self) -> list[str]:
        """Renew every lease held; the keys lost."""
        return [lease.key for lease in list(self.held.values()) if not await self.renew(lease)]

    async def release(self, lease: Lease) -> None:
        """A clean stop: the key may be claimed at once, not after the TTL."""
        self.held.pop(lease.key, None)
        if lease.lost:
            return
        lease.lost = True
        try:
            await self._kv.delete(lease.key, last=lease.revision)
            return
        except NotFoundError:
            return
        except APIError as exc:
            if exc.err_code not in WRONG_LAST_SEQUENCE:
                raise
        # A renewal cut short (its task cancelled at shutdown) may have been written without
        # its revision being kept: delete the key if it still names this process.
        try:
            entry = await self._kv.get(lease.key)
            holder = await self.owner(lease.key)
            if holder is not None and holder.owner == self._bus.owner and entry.revision is not None:
                await self._kv.delete(lease.key, last=entry.revision)
        except (NotFoundError, APIError):
            pass  # somebody else's by now, or gone: the TTL removes it anyway

    async def owner(self, key: str) -> LeaseValue | None:
        """Who holds a key now (None: nobody; a bad value counts as nobody, logged)."""
        try:
            entry = await self._kv.get(key)
        except NotFoundError:  # never written, expired, or deleted
            return None
        if entry.value is None:
            return None
        try:
            message = p.decode(entry.value, {LeaseValue.TYPE: LeaseValue})
        except p.ProtocolError as exc:
            self._bus.dropped += 1
            log.warning("lease: bad value for %.80s: %s", key, exc)
            return None
        assert isinstance(message, LeaseValue)
        return message
