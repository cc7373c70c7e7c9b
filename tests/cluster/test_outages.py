"""What a process does when NATS fails over under it (server/cluster/reach.py, lease.py, bus.py):
a lease that ran out while nobody could write it is taken back unless its holder may have been
judged dead meanwhile; a renewal whose answer was lost keeps the lease; a process is judged
dead only after it stayed silent; the bus's transient errors are retried, others are not."""
from __future__ import annotations

import asyncio
import time

import pytest
from nats.errors import NoRespondersError, TimeoutError as NatsTimeout

from server.cluster.bus import Bus, BusOptions, retrying, settle
from server.cluster.lease import Leases
from server.cluster.natsd import NatsServer
from server.cluster.reach import (ABSENT_CONFIRM, CONFIRM, DOWN, STALL, TICK, Reach, Silence, alive_subject,
                                  hosts)

FAST = BusOptions(lease_ttl=1.0, renew_every=0.3)


class Clock:
    """A monotonic clock the test moves on (from the real one)."""

    def __init__(self) -> None:
        self.offset = 0.0

    def __call__(self) -> float:
        return time.monotonic() + self.offset


async def _until_gone(leases: Leases, key: str) -> None:
    """Until the bucket's TTL has removed ``key`` (its holder renewed nothing)."""
    async with asyncio.timeout(15):
        while await leases.owner(key) is not None:
            await asyncio.sleep(0.05)


async def test_a_lease_that_ran_out_unclaimed_is_taken_back_by_a_holder_that_stayed_reachable(
        nats_server: NatsServer) -> None:
    bus = await Bus.connect(nats_server.url, FAST, owner="proc-a")
    try:
        leases = await Leases.open(bus)
        lease = await leases.claim("t1")
        assert lease is not None
        await _until_gone(leases, "t1")  # a NATS failover outlasted the TTL
        assert await leases.renew(lease)
        assert lease.lapsed == 1 and not lease.lost
        holder = await leases.owner("t1")
        assert holder is not None and holder.owner == "proc-a" and holder.since == lease.since
        assert await leases.renew(lease) and lease.lapsed == 1  # and renewed as usual from then on
    finally:
        await bus.close()


class _CreateAnswerLost:
    """A lease bucket whose next ``create`` is written but its answer never comes (a NATS
    failover): the key is this process's, the claimer does not know it yet."""

    def __init__(self, kv: object) -> None:
        self._kv, self.lose = kv, True

    def __getattr__(self, name: str) -> object:
        return getattr(self._kv, name)

    async def create(self, key: str, value: bytes) -> int:
        revision: int = await self._kv.create(key, value)  # type: ignore[attr-defined]
        if self.lose:
            self.lose = False
            raise NatsTimeout
        return revision


async def test_a_lapsed_lease_taken_back_whose_answer_was_lost_still_counts_as_a_lapse(
        nats_server: NatsServer) -> None:
    """Its holder must learn that it ran out (a front end then asks the lobby host which of
    its sessions it closed meanwhile): found its own at the next renewal, it is a lapse."""
    bus = await Bus.connect(nats_server.url, FAST, owner="proc-a")
    try:
        leases = await Leases.open(bus)
        lease = await leases.claim("t1")
        assert lease is not None
        await _until_gone(leases, "t1")
        leases._kv = _CreateAnswerLost(leases._kv)  # type: ignore[assignment]
        with pytest.raises(NatsTimeout):
            await leases.renew(lease)  # taken back, the answer lost: the caller tries again
        assert lease.lapsed == 0
        assert await leases.renew(lease) and lease.lapsed == 1 and not lease.lost
        assert await leases.renew(lease) and lease.lapsed == 1  # renewed as usual from then on
    finally:
        await bus.close()


async def test_a_holder_that_was_unreachable_long_enough_to_be_judged_dead_gives_the_lease_up(
        nats_server: NatsServer) -> None:
    clock = Clock()
    bus = await Bus.connect(nats_server.url, FAST, owner="proc-a")
    bus.reach = Reach(clock)
    try:
        leases = await Leases.open(bus)
        lease = await leases.claim("t1")
        front = await leases.claim("front-proc-a")
        assert lease is not None and front is not None
        await _until_gone(leases, "t1")
        await _until_gone(leases, "front-proc-a")
        await bus.reach.disconnected()
        clock.offset += CONFIRM  # its NATS connection was down this long since the lease ran out
        await bus.reach.reconnected()
        assert not await leases.renew(lease)
        assert lease.lost and await leases.owner("t1") is None
        # A lease whose holder then asks what it lost (a front end asks the lobby host which
        # sessions it closed) is taken back all the same, as a lapse
        assert await leases.renew(front, checked=True)
        assert front.lapsed == 1 and not front.lost
    finally:
        await bus.close()


async def test_a_lease_another_process_took_is_lost_and_a_renewal_whose_answer_was_lost_is_not(
        nats_server: NatsServer) -> None:
    a = await Bus.connect(nats_server.url, FAST, owner="proc-a")
    b = await Bus.connect(nats_server.url, FAST, owner="proc-b")
    try:
        la, lb = await Leases.open(a), await Leases.open(b)
        lease = await la.claim("t1")
        assert lease is not None
        # A renewal that was written but whose answer never came: the key is one write ahead
        await la._kv.update("t1", la._value("t1", lease.since), last=lease.revision)
        assert await la.renew(lease) and not lease.lost and lease.lapsed == 0
        await _until_gone(la, "t1")
        assert await lb.claim("t1") is not None  # another process claimed it when it ran out
        assert not await la.renew(lease)
        assert lease.lost
        holder = await la.owner("t1")
        assert holder is not None and holder.owner == "proc-b"
    finally:
        await a.close()
        await b.close()


