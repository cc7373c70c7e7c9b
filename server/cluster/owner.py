"""The tables this process runs for the cluster (every process runs some).

The lobby host asks a process to run a table (``TableOwn``, request/reply on the process's
own subject). The process claims the table's lease (``table-<id>``: create-only, renewed,
gone within the TTL when the process dies; it waits for a dead owner's lease to run out),
rebuilds the table from its stream if it has events (``engine.replay`` through
``TableActor.restore``, the seeds are the table's), starts its actor and takes the table's
messages from its subject (``truco.table.<id>``, published by the lobby host in order).

The actor logs to JetStream before it sends anything (``JetStreamStore``, fenced: it writes
only while this process is sure of the table's lease) and sends each connection's frames
straight to that connection's front end; after each change it tells the lobby host where
the table is (``TableStatus`` on ``truco.tables.news``). A table whose lease is lost, or
whose actor stopped, is dropped and the lobby host told, so that another process takes it.
"""
from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass, field
from typing import Any

from nats.aio.msg import Msg
from nats.aio.subscription import Subscription

import protocol as p
from protocol.bus import TableCall, TableOwn, TableStatus
from server.cluster.bus import (
    RESEND_SUBJECT, TABLE_NEWS, TRANSIENT_ERRORS, Bus, conn_header, front_lease, front_subject, owner_subject,
    retrying, settle, table_lease, table_subject,
)
from server.cluster.tasks import cancel_and_wait
from server.cluster.lobby_host import Outgoing
from server.cluster.jsstore import JetStreamStore
from server.cluster.lease import Lease, Leases
from server.cluster.order import AFTER_HEADER, StampBook
from server.cluster.reattach import REATTACH_GRACE
from server.cluster.table_seq import TABLE_SEQ_HEADER, table_seq_value
from server.cluster.tablewire import from_call, occupant, seat_record
from server.origins import Origins
from server.store import TableRecord
from server.table import Pace, TableActor, state_digest
from server.table import messages as tm
from server.table.moves import game_record

log = logging.getLogger(__name__)

FRONTS_KEPT = 4096  # connections a table remembers the front end of (pruned to its viewers past it)
CLAIM_EVERY = 0.2  # seconds between tries at a lease a dead owner still holds
RESEND_AFTER = 0.2  # seconds: asks to send the views again within this are answered once
CHECK_OPEN_EVERY = 10  # lease renewals between checks that the lobby did not close a table
# Lease TTLs a table waits, before a write, for its lease to be renewed through a NATS
# failover. NATS faults back to back kept the lease stream unwritable for more than two TTLs
# in make chaos; a table that gave up then stopped, and played again only once the lobby
# placed it anew, 5-8 s later. Waiting longer risks nothing: a table another process took
# over meanwhile finds its lease another's at the renewal, and its appends are fenced anyway.
WRITE_WAITS_TTLS = 5
SAID_KEPT = 256  # a table's last chat lines and señas known by their origin


@dataclass
class Owned:
    actor: TableActor
    task: "asyncio.Task[None]"  # the actor's (run here, so that it can be abandoned unwritten)
    lease: Lease
    sub: Subscription
    fronts: dict[int, str]  # connection -> the front end its frames go to
    stamps: StampBook  # connection -> the host's frame its frames follow (server/cluster/order.py)
    # A new lobby host adopted the table: the connections it has not told it of yet, and where
    # each was (a seat, None watching), until their front end attaches them to it
    expected: dict[int, int | None] = field(default_factory=dict)
    not_back: asyncio.TimerHandle | None = None  # the end of that wait
    # The origins of its last chat lines and señas: one sent again to a new host is not
    # said again (server/origins.py)
    said: Origins = field(default_factory=lambda: Origins(SAID_KEPT))

    async def stop(self) -> None:
        """The actor's last events logged and sent, then its task ends."""
        self.actor.post(tm.Stop())
        await asyncio.gather(self.task, return_exceptions=True)


