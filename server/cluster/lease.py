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

import asyncio
import dataclasses
import logging
import time
from dataclasses import dataclass, field

from nats.js.api import KeyValueConfig, StorageType
from nats.js.errors import (APIError, BucketNotFoundError, KeyNotFoundError, KeyWrongLastSequenceError,
                             NotFoundError)
from nats.js.kv import KeyValue

import protocol as p
from protocol.bus import LeaseValue
from server.cluster.bus import LEASE_BUCKET, TRANSIENT_ERRORS, WRONG_LAST_SEQUENCE, Bus, InDoubt
from server.cluster.kvscan import current_values

log = logging.getLogger(__name__)

FRESH_SHARE = 0.8  # of the TTL: a lease renewed longer ago than this is not relied on
LEADER_POLL = 0.05  # seconds between two looks at a new stream's leader


async def lease_bucket(bus: Bus) -> KeyValue:
    """The lease bucket, created on first use with the cluster's TTL and replicas.

    The TTL is the bucket's: a process started with another ``--lease-ttl`` on its command
    line changes the cluster's (for every process: each renews at a third of the TTL it reads
    at start, so the others should be restarted after a shorter one); a process started
    without it adopts the bucket's (and renews at a third of it).
    """
    try:
        kv = await bus.js.key_value(LEASE_BUCKET)
    except (BucketNotFoundError, NotFoundError):
        pass
    else:
        ttl = (await kv.status()).ttl
        if ttl and abs(ttl - bus.options.lease_ttl) > 1e-3:
            if "lease_ttl" in bus.options.asked:
                info = await bus.js.stream_info(f"KV_{LEASE_BUCKET}")
                ttl_now = bus.options.lease_ttl
                window = min(info.config.duplicate_window or ttl_now, ttl_now)  # JetStream's rule
                await bus.js.update_stream(dataclasses.replace(info.config, max_age=ttl_now, duplicate_window=window))
                log.warning("lease: the cluster's lease TTL is now %.1f s (it was %.1f s): restart the "
                            "other processes if it is shorter", bus.options.lease_ttl, ttl)
            else:
                log.warning("lease: the cluster's lease TTL is %.1f s (not %.1f s): using it",
                            ttl, bus.options.lease_ttl)
                bus.options = dataclasses.replace(bus.options, lease_ttl=ttl, renew_every=ttl / 3)
        return kv
    config = KeyValueConfig(bucket=LEASE_BUCKET, history=1, ttl=bus.options.lease_ttl,
                            storage=StorageType.FILE, replicas=bus.options.replicas)
    kv = await bus.js.create_key_value(config=config)
    await _stream_led(bus, f"KV_{LEASE_BUCKET}", within=bus.options.lease_ttl)
    return kv


async def _stream_led(bus: Bus, stream: str, within: float) -> None:
    """Wait (``within`` seconds at most) until a stream just made has a leader. Replicated,
    it elects one first, and a claim written meanwhile finds no one to answer it
    (``NoRespondersError``): the first claim of a new cluster failed so under load."""
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        try:
            info = await bus.js.stream_info(stream)
        except TRANSIENT_ERRORS:
            info = None
        if info is not None and (info.cluster is None or info.cluster.leader):
            return
        await asyncio.sleep(LEADER_POLL)
    log.warning("lease: the stream %s has no leader %.0f s after it was made", stream, within)


@dataclass
class Lease:
    """This process's hold on one key (``revision``: the last write of it)."""

    key: str
    revision: int
    since: float
    lost: bool = False
    ready: bool = False  # written with the next renewal
    renewed_at: float = field(default_factory=time.monotonic)  # the last write that succeeded
    lapsed: int = 0  # times it ran out in a bus outage and was claimed again (``Leases.renew``)
    # Claimed again after it ran out, the answer not (yet) heard: when the key is found to be
    # this process's at the next renewal, that was a lapse too (make chaos: a front end whose
    # lease ran out and was taken back so never asked the host which sessions it had closed,
    # and its players sat at a table that had moved, for good)
    retaking: bool = False

    def fresh(self, ttl: float) -> bool:
        """Held for sure: renewed well within the TTL (a process that stalled longer may
        have lost it without knowing yet)."""
        return not self.lost and time.monotonic() - self.renewed_at < ttl * FRESH_SHARE


