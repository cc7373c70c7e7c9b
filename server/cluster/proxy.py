"""The lobby host's side of tables run by other processes (cluster mode).

The lobby (``server/lobby``) holds each running table's actor; in cluster mode it holds a
``TableProxy`` instead (``TableRegistry.new_proxy`` is the Hub's actor factory): what the
lobby posts to it is published, in order with the lobby's own frames, on the table's subject,
where the process that owns the table (``owner``) takes it. The owner sends the players'
frames itself and tells the lobby host where the table is (``TableStatus``), which the
proxy shows the lobby (finished or playing; seats given to bots at a new match).

Who runs a table: a new table goes to the process holding its first player's connection
(tables spread as players do); a table whose owner died (its process lease ran out), or
gave it up (stopped, lost its lease), goes to the live process running the fewest, which
rebuilds it from its stream; its players and spectators are then sent the match so far.
A new lobby host adopts the tables still running on live processes (nothing rebuilt) and
has the others rebuilt. While a table has no owner, what the lobby posts waits here.
"""
from __future__ import annotations

import asyncio
import dataclasses
import logging
import secrets
from collections import Counter, deque
from typing import Any, Awaitable, Callable

import engine
import protocol as p
from protocol.bus import TableOwn, TableStatus, Viewer
from server.ops import metrics
from server.cluster.bus import TABLE_NEWS, Bus, owner_subject, table_lease, table_subject
from server.cluster.tasks import cancel_and_wait
from server.cluster.lease import Leases
from server.cluster.tablewire import LobbyCall, follow, seat_record, to_call
from server.store import ChatRow, EventRow, SenaRow, Snapshot
from server.table.chance import Chance
from server.table import Occupant, Pace
from server.table import messages as tm
from server.table.snapshot import replay_match

log = logging.getLogger(__name__)

PLACE_LOOK = 1.0  # seconds between looks at whether a process asked to run a table still lives

PENDING_LIMIT = 1024  # messages a table without an owner keeps for it (then new ones are dropped)
Alive = Callable[[str], Awaitable[bool]]


