"""One process of a cluster (``truco-ssh serve --nats URL``).

Every process is a front end: it holds SSH connections and runs their sessions (the part
that costs the CPU), and runs the tables the lobby host gives it (``owner``: each under its
own lease, logged to JetStream). One of them, elected through the ``lobby`` lease, is also
the host: it runs the lobby (``Hub``, whose tables are proxies for their owners: ``proxy``),
keeps its directory in JetStream (``jsstore``: any process on any machine can take over),
and reaches the sessions of every front end over the bus (``host``). When a table's owner
dies, its tables go to live processes, which rebuild them from their streams. When the host
dies its lease expires, another process claims it within ``lease_ttl`` seconds, reads the
open tables and adopts those still running (the others are rebuilt); the sessions of the
other processes stay, and their front ends attach them to the new host (``reattach``).
Who is online and where is in the presence bucket (``presence``): each front end writes its
own sessions' entries; every process watches them; a dead front end's entries are dropped
once its lease is gone. The lobby's table list is in the directory bucket, written by the
host (``directory``); each process feeds its own sessions in the lobby from its copies of
both buckets (``lobby_feed``), so the host sends no list to any session.
"""
from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass, field

from nats.aio.msg import Msg
from nats.errors import Error as NatsError

from server.cluster.bus import HOST_LEASE, HOST_NEWS, TRANSIENT_ERRORS, Bus, front_lease, retrying, transient
from server.cluster.options import BusOptions
from server.cluster.tasks import cancel_and_wait
from server.cluster.chat import ChatLog
from server.cluster.copies import keep_copies
from server.cluster.directory import DirectoryMirror, HostLists
from server.cluster.front import FrontEnd
from server.cluster.host_record import HostRecord
from server.cluster.hosting import Hosting
from server.cluster.lobby_host import HostGateway
from server.cluster.lease import Lease, Leases
from server.cluster.lease_repair import LeaseRepair
from server.cluster.lobby_feed import LobbyFeed
from server.cluster.jsstore import JetStreamStore
from server.cluster.moderation import ModerationMirror
from server.cluster.names import NameMirror
from server.cluster.presence import PresenceMirror, PresenceWriter
from server.cluster.natsd import MIN_VERSION, NatsServerError
from server.cluster.owner import TableOwner
from server.cluster.proxy import TableRegistry
from server.cluster.reach import Silence, hosts
from server.cluster.reattach import REATTACH_GRACE
from server.config import ServerConfig
from server.lobby import Hub
from server.moderation.book import Moderation
from server.moderation.operators import read_operators
from server.table import Pace
from server.variants import validate_options, variant_infos

log = logging.getLogger(__name__)

START_WITHIN = 60.0  # seconds a starting process waits for JetStream to answer
WATCH_EVERY = 1.0  # seconds between looks at the leases and at who is still on the bus, at most
NEWS_EVERY = 0.2  # seconds between looks at the host lease that a new host's news asks for


async def _open_buckets(bus: Bus, config: ServerConfig
                        ) -> "tuple[Leases, NameMirror, PresenceMirror, DirectoryMirror, TableOwner, ModerationMirror]":
    """The cluster's buckets and their copies in this process (those opened are closed again
    if a later one fails: the whole is tried again)."""
    opened: list[NameMirror | PresenceMirror | DirectoryMirror | ModerationMirror] = []
    try:
        leases = await Leases.open(bus)
        names = await NameMirror.open(bus)
        opened.append(names)
        presence = await PresenceMirror.open(bus)
        opened.append(presence)
        directory = await DirectoryMirror.open(bus)
        opened.append(directory)
        moderation = await ModerationMirror.open(bus)
        opened.append(moderation)
        tables = TableOwner(bus, leases, config.log_digests)
        tables.store = JetStreamStore(bus, names, tables.still_owns)
        await tables.store.open()
        await keep_copies(bus)
    except BaseException:
        for mirror in opened:
            await mirror.close()
        raise
    return leases, names, presence, directory, tables, moderation