CLAIM_TRIES = 3  # creates of a key that ran out as it was being created (see Leases.claim)
TAKE_BACK_TRIES = 4  # reads and writes of a lease found changed (see Leases._take_back)
TAKE_BACK_PAUSE = 0.05  # seconds before the second of them, doubled before each next one


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
        for _ in range(CLAIM_TRIES):
            try:
                revision = await self._kv.create(key, self._value(key, since))
                break
            except KeyWrongLastSequenceError:
                return None
            except KeyNotFoundError:
                # nats-py's create: the key was there (a holder's), so it reads it to see whether
                # it is only a delete marker; the holder's lease ran out between the two and the
                # read found nothing. Nobody holds it now: try again.
                continue
        else:
            return None  # it came and went every time: somebody else is claiming it
        lease = self.held[key] = Lease(key, revision, since)
        self._bus.reach.wrote()
        log.info("lease: %s now holds lease %s", self._bus.owner, key)
        return lease

    async def renew(self, lease: Lease, checked: bool = False) -> bool:
        """Write the lease again (its TTL starts over); False: it was lost (claimed by another
        process, or deleted): this process must stop what it guarded. A bus that does not
        answer (a NATS node down, a leader election) raises: the caller tries again soon.

        A renewal whose answer was lost in such an outage leaves the key one write ahead of
        ``revision``: it is still this process's, and is kept. A lease that ran out while the
        bus could not be written, that nobody claimed meanwhile, and whose holder could have
        been asked whether it lived all along, is claimed again (``lapsed`` counts it): nobody
        else guarded anything in between. With ``checked`` it is claimed again even if its
        holder may have been judged dead meanwhile: the holder then asks what it lost (a
        front end's lease: ``FrontEnd.lease_renewed`` asks the lobby host which sessions it
        closed, and attaches them again, rather than hang them all up)."""
        if lease.lost:
            return False
        asked = time.monotonic()
        value = self._value(lease.key, lease.since, lease.ready)
        try:
            lease.revision = await self._kv.update(lease.key, value, last=lease.revision)
        except KeyWrongLastSequenceError:
            if not await self._take_back(lease, value, checked):
                lease.lost = True
                self.held.pop(lease.key, None)
                log.warning("lease: %s lost lease %s", self._bus.owner, lease.key)
                return False
        lease.renewed_at = asked
        self._bus.reach.wrote()
        return True

    async def _take_back(self, lease: Lease, value: bytes, checked: bool) -> bool:
        """The key is not at ``revision``: still this process's (a write whose answer was
        lost), or nobody's (it ran out, or the lobby host voided it); either way written
        again. False: another's (the warning says what was found, for the operator who reads
        why sessions ended).

        Read and written again in a loop: the key may change between the two (the host
        voiding it as this process comes back to the bus). Judged lost on the first such
        change, a front end whose lease nobody else held would hang up all its players: the
        likely cause of one that did so once under load, during a NATS node's pause."""
        seen: list[str] = []  # what each try found, for the warning if none succeeds
        read_as_mine = True  # every try read the key as this process's (and its write was refused)
        for n in range(TAKE_BACK_TRIES):
            if n:  # (a leader just elected, or a key running out, may answer otherwise a moment later)
                await asyncio.sleep(TAKE_BACK_PAUSE * 2 ** (n - 1))
            try:
                entry = await self._kv.get(lease.key)
            except NotFoundError:
                entry = None
            if entry is not None:
                revision = self._mine(lease, entry)
                if revision is None:
                    held = self._decode(lease.key, entry.value) if entry.value else None
                    return self._not_taken_back(lease, f"it is {held.owner if held else 'nobody'}'s now (revision "
                                                       f"{entry.revision}, this process wrote {lease.revision})")
                try:
                    lease.revision = await self._kv.update(lease.key, value, last=revision)
                except KeyWrongLastSequenceError:
                    seen.append(f"read as this process's at revision {revision}, the write refused")
                    continue  # written meanwhile: read again
                if lease.retaking:  # the create below landed, its answer lost: a lapse all the same
                    self._lapsed(lease)
                return True
            if not checked and not self._bus.reach.reachable_since(lease.renewed_at):
                # it may have been judged dead meanwhile, and its leases voided (server/cluster/reach.py)
                return self._not_taken_back(lease, "it ran out while this process could not be reached")
            lease.retaking, read_as_mine = True, False
            try:
                lease.revision = await self._kv.create(lease.key, value)
            except KeyWrongLastSequenceError:
                seen.append("read as nobody's, the create refused")
                continue  # created meanwhile: by whom, the next read says
            except KeyNotFoundError:  # (as in ``claim``: it ran out inside nats-py's create)
                seen.append("read as nobody's, gone again inside the create")
                continue
            self._lapsed(lease)
            return True
        found = "; ".join(seen)
        if read_as_mine:
            # Its own as far as JetStream says, its writes refused: one of its own renewals is
            # still in flight (make chaos: a NATS node's pause); not lost, not yet renewed.
            raise InDoubt(f"lease {lease.key}: {found}")
        return self._not_taken_back(lease, f"it changed under each of {TAKE_BACK_TRIES} tries: {found}")

    def _not_taken_back(self, lease: Lease, why: str) -> bool:
        log.warning("lease: %s cannot take lease %s back: %s", self._bus.owner, lease.key, why)
        return False

    def _lapsed(self, lease: Lease) -> None:
        lease.retaking = False
        lease.lapsed += 1
        log.warning("lease: %s's lease %s ran out while the bus could not be written; nobody "
                    "took it: held again", self._bus.owner, lease.key)

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
            revision = self._mine(lease, await self._kv.get(lease.key))
            if revision is not None:
                await self._kv.delete(lease.key, last=revision)
        except (NotFoundError, APIError):
            pass  # somebody else's by now, or gone: the TTL removes it anyway

    def _mine(self, lease: Lease, entry: KeyValue.Entry) -> int | None:
        """The revision of ``entry`` if it still holds ``lease`` as this process wrote it."""
        if entry.value is None or entry.revision is None:
            return None
        holder = self._decode(lease.key, entry.value)
        if holder is None or (holder.owner, holder.since) != (self._bus.owner, lease.since):
            return None
        return entry.revision

    async def void(self, key: str, holder: str) -> bool:
        """``holder``, judged dead while its lease still ran (nobody on the bus listens for it:
        ``reach.Silence``), loses ``key`` at once rather than after the TTL; the delete names the
        revision read, so a lease written since (renewed, or claimed by another) stays."""
        try:
            entry = await self._kv.get(key)
        except NotFoundError:
            return False
        held = self._decode(key, entry.value) if entry.value else None
        if held is None or held.owner != holder or entry.revision is None:
            return False
        try:
            await self._kv.delete(key, last=entry.revision)
        except APIError as exc:
            if exc.err_code not in WRONG_LAST_SEQUENCE:
                raise
            return False
        log.warning("lease: %s's lease %s voided: nobody on the bus listens for %s", holder, key, holder)
        return True

    async def void_all(self, holder: str) -> list[str]:
        """Every lease ``holder`` holds, voided (``void``); the keys."""
        voided = []
        for entry in await current_values(self._kv):
            held = self._decode(entry.key, entry.value) if entry.value else None
            if held is not None and held.owner == holder and await self.void(entry.key, holder):
                voided.append(entry.key)
        return voided

    async def owner(self, key: str) -> LeaseValue | None:
        """Who holds a key now (None: nobody; a bad value counts as nobody, logged)."""
        try:
            entry = await self._kv.get(key)
        except NotFoundError:  # never written, expired, or deleted
            return None
        if entry.value is None:
            return None
        return self._decode(key, entry.value)

    def _decode(self, key: str, value: bytes) -> LeaseValue | None:
        try:
            message = p.decode(value, {LeaseValue.TYPE: LeaseValue})
        except p.ProtocolError as exc:
            self._bus.dropped += 1
            log.warning("lease: bad value for %.80s: %s", key, exc)
            return None
        assert isinstance(message, LeaseValue)
        return message