class TableProxy:
    """A table's actor as the lobby sees it, run by another process (see the module)."""

    def __init__(self, registry: "TableRegistry", table_id: str, variant: str,
                 options: dict[str, p.OptionValue], seats: list[Occupant], send: Any = None, *,
                 turn_timer: int = 0, pace: Pace = Pace(), seed: int | str | None = None,
                 on_change: Callable[["TableProxy"], None] | None = None, store: Any = None,
                 title: str = "", auto_rematch: bool = False) -> None:
        self._registry = registry
        self.table_id = table_id
        self.variant = variant
        self.options = options
        self.seats = seats  # the lobby's occupants (the owner has its own copies)
        self.turn_timer = turn_timer
        self.pace = pace
        self.seed = str(seed) if seed is not None else secrets.token_hex(16)
        self.chance = Chance(table_id, self.seed)  # the deal secrets (a deserted match's record keeps one)
        self.title = title
        self.auto_rematch = auto_rematch
        self._on_change = on_change
        self.viewers: dict[int, int | None] = {}  # the spectators (players are in ``seats``)
        self.finished = False
        self.match_no = 0
        self.seq = 0
        self.owner: str | None = None
        self.ready = False  # the owner runs it: messages go out at once
        self.started = False
        self.closed = False  # Stop posted (the table is gone) or the lobby stopped
        self._replayed: engine.State | None = None
        # The current match's rows in the log, as restored (the lobby asks only whether there
        # are any: a waiting room has none, and comes back as a waiting room)
        self.events: list[EventRow] = []
        self._stopped_at: float | None = None
        self._moved = False  # its owner died: its viewers must be sent everything again
        # What waits for an owner, each with the host's frame count to its connection when it
        # was posted (the owner's frames for it follow those: server/cluster/order.py)
        self._pending: deque[tuple[LobbyCall, int]] = deque()
        self._assigning: asyncio.Task[None] | None = None

    @property
    def state(self) -> engine.State | None:
        """The state the lobby rebuilt from the log (until the table starts; the owner holds
        the live one, and rates a deserted match itself)."""
        return None if self.started else self._replayed

    # -- what the lobby calls ------------------------------------------------------------------
    def restore(self, rows: list[EventRow], snapshot: Snapshot | None = None,
                stopped_at: float | None = None, senas: list[SenaRow] | None = None,
                chat: list[ChatRow] | None = None) -> None:
        """As ``TableActor.restore``: the lobby learns where the log stands (its owner will
        rebuild it, or runs it still; the owner reads the hand's señas and the table's chat
        from their buckets itself, so ``senas`` and ``chat`` are not needed here)."""
        self.events = rows
        rules = engine.get_ruleset(self.variant, **self.options)
        replayed = replay_match(self.table_id, rules, len(self.seats), rows, snapshot)
        if replayed is None:
            return
        self._replayed, self.match_no, self.seq = replayed.state, replayed.match_no, replayed.seq
        self.finished = replayed.state.match_over
        self._stopped_at = stopped_at

    def start(self) -> None:
        self.started = True
        self._registry.proxies[self.table_id] = self
        self.assign()

    def post(self, message: LobbyCall) -> None:
        match message:
            case tm.Watch(conn_id):
                self.viewers[conn_id] = None
            case tm.Leave(conn_id) | tm.Away(conn_id):
                self.viewers.pop(conn_id, None)
            case tm.Stop():
                self.closed = True
                self._registry.proxies.pop(self.table_id, None)
        after = self._registry.stamp(message)
        if self.ready:
            self._send(message, after)
        elif len(self._pending) < PENDING_LIMIT:
            self._pending.append((message, after))
        else:
            log.warning("table %s has no owner yet: a %s is dropped", self.table_id, type(message).__name__)

    async def stop(self) -> None:
        """The lobby host stops: the table runs on (a new lobby host adopts it)."""
        self.closed, self.ready = True, False
        if self._assigning is not None:
            await cancel_and_wait(self._assigning)

    # -- the owner ------------------------------------------------------------------------------
    def _send(self, message: LobbyCall, after: int) -> None:
        conn_id = getattr(message, "conn_id", None)
        front = self._registry.front_of(conn_id) if conn_id is not None else None
        call = to_call(self.table_id, message, front or "")
        if conn_id is not None:
            call = dataclasses.replace(call, after=after, host=self._registry.bus.owner)
        self._registry.publish(table_subject(self.table_id), p.encode(call))

    def news(self, status: TableStatus) -> None:
        """Where the table is, from its owner."""
        if status.owner != self.owner or not self.ready:
            return  # an owner it had before (or a table being moved)
        if not status.running:
            log.warning("table %s: %s no longer runs it (%s)", self.table_id, status.owner, status.reason)
            self.owner_lost()
            return
        self._apply(status)

    def _apply(self, status: TableStatus) -> None:
        self.finished, self.match_no, self.seq = status.finished, status.match_no, status.seq
        for o, r in zip(self.seats, status.seats):
            follow(o, r)
        if self._on_change is not None:
            self._on_change(self)

    def owner_lost(self) -> None:
        """Its owner died or gave it up: another process rebuilds it from its stream."""
        if self.closed:
            return
        self.owner, self.ready, self._moved, self._stopped_at = None, False, True, None
        self.assign()

    def assign(self) -> None:
        if self.closed or (self._assigning is not None and not self._assigning.done()):
            return
        self._assigning = asyncio.get_running_loop().create_task(self._assign(), name=f"assign-{self.table_id}")

    async def _assign(self) -> None:
        registry, bus = self._registry, self._registry.bus
        while not self.closed:
            try:
                if await self._place(registry, bus):
                    return
            except Exception:  # the bus is slow or away: try again (never leave it unplaced)
                log.exception("table %s: cannot place it yet", self.table_id)
            await asyncio.sleep(bus.options.renew_every / 4)

    async def _place(self, registry: "TableRegistry", bus: Bus) -> bool:
        """Ask one process to run the table (True: it does)."""
        target, adopt = await registry.choose(self)
        ask = TableOwn(
            table_id=self.table_id, variant=self.variant, options=dict(self.options),
            title=self.title, turn_timer=self.turn_timer, seed=self.seed,
            auto_rematch=self.auto_rematch, seats=tuple(seat_record(o) for o in self.seats),
            viewers=self._viewer_list(), bot_delay=self.pace.bot_delay, hand_pause=self.pace.hand_pause,
            away_grace=self.pace.away_grace, stopped_at=self._stopped_at, adopt=adopt, host=bus.owner)
        status: object = None
        request = asyncio.ensure_future(bus.nc.request(owner_subject(target), p.encode(ask),
                                                       timeout=2 * bus.options.lease_ttl + 5))
        try:
            # A process that dies before it answers is not waited for to the end: make chaos
            # saw two tables wait 17 s for one killed right after it was asked
            while not (await asyncio.wait({request}, timeout=PLACE_LOOK))[0]:
                if target != bus.owner and not await registry.alive(target):
                    log.warning("table %s: %s is gone before it answered", self.table_id, target)
                    return False
            status = bus.decode(request.result())
        except Exception as exc:  # no such process any more, or it did not answer in time
            log.warning("table %s: %s did not take it (%r)", self.table_id, target, exc)
        finally:
            request.cancel()
        if isinstance(status, TableStatus) and status.running and status.table_id == self.table_id:
            self._placed(status)
            return True
        if isinstance(status, TableStatus):
            log.warning("table %s: %s did not take it (%s)", self.table_id, target, status.reason)
        return False

    def _placed(self, status: TableStatus) -> None:
        self.owner, moved, self._moved = status.owner, self._moved, False
        log.info("table %s runs on %s", self.table_id, status.owner)
        if moved:  # rebuilt elsewhere: whoever sees it is sent the match so far, first
            again: list[LobbyCall] = [tm.Rejoin(o.conn_id, seat) for seat, o in enumerate(self.seats)
                                      if o.conn_id is not None]
            again += [tm.Watch(conn_id) for conn_id, seat in self.viewers.items() if seat is None]
            self._pending.extendleft(reversed([(m, self._registry.stamp(m)) for m in again]))
        self.ready = True
        self._apply(status)
        while self._pending and self.ready:
            self._send(*self._pending.popleft())

    def _viewer_list(self) -> tuple[Viewer, ...]:
        front_of = self._registry.front_of
        seen: list[tuple[int, int | None]] = [
            (o.conn_id, seat) for seat, o in enumerate(self.seats) if o.conn_id is not None]
        seen += [(conn_id, None) for conn_id, seat in self.viewers.items() if seat is None]
        sent_to = self._registry.sent_to
        return tuple(Viewer(conn_id=c, front=front, seat=s, after=sent_to(c))
                     for c, s in seen if (front := front_of(c)))[:1000]