@dataclass
class Node:
    config: ServerConfig
    bus: Bus
    leases: Leases
    names: NameMirror
    presence: PresenceMirror
    front: FrontEnd
    tables: TableOwner
    stop: asyncio.Event
    directory: DirectoryMirror | None = None
    # The operators (this process's settings) and the cluster's bans and mutes, kept by a watch
    moderation: Moderation = field(default_factory=Moderation)
    hosting: Hosting | None = None
    front_lease: Lease | None = None
    _watch: "asyncio.Task[None] | None" = field(default=None, repr=False)
    _repairing: "asyncio.Task[None] | None" = field(default=None, repr=False)
    _stopping: "set[asyncio.Task[None]]" = field(default_factory=set, repr=False)  # lobbies stepped down from
    _closing: bool = False
    # One look at the leases at a time: the regular check's and one a new host's news asks for
    _stepping: asyncio.Lock = field(default_factory=asyncio.Lock, repr=False)
    _looked_at: float = 0.0  # when a new host's news last made this process look
    _host_missing_since: float | None = None  # when the host lease was first seen gone
    _silence: Silence = field(init=False, repr=False)  # front ends that did not answer

    def __post_init__(self) -> None:
        self._silence = Silence(self.bus.reach)
        self.front.standing = self._turning_away

    def _turning_away(self) -> str:
        """New players are refused while this process's own lease is in doubt (not renewed
        for most of its TTL: cut off from NATS, or NATS failing over). Once it ran out, the
        host may have let this process's players go, and this process ends their sessions
        as soon as it can write again; a player let in meanwhile was dropped a few seconds
        after arriving (seen in `make chaos` after a partition healed)."""
        lease = self.front_lease
        if lease is None or not lease.fresh(self.bus.options.lease_ttl):
            return "this server is reconnecting to its cluster, try again in a few seconds"
        return ""

    @classmethod
    async def join(cls, config: ServerConfig, servers: str | list[str], options: BusOptions,
                   stop: asyncio.Event) -> "Node":
        bus = await Bus.connect(servers, options)
        version = bus.nc.connected_server_version
        if (version.major, version.minor) < MIN_VERSION[:2]:
            await bus.close()
            wanted = ".".join(map(str, MIN_VERSION[:2]))
            raise NatsServerError(f"the NATS server at {bus.nc.connected_url} is {version}; "
                                  f"truco-ssh needs {wanted} or later with JetStream")
        try:
            # A NATS node failing over, or a cluster whose power just came back, answers
            # "unavailable" for a while: a process started meanwhile (by its supervisor) waits
            # for it rather than exiting.
            leases, names, presence, directory, tables, restrictions = await retrying(
                lambda: _open_buckets(bus, config), "opening the cluster's buckets", START_WITHIN)
        except (NatsError, asyncio.TimeoutError) as exc:
            await bus.close()
            raise NatsServerError(f"JetStream refused the cluster's buckets ({exc!r:.200}): is "
                                  "JetStream on, and --replicas no more than the NATS servers?") from exc
        operators = await asyncio.to_thread(read_operators, config.data_dir, config.operator_keys)
        front = FrontEnd(bus, names, PresenceWriter(presence.kv))
        front.feed = LobbyFeed(bus.owner, presence, directory, front.deliver)
        await front.start()
        await tables.start()
        return cls(config, bus, leases, names, presence, front, tables, stop, directory,
                   moderation=Moderation(operators, restrictions.book, records=restrictions,
                                         named=restrictions.operators.named))

    async def start(self) -> None:
        """Until a host is known (this process, if nobody else is)."""
        await self.bus.reach.serve(self.bus.nc, self.bus.owner, hosting=lambda: self.hosting is not None)
        # (a process started while JetStream elects its leaders, as after a power cut of every
        # node, waits for them: its supervisor would only start it again into the same wait)
        await retrying(self._keep_front_lease, "claiming this process's lease", START_WITHIN)
        await retrying(self._step, "finding the lobby host", START_WITHIN)
        await self.bus.nc.subscribe(HOST_NEWS, cb=self._on_host_news)
        self._watch = asyncio.get_running_loop().create_task(self._watch_loop(), name="host-watch")
        self._repairing = asyncio.get_running_loop().create_task(self._repair_loop(), name="lease-repair")
        while self.front.host is None and not self.stop.is_set():
            await asyncio.sleep(0.05)

    async def _watch_loop(self) -> None:
        # A flag, not only the cancellation: nats-py may turn a cancelled request into an
        # ordinary error, which this loop would otherwise log and carry on from.
        while not self._closing:
            # (at least every second, whatever the TTL: a process killed outright is found
            # dead by its absence, which takes two looks ABSENT_CONFIRM apart)
            await asyncio.sleep(min(self.bus.options.renew_every, WATCH_EVERY))
            try:
                async with self._stepping:
                    await self._keep_front_lease()
                    await self._step()
                await self._drop_dead_presence()
                if self.hosting is not None:
                    await self.hosting.gateway.drop_dead_fronts(self._front_alive)
                    await self.hosting.registry.check()
            except Exception as exc:
                _failed(exc, "cluster: host check failed")

    async def _repair_loop(self) -> None:
        """The lease bucket made again if its stream is stuck without a leader (``lease_repair``):
        apart from the host watch, whose every step waits on that stream."""
        repair = LeaseRepair(self.bus)
        while not self._closing:
            await asyncio.sleep(self.bus.options.renew_every)
            try:
                await repair.check()
            except Exception:
                log.exception("cluster: the lease repair's check failed")

    async def _on_host_news(self, msg: Msg) -> None:
        """A process says it is the new lobby host: read the lease now rather than at the next
        check, so that the sessions waiting for a host go to it at once (the message itself is
        not believed, and a flood of them costs a read every ``NEWS_EVERY`` at most)."""
        now = asyncio.get_running_loop().time()
        if self._closing or now - self._looked_at < NEWS_EVERY:
            return
        self._looked_at = now
        try:
            async with self._stepping:
                if self.hosting is None and not self._closing:
                    current = await self.leases.owner(HOST_LEASE)
                    if current is not None and current.ready:
                        self.front.host_changed(current.owner, current.since)
        except Exception:
            log.exception("cluster: cannot read the host lease")

    async def _keep_front_lease(self) -> None:
        """This process's own lease, renewed while it lives (see ``front_lease``)."""
        lease = self.front_lease
        if lease is not None and await self.leases.renew(lease, checked=True):
            return self.front.lease_renewed(lease.lapsed)
        if lease is not None and self.hosting is not None and not self.hosting.lease.lost:
            # Only the lobby host closes a silent front end's sessions, and it never judges its
            # own front end (``_front_alive``): while this process has been the host, nobody
            # closed them. (Had another process taken the host lease meanwhile, this one steps
            # down at its next renewal and its sessions attach to the new host, as after any
            # host change.) A NATS node hanging for about the lease's time did this.
            log.warning("cluster: this front end's lease ran out while the bus could not be written; "
                        "this process is the lobby host, so its sessions go on")
        elif lease is not None:  # another's, or deleted as it was taken back: nothing to ask about
            log.warning("cluster: this front end's lease ran out; its sessions end")
            self.front.hang_up_all()
        self.front_lease = await self.leases.claim(front_lease(self.bus.owner))

    async def _front_alive(self, front: str) -> bool:
        """A front end is alive while its lease holds, or, if the lease ran out (a NATS node
        failing over can outlast it), while it answers when asked (server/cluster/reach.py).
        One killed outright is gone from the bus at once: once nobody has listened for it for
        ``ABSENT_CONFIRM`` seconds it is dead and its leases are voided, its players' tables
        moving in 2-4 s rather than after the lease's TTL."""
        if front == self.bus.owner:
            return True
        if await self.leases.owner(front_lease(front)) is None:
            return not await self._silence.dead(self.bus.nc, front)
        if not await self._silence.dead(self.bus.nc, front, absent_only=True):
            return True
        voided = await self.leases.void_all(front)
        log.warning("cluster: process %s is gone from the bus: dead; its leases voided (%s)", front,
                    ", ".join(voided) or "none left")
        return False

    async def _drop_dead_presence(self) -> None:
        """Forget who was online through front ends whose lease is gone (killed outright, they
        never deleted their entries); the host also deletes them from the bucket."""
        for front in self.presence.fronts():
            if await self._front_alive(front):
                continue
            keys = self.presence.forget_front(front)
            log.warning("cluster: front end %s is gone: its %d sessions are offline", front, len(keys))
            if self.hosting is not None:
                for key in keys:
                    await self.presence.kv.delete(key)

    async def _step(self) -> None:
        """Renew the host lease if this process holds it; otherwise follow (or become) the host."""
        if self.hosting is not None:
            await self._renew(self.hosting)
            return
        current = await self.leases.owner(HOST_LEASE)
        if current is None and await self._host_takes_it_back():
            return
        if current is None:
            lease = await self.leases.claim(HOST_LEASE)
            if lease is not None:
                await self._become_host(lease)
                if self.hosting is not None:
                    self.front.host_changed(self.bus.owner, lease.since)
                return
            current = await self.leases.owner(HOST_LEASE)
        self._host_missing_since = None
        # A host that claimed the lease but is still loading gets no connections yet
        ready = current is not None and current.ready
        self.front.host_changed(current.owner if current is not None and ready else None,
                                current.since if current is not None and ready else 0.0)

    async def _host_takes_it_back(self) -> bool:
        """The host lease is gone: the host that held it may be alive (its lease ran out in
        a NATS failover) and about to take it back; while it answers, for twice the TTL at
        most, nobody else claims it (two lobbies would fight for the sessions)."""
        host = self.front.host
        if host is None or host == self.bus.owner:
            return False
        now = asyncio.get_running_loop().time()
        if self._host_missing_since is None:
            self._host_missing_since = now
        elif now - self._host_missing_since > 2 * self.bus.options.lease_ttl:
            return False
        if await hosts(self.bus.nc, host):
            log.info("cluster: the host lease is gone but its host %s still runs the lobby: it may "
                     "take it back", host)
            return True
        return False

    async def _renew(self, hosting: Hosting) -> None:
        """Renew the host lease. A bus that does not answer (a NATS node failing over) is
        waited out: the lease holds meanwhile, or ran out with nobody to take it (then it is
        taken back: ``Leases.renew``). Only a lease another process holds now ends hosting,
        and then this process steps down and follows the new host: it never stops."""
        try:
            ok = await self.leases.renew(hosting.lease)
        except TRANSIENT_ERRORS as exc:
            hosting.failed_renewals += 1
            if hosting.failed_renewals == 1:
                log.warning("cluster: cannot renew the host lease yet (%r); trying again", exc)
            return
        if hosting.failed_renewals:
            log.warning("cluster: the host lease is renewed again after %d tries", hosting.failed_renewals)
        hosting.failed_renewals = 0
        if not ok:  # another process is the host now: never run the lobby twice
            log.error("cluster: this process lost the host lease; it steps down and follows the new host")
            await self._step_down(hosting)
        elif (other := await hosting.other_host(self.bus.owner)) is not None:
            log.error("cluster: %s ran the lobby while this process's host lease had run out; this "
                      "process steps down and the lobby is loaded again", other)
            await self._step_down(hosting)

    async def _step_down(self, hosting: Hosting) -> None:
        """Hosting ends here; its last writes go on apart (``Hosting.stop``: with the bus
        half back they took 7 s in make chaos, and this process, its sessions and the next
        host's news waited for them)."""
        self.hosting = None
        stopping = asyncio.get_running_loop().create_task(self._stop_apart(hosting), name="step-down")
        self._stopping.add(stopping)
        stopping.add_done_callback(self._stopping.discard)
        self.front.host_changed(None)  # its sessions wait for the new host, then attach to it

    async def _stop_apart(self, hosting: Hosting) -> None:
        try:
            await hosting.stop(1.0, self._release)
        except Exception:
            log.exception("cluster: the lobby this process stepped down from did not stop cleanly")

    async def _become_host(self, lease: Lease) -> None:
        config = self.config
        # The lease is renewed while the lobby loads (many open tables take a while)
        keeping = asyncio.get_running_loop().create_task(self._keep(lease), name="keep-lease")
        try:
            store = JetStreamStore(self.bus, self.names)  # the tables' owners write their events
            await store.open()
            record = await HostRecord.open(self.bus)
            await record.write(self.bus.owner, lease.since)  # before the lobby serves anyone
            registry = TableRegistry(self.bus, self.leases, self._front_alive)
            chat = ChatLog(self.bus)
            await chat.open()
            hub = Hub(config, variant_infos(), validate_options, store,  # type: ignore[arg-type]
                      pace=Pace(bot_delay=config.bot_delay, hand_pause=config.hand_pause,
                                away_grace=config.away_grace),
                      actor_factory=registry.new_proxy, chat_log=chat,  # type: ignore[arg-type]
                      moderation=self.moderation)
            assert self.directory is not None
            lists = HostLists(self.directory.kv)
            hub.keep_lists_elsewhere(lists)  # each table as it is restored goes to the bucket
            hub.expect_sessions_back(REATTACH_GRACE)  # the other front ends' sessions
            await hub.load()
        except Exception:  # let go of it for the next claim (make chaos: held, nobody hosted for 10 s)
            await cancel_and_wait(keeping)  # first: a renewal still in flight would write it again
            await self._release(lease)
            raise
        finally:
            await cancel_and_wait(keeping)
        if lease.lost:
            log.error("cluster: the host lease ran out while the lobby loaded; this process follows "
                      "the new host")
            await hub.stop_tables()
            await store.close()
            return
        gateway = HostGateway(self.bus, hub)
        lists.gateway = gateway
        lists.start(hub.restored, lambda: set(hub.tables))
        registry.front_of, registry.publish, registry.sent_to = gateway.front_of, gateway.publish, gateway.sent_to
        await registry.start()  # the owners' news heard before any table is placed
        task = asyncio.get_running_loop().create_task(hub.run(), name="hub")
        await gateway.start()
        self.hosting = Hosting(lease, store, hub, gateway, registry, task, record, lists=lists)
        lease.ready = True  # the front ends send connections from now on
        await self._renew(self.hosting)
        log.warning("cluster: this process (%s) is the lobby host", self.bus.owner)
        try:
            await self.bus.nc.publish(HOST_NEWS, b"")
        except Exception:  # the others find it at their next check
            log.exception("cluster: cannot announce the new lobby host")

    async def _keep(self, lease: Lease) -> None:
        while not lease.lost:
            await asyncio.sleep(self.bus.options.renew_every)
            try:
                await self.leases.renew(lease)
            except Exception as exc:
                _failed(exc, "cluster: cannot renew the host lease")

    async def shutdown(self, grace: float) -> None:
        """Stop hosting (its tables logged, its lease released at once), the front end, the bus."""
        self._closing = True
        for task in (self._watch, self._repairing):
            if task is not None:
                await cancel_and_wait(task)
        hosting, self.hosting = self.hosting, None
        if hosting is not None:
            await hosting.stop(grace, self._release)
        if self._stopping:  # lobbies stepped down from, still writing their last
            await asyncio.wait(self._stopping)
        await self.tables.stop()  # this process's tables: logged, released, taken by others
        await self.front.stop()
        if self.front_lease is not None:
            await self._release(self.front_lease)
        await self.names.close()
        await self.presence.close()
        if self.directory is not None:
            await self.directory.close()
        if isinstance(self.moderation.records, ModerationMirror):
            await self.moderation.records.close()
        await self.bus.reach.stop()
        await self.bus.close()

    async def _release(self, lease: Lease) -> None:
        try:
            await self.leases.release(lease)
        except Exception:  # the bus is gone: the lease runs out by itself
            log.exception("cluster: cannot release the lease %s", lease.key)


def _failed(exc: Exception, what: str) -> None:
    """A periodic check's failure in the log: a bus that does not answer yet (a NATS node
    down, a stream electing its leader) in one line, tried again at the next check; anything
    else with its traceback."""
    if transient(exc):
        log.warning("%s: the bus does not answer yet (%r); tried again soon", what, exc)
    else:
        log.exception(what)


def parse_servers(text: str) -> list[str]:
    """``nats://a:4222,nats://b:4222`` -> the URLs (``nats://`` added where missing)."""
    urls = [u.strip() for u in text.split(",") if u.strip()]
    if not urls:
        raise ValueError("--nats needs at least one URL")
    return [u if "://" in u else f"nats://{u}" for u in urls]