async def test_a_process_is_judged_dead_only_after_it_stayed_absent_or_silent(nats_server: NatsServer) -> None:
    clock = Clock()
    asker = await Bus.connect(nats_server.url, FAST, owner="asker")
    live = await Bus.connect(nats_server.url, FAST, owner="live")
    asker.reach = Reach(clock)
    silence = Silence(asker.reach)

    async def hung(msg: object) -> None:  # listened for, never answers (its NATS node hung)
        pass

    hung_sub = await live.nc.subscribe(alive_subject("hung"), cb=hung)
    try:
        await live.reach.serve(live.nc, "live")

        def after(seconds: float, writing: bool = True) -> None:
            for _ in range(int(seconds / TICK)):  # the asker's own event loop runs meanwhile
                clock.offset += TICK
                asker.reach.beat()
                if writing:  # (and renews its lease: its NATS node can write)
                    asker.reach.wrote()

        asker.reach.wrote()  # (it renewed its lease just now)
        assert not await silence.dead(asker.nc, "live")
        assert not await silence.dead(asker.nc, "gone")  # nobody listens for it: absent once, not yet
        after(ABSENT_CONFIRM / 2)
        assert not await silence.dead(asker.nc, "gone")
        after(ABSENT_CONFIRM / 2)
        assert await silence.dead(asker.nc, "gone")  # absent for ABSENT_CONFIRM seconds: dead
        assert not await silence.dead(asker.nc, "hung")  # silent (each ask waits a second) is given longer
        after(ABSENT_CONFIRM)
        assert not await silence.dead(asker.nc, "hung")
        after(CONFIRM - ABSENT_CONFIRM)
        assert await silence.dead(asker.nc, "hung")
        assert not await silence.dead(asker.nc, "live")
        # An asker whose writes get nowhere (its machine cut off from the others: it keeps its
        # own NATS connection, and every other process is absent to it) judges nobody
        assert not await silence.dead(asker.nc, "gone2")
        after(CONFIRM, writing=False)
        assert not await silence.dead(asker.nc, "gone2")
        after(TICK)  # it writes again: what it saw while it could not does not count
        assert not await silence.dead(asker.nc, "gone2")
        after(ABSENT_CONFIRM)  # absent for that long while it wrote: dead
        assert await silence.dead(asker.nc, "gone2")
        # An asker that was itself cut off judges nobody
        await asker.reach.disconnected()
        after(CONFIRM)
        assert not await silence.dead(asker.nc, "gone")
    finally:
        await hung_sub.unsubscribe()
        await live.reach.stop()
        await asker.close()
        await live.close()


async def test_a_process_says_whether_it_runs_the_lobby_when_asked(nats_server: NatsServer) -> None:
    """A host whose lease ran out still runs the lobby and takes the lease back; one that
    stepped down answers too, but the others need not wait for it (server/cluster/node.py,
    ``_host_takes_it_back``)."""
    asker = await Bus.connect(nats_server.url, FAST, owner="asker")
    host = await Bus.connect(nats_server.url, FAST, owner="host")
    hosting = True
    try:
        await host.reach.serve(host.nc, "host", hosting=lambda: hosting)
        await settle(host.nc)  # (the server has its subscription before it is asked)
        assert await hosts(asker.nc, "host")
        hosting = False  # it stepped down: alive, not hosting
        assert not await hosts(asker.nc, "host")
        assert not await silence_says_dead(asker, "host")
        assert not await hosts(asker.nc, "nobody")  # nobody listens for it
    finally:
        await host.reach.stop()
        await asker.close()
        await host.close()


async def silence_says_dead(asker: Bus, owner: str) -> bool:
    return await Silence(asker.reach).dead(asker.nc, owner)


async def test_transient_bus_errors_are_retried_within_the_time_given_and_others_are_not() -> None:
    failures = [NatsTimeout(), NoRespondersError()]

    async def flaky() -> str:
        if failures:
            raise failures.pop(0)
        return "done"

    assert await retrying(flaky, "a test write", within=5.0) == "done"

    async def down() -> str:
        raise NatsTimeout()

    with pytest.raises(NatsTimeout):  # it gives up once its time is over
        await retrying(down, "a test write", within=0.3)

    calls = 0

    async def broken() -> str:
        nonlocal calls
        calls += 1
        raise ValueError("not the bus")

    with pytest.raises(ValueError):
        await retrying(broken, "a test write", within=5.0)
    assert calls == 1


def test_only_the_part_of_an_outage_after_the_moment_asked_about_counts() -> None:
    clock = Clock()
    reach = Reach(clock)
    start = clock()
    reach._note(start, start + CONFIRM + 1, STALL)  # its event loop did not run for this long
    clock.offset += CONFIRM + 1
    reach.beat()
    assert reach.reachable_since(start + CONFIRM + 1 - (CONFIRM - 0.5))  # too little of it after to be judged dead
    assert not reach.reachable_since(start + 0.5)  # long enough after
    assert reach.reachable_since(start + CONFIRM + 1)


def test_a_short_disconnection_is_harmless_and_a_long_one_is_not() -> None:
    clock = Clock()
    reach = Reach(clock)
    start = clock()
    reach._note(start, start + 1.0, DOWN)  # moved to another NATS node in a second: never absent long
    assert reach.reachable_since(start - 10)
    reach._note(start + 2, start + 2 + ABSENT_CONFIRM, DOWN)  # absent long enough to be judged dead
    assert not reach.reachable_since(start - 10)