LEASE_LOOK_EVERY = 5  # host checks between looks at the running tables' leases


class TableRegistry:
    """The proxies of the lobby host's running tables, and who runs each."""

    def __init__(self, bus: Bus, leases: Leases, alive: Alive) -> None:
        self.bus = bus
        self._leases = leases
        self._alive = alive  # a process lives (its own lease holds)
        self.proxies: dict[str, TableProxy] = {}
        self.front_of: Callable[[int], str | None] = lambda conn_id: None  # set with the gateway
        self.publish: Callable[[str, bytes], None] = lambda subject, data: None  # the same
        self.sent_to: Callable[[int], int] = lambda conn_id: 0  # the same
        self._sub: Any = None
        self._checks = 0
        self._unheld: set[str] = set()  # tables whose lease nobody held at the last look

    def stamp(self, message: LobbyCall) -> int:
        """The host's frame count to the connection a table message is about (0: none)."""
        conn_id = getattr(message, "conn_id", None)
        return self.sent_to(conn_id) if conn_id is not None else 0

    def new_proxy(self, *args: Any, **kwargs: Any) -> TableProxy:
        """The Hub's actor factory in cluster mode (``TableActor``'s arguments)."""
        return TableProxy(self, *args, **kwargs)

    async def start(self) -> None:
        self._sub = await self.bus.subscribe(TABLE_NEWS, self._on_news)

    async def stop(self) -> None:
        if self._sub is not None:
            await self._sub.unsubscribe()
            self._sub = None
        await asyncio.gather(*(proxy.stop() for proxy in list(self.proxies.values())), return_exceptions=True)

    async def _on_news(self, message: object, msg: Any) -> None:
        if not isinstance(message, TableStatus):
            self.bus.dropped += 1
            log.warning("tables: unexpected %s on the news subject dropped", type(message).__name__)
            return
        proxy = self.proxies.get(message.table_id)
        if proxy is not None:
            proxy.news(message)

    async def check(self) -> None:
        """The tables of processes that died go to live ones (the lobby host's watch); so do,
        every ``LEASE_LOOK_EVERY`` checks, tables whose lease nobody has held at two looks in a
        row (an owner gave the table up, and its news that it did was lost: it is sent once,
        on core NATS, and a partition drops it)."""
        known: dict[str, bool] = {}
        self._checks += 1
        look_at_leases = self._checks % LEASE_LOOK_EVERY == 0
        unheld = set()
        for proxy in list(self.proxies.values()):
            owner = proxy.owner
            if owner is None or not proxy.ready:
                continue
            if owner not in known:
                known[owner] = await self._alive(owner)
            if not known[owner]:
                log.warning("table %s: its owner %s is gone; another process takes it", proxy.table_id, owner)
                metrics.FAILOVERS.inc()
                proxy.owner_lost()
            elif look_at_leases and await self._leases.owner(table_lease(proxy.table_id)) is None:
                unheld.add(proxy.table_id)
                if proxy.table_id in self._unheld:
                    log.warning("table %s: nobody holds its lease (its owner %s gave it up unheard?); "
                                "another process takes it", proxy.table_id, owner)
                    metrics.FAILOVERS.inc()
                    proxy.owner_lost()
        if look_at_leases:
            self._unheld = unheld

    async def alive(self, owner: str) -> bool:
        return await self._alive(owner)

    async def choose(self, proxy: TableProxy) -> tuple[str, bool]:
        """Where a table goes, and whether that process runs it already (adopt)."""
        holder = await self._leases.owner(table_lease(proxy.table_id))
        if holder is not None and await self._alive(holder.owner):
            return holder.owner, True
        if not proxy._moved:  # a new table: the process of its first player, if any
            for o in proxy.seats:
                front = self.front_of(o.conn_id) if o.conn_id is not None else None
                if front is not None and await self._alive(front):
                    return front, False
        load = Counter(p.owner for p in self.proxies.values() if p.owner is not None)
        candidates = {self.bus.owner, *load}
        candidates.update(f for o in proxy.seats if o.conn_id is not None and (f := self.front_of(o.conn_id)))
        alive = [c for c in sorted(candidates) if c == self.bus.owner or await self._alive(c)]
        return min(alive, key=lambda c: load[c]), False