class TableOwner:
    """This process's tables (see the module's docstring)."""

    def __init__(self, bus: Bus, leases: Leases, log_digests: bool = False) -> None:
        self._bus = bus
        self._leases = leases
        self._log_digests = log_digests
        self.store: JetStreamStore | None = None  # set by the node (it fences with ``still_owns``)
        self.tables: dict[str, Owned] = {}
        self._taking: dict[str, asyncio.Future[TableStatus]] = {}
        self._out = Outgoing(bus)
        self._sub: Subscription | None = None
        self._tasks: set[asyncio.Task[Any]] = set()
        self._closing = False
        self._resend_due: asyncio.TimerHandle | None = None
        self._resend_sub: Subscription | None = None

    async def start(self) -> None:
        loop = asyncio.get_running_loop()
        self._spawn(loop.create_task(self._out.run(), name="owner-out"))
        self._spawn(loop.create_task(self._keep(), name="owner-leases"))
        self._sub = await self._bus.nc.subscribe(owner_subject(self._bus.owner), cb=self._on_request)
        self._resend_sub = await self._bus.nc.subscribe(RESEND_SUBJECT, cb=self._on_resend)
        self._bus.reach.on_reconnect.append(self._ask_resend)
        await settle(self._bus.nc)

    async def _ask_resend(self) -> None:
        """This process reconnected to NATS: what it sent or was sent meanwhile may be lost,
        so every table owner (this one too) sends its viewers their views again."""
        await self._bus.nc.publish(RESEND_SUBJECT, b"")

    async def _on_resend(self, msg: Msg) -> None:
        """Asked to send the views again: once for a burst of asks (several processes
        reconnecting), but always after the last ask (one dropped could lose a needed one)."""
        if self._resend_due is None:
            self._resend_due = asyncio.get_running_loop().call_later(RESEND_AFTER, self._resend)

    def _resend(self) -> None:
        self._resend_due = None
        for table_id in list(self.tables):
            self._spawn(asyncio.get_running_loop().create_task(self._resend_if_owned(table_id)))

    async def _resend_if_owned(self, table_id: str) -> None:
        """Views again only from a table this process still owns: one cut off longer than its
        lease (a partition) has an older view than the process that took the table since."""
        if await self.still_owns(table_id) and (owned := self.tables.get(table_id)) is not None:
            owned.actor.post(tm.Resend())
        else:
            log.info("owner: table %s not sent again: its lease is not sure", table_id)

    def _spawn(self, task: "asyncio.Task[Any]") -> None:
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def stop(self) -> None:
        """A clean stop: each table's last events logged, its lease released, the lobby host
        told (another process takes the tables at once)."""
        self._closing = True
        if self._resend_due is not None:
            self._resend_due.cancel()
        for sub in (self._sub, self._resend_sub):
            if sub is not None:
                await sub.unsubscribe()
        for table_id in list(self.tables):
            await self._drop(table_id, "shutdown", stop=True)
        for _ in range(100):  # what is queued reaches the bus
            if not self._out._queue:
                break
            await asyncio.sleep(0.01)
        self._out.stopped = True
        await asyncio.gather(*(cancel_and_wait(task) for task in list(self._tasks)))

    # -- fencing: the store asks before each write ---------------------------------------
    async def still_owns(self, table_id: str) -> bool:
        lease = self._leases.held.get(table_lease(table_id))
        if lease is None:
            return False
        if lease.fresh(self._bus.options.lease_ttl):
            return True
        try:  # the table waits through a NATS failover (the lease cannot be lost meanwhile)
            return await retrying(lambda: self._leases.renew(lease), f"the lease of table {table_id}",
                                  WRITE_WAITS_TTLS * self._bus.options.lease_ttl)
        except Exception:
            log.exception("owner: cannot renew the lease of table %s before a write", table_id)
            return False

    # -- "run this table" ------------------------------------------------------------------
    async def _on_request(self, msg: Msg) -> None:
        message = self._bus.decode(msg)
        if not isinstance(message, TableOwn):
            if message is not None:
                self._bus.dropped += 1
                log.warning("owner: unexpected %s dropped", message.TYPE)
            return
        # Its own task: claiming a dead owner's table waits for its lease, others go on
        self._spawn(asyncio.get_running_loop().create_task(self._answer(msg, message)))

    async def _answer(self, msg: Msg, ask: TableOwn) -> None:
        try:
            status = await self._own(ask)
        except Exception as exc:
            log.exception("owner: cannot run table %s", ask.table_id)
            status = self._gone(ask.table_id, f"failed: {exc!r:.150}")
        if msg.reply:
            try:
                await msg.respond(p.encode(status))
            except Exception:
                log.exception("owner: cannot answer for table %s", ask.table_id)

    async def _own(self, ask: TableOwn) -> TableStatus:
        owned = self.tables.get(ask.table_id)
        if owned is not None:
            if ask.adopt:  # a new lobby host: the connections of the old one are gone
                owned.stamps.new_host(ask.host)
                await self._expect_back(ask, owned)
            return self._status(ask.table_id, owned)
        if ask.adopt or self._closing:
            return self._gone(ask.table_id, "not running here")
        taking = self._taking.get(ask.table_id)
        if taking is None:  # the same table asked twice (an answer was late): one claim
            taking = self._taking[ask.table_id] = asyncio.ensure_future(self._take(ask))
            taking.add_done_callback(lambda _f: self._taking.pop(ask.table_id, None))
        return await asyncio.shield(taking)

    async def _expect_back(self, ask: TableOwn, owned: Owned) -> None:
        """The connections the old lobby host had at the table are gone, unless their front
        end attaches them to the new one (server/cluster/reattach.py): those of a live front
        end keep their place for ``REATTACH_GRACE`` seconds (a player whose SSH connection
        never dropped is not shown away to the others meanwhile); the new host then seats
        them again (``Rejoin``) or has them watch. Those of a front end that died with the
        host, and those not back in time, are away (a spectator leaves), as before."""
        has = {v.conn_id for v in ask.viewers}  # attached to the new host already
        live: dict[str, bool] = {}
        for conn_id, seat in list(owned.actor.viewers.items()):
            if conn_id in has:
                continue
            front = owned.fronts.get(conn_id, "")
            if front and front not in live:
                live[front] = await self._front_alive(front)
            if live.get(front):
                owned.expected[conn_id] = seat
            else:
                owned.actor.post(tm.Leave(conn_id) if seat is None else tm.Away(conn_id))
        if owned.expected:
            if owned.not_back is not None:
                owned.not_back.cancel()
            owned.not_back = asyncio.get_running_loop().call_later(
                REATTACH_GRACE, self._not_back, ask.table_id, owned)

    async def _front_alive(self, front: str) -> bool:
        try:
            return front == self._bus.owner or await self._leases.owner(front_lease(front)) is not None
        except Exception:  # the bus is slow: as if it were gone (the seat shows away, as before)
            log.exception("owner: cannot read the lease of front end %s", front)
            return False

    def _not_back(self, table_id: str, owned: Owned) -> None:
        owned.not_back = None
        if self.tables.get(table_id) is not owned:
            return
        expected, owned.expected = owned.expected, {}
        for conn_id, seat in expected.items():
            if owned.actor.viewers.get(conn_id, -1) == seat:  # still where it was: not back
                log.info("table %s: conn %s was not attached to the new lobby host", table_id, conn_id)
                owned.actor.post(tm.Leave(conn_id) if seat is None else tm.Away(conn_id))

    async def _claim(self, key: str) -> Lease | None:
        """The table's lease: at once, or once a dead owner's runs out (None: another
        process holds it still after twice the TTL: it is alive)."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + 2 * self._bus.options.lease_ttl + 1
        while not self._closing:
            held = self._leases.held.get(key)
            if held is not None and not held.lost:
                return held
            lease = await self._leases.claim(key)
            if lease is not None or loop.time() > deadline:
                return lease
            await asyncio.sleep(CLAIM_EVERY)
        return None

    async def _take(self, ask: TableOwn) -> TableStatus:
        store = self.store
        assert store is not None
        lease = await self._claim(table_lease(ask.table_id))
        if lease is None:
            return self._gone(ask.table_id, "another process runs it")
        try:
            record = TableRecord(table_id=ask.table_id, title=ask.title, variant=ask.variant,
                                 options=dict(ask.options), owner="", private=False, code="",
                                 turn_timer=ask.turn_timer, seats=[], seed=ask.seed)
            await store.load_to_run(record)  # the current match from the table's stream, sealed
            fronts = {v.conn_id: v.front for v in ask.viewers}
            stamps = StampBook(ask.host, FRONTS_KEPT)
            for v in ask.viewers:
                stamps.note(ask.host, v.conn_id, v.after, lambda c: False)
            actor = TableActor(
                ask.table_id, ask.variant, dict(ask.options), [occupant(r) for r in ask.seats],
                lambda conn_id, frame: self._send(fronts, stamps, conn_id, frame, ask.table_id),
                turn_timer=ask.turn_timer,
                pace=Pace(bot_delay=ask.bot_delay, hand_pause=ask.hand_pause, away_grace=ask.away_grace),
                seed=ask.seed, store=store, title=ask.title, auto_rematch=ask.auto_rematch,  # type: ignore[arg-type]
                on_change=lambda a: self._changed(ask.table_id),
            )
            if record.events:
                # A lobby host that restarts the cluster says when it was last alive (the time
                # it was down is not the players'); a table whose owner died while the others
                # ran on kept its deadline in wall-clock time (its last event's log time plus
                # the timer): what was left of it, now, is what the turn has
                stopped_at = ask.stopped_at if ask.stopped_at is not None else time.time()
                actor.restore(record.events, None, stopped_at, record.senas, record.chat)
                if actor.state is None:
                    raise ValueError("its log replays to nothing")
            else:  # a new table: its spectators see the first deal (its players are seated)
                for v in ask.viewers:
                    if v.seat is None:
                        actor.viewers[v.conn_id] = None
            async def on_call(msg: Msg) -> None:
                await self._on_call(ask.table_id, msg)

            sub = await self._bus.nc.subscribe(table_subject(ask.table_id), cb=on_call)
            await settle(self._bus.nc)  # subscribed before the lobby host sends anything
        except BaseException:
            await self._release(lease)
            raise
        task = asyncio.get_running_loop().create_task(actor.run(), name=f"table-{ask.table_id}")
        owned = self.tables[ask.table_id] = Owned(actor, task, lease, sub, fronts, stamps)
        if record.events and actor.state is not None:
            digest = f" digest {state_digest(actor.state, len(actor.seats))}" if self._log_digests else ""
            log.info("owner: restored table %s match %s seq %s%s", ask.table_id, actor.match_no,
                     actor.seq, digest)
        return self._status(ask.table_id, owned)

    # -- the table's messages, its frames and news ---------------------------------------
    async def _on_call(self, table_id: str, msg: Msg) -> None:
        owned = self.tables.get(table_id)
        call = self._bus.decode(msg)
        if not isinstance(call, TableCall) or call.table_id != table_id:
            if call is not None:
                self._bus.dropped += 1
                log.warning("owner: %s on the subject of table %s dropped", call.TYPE, table_id)
            return
        message = from_call(call)
        if owned is None or message is None:
            return
        if call.conn_id is not None and call.front:
            if len(owned.fronts) >= FRONTS_KEPT:
                kept = owned.actor.viewers
                for conn_id in [c for c in owned.fronts if c not in kept]:
                    del owned.fronts[conn_id]
            owned.fronts[call.conn_id] = call.front
        if call.conn_id is not None:
            owned.expected.pop(call.conn_id, None)  # the new host knows where it is
        if call.conn_id is not None and call.host:
            viewers = owned.actor.viewers
            owned.stamps.note(call.host, call.conn_id, call.after, lambda c: c in viewers)
        if isinstance(message, tm.Stop):  # nobody holds a seat any more: the table closes
            # In a task of its own: unsubscribing cancels the task this callback runs in
            self._spawn(asyncio.get_running_loop().create_task(
                self._drop(table_id, "closed", stop=True, desert=message.deserted)))
            return
        if isinstance(message, (tm.Chat, tm.Sena)) and not owned.said.first_time(message.origin):
            log.info("table %s: a %s sent again after a host change is not said twice", table_id, call.kind)
            return
        owned.actor.post(message)

    def _send(self, fronts: dict[int, str], stamps: StampBook, conn_id: int, frame: bytes, table_id: str) -> None:
        front = fronts.get(conn_id)
        owned = self.tables.get(table_id)
        if front is not None:
            headers = conn_header(conn_id)
            if owned is not None:  # (None: restoring, before the actor runs)
                # The logged events' number, not the actor's: a frame sent when an append
                # failed (the storage error) must not stand above the events the table's
                # next owner restores, or the front end drops everything that owner sends
                # until the table plays past it (make chaos: a power cut of every NATS node)
                headers[TABLE_SEQ_HEADER] = table_seq_value(owned.actor.logged_seq, table_id)
            after = stamps.header(conn_id)
            if after is not None:
                headers[AFTER_HEADER] = after
            self._out.put(None, front_subject(front), headers, frame)

    def _changed(self, table_id: str) -> None:
        owned = self.tables.get(table_id)
        if owned is not None:
            self._out.put(None, TABLE_NEWS, None, p.encode(self._status(table_id, owned)))

    def _status(self, table_id: str, owned: Owned) -> TableStatus:
        actor = owned.actor
        return TableStatus(table_id=table_id, owner=self._bus.owner, running=True, finished=actor.finished,
                           match_no=actor.match_no, seq=actor.seq,
                           seats=tuple(seat_record(o) for o in actor.seats))

    def _gone(self, table_id: str, reason: str) -> TableStatus:
        return TableStatus(table_id=table_id, owner=self._bus.owner, running=False, reason=reason[:200])

    async def _drop(self, table_id: str, reason: str, stop: bool, desert: bool = False) -> None:
        """Stop running a table (``stop``: its last events logged first; ``desert``: every
        person left an unfinished match, a loss for each of them, as the lobby does in one
        process); the lobby host is told unless the table closed."""
        owned = self.tables.pop(table_id, None)
        if owned is None:
            return
        if owned.not_back is not None:
            owned.not_back.cancel()
        try:
            await owned.sub.unsubscribe()
        except Exception:
            log.exception("owner: cannot unsubscribe from table %s", table_id)
        actor = owned.actor
        if stop:
            await owned.stop()
        else:  # another process may write it now: nothing more from this one
            owned.task.cancel()
            await asyncio.gather(owned.task, return_exceptions=True)
        if desert and self.store is not None and not actor.finished and actor.state is not None:
            game, players = game_record(table_id, actor.match_no, actor.variant, actor.title,
                                        actor.seats, actor.state, actor.chance.secret(actor.match_no).hex())
            await self.store.desert(game, players)
        await self._release(owned.lease)
        if self.store is not None:
            self.store.forget(table_id)
        if reason != "closed":
            self._out.put(None, TABLE_NEWS, None, p.encode(self._gone(table_id, reason)))
        log.info("owner: table %s no longer runs here (%s)", table_id, reason)

    async def _release(self, lease: Lease) -> None:
        try:
            await self._leases.release(lease)
        except Exception:  # the bus is gone: the lease runs out by itself
            log.exception("owner: cannot release the lease %s", lease.key)

    async def _keep(self) -> None:
        """Renew the tables' leases; drop a table whose lease was lost or whose actor stopped
        (its log could not be written), so that another process takes it; and, now and then,
        a table the lobby closed without telling it (a lobby host that died meanwhile). The
        tables are renewed at once, not one after another: in a NATS outage each renewal
        waits for its timeout, and in turn the last would be tried a timeout per table late."""
        rounds = 0
        while not self._closing:
            await asyncio.sleep(self._bus.options.renew_every)
            rounds += 1
            await asyncio.gather(*(self._keep_one(table_id, owned, rounds)
                                   for table_id, owned in list(self.tables.items())))

    async def _keep_one(self, table_id: str, owned: Owned, rounds: int) -> None:
        try:
            if owned.task.done():
                await self._drop(table_id, "stopped", stop=False)
            elif not await self._leases.renew(owned.lease):
                await self._drop(table_id, "lease lost", stop=False)
            elif (rounds % CHECK_OPEN_EVERY == 0 and self.store is not None
                  and not await self.store.is_open(table_id)):
                await self._drop(table_id, "closed", stop=True)
        except TRANSIENT_ERRORS as exc:  # a NATS failover: the next round tries again
            log.warning("owner: cannot renew the lease of table %s yet: %r", table_id, exc)
        except Exception:
            log.exception("owner: cannot renew the lease of table %s", table_id)
