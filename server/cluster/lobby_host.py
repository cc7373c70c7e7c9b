"""The lobby host's end of the bus: connections of every front end, as ``HubLink``s.

Frames from ``truco.hub.in`` with a connection id go into the hub's inbox as they are (the
hub decodes and validates them, as it does a local session's); ``ConnOpened``/``ConnClosed``
open and close connections. What the hub delivers to a connection is published to that
connection's front end, in order, by one task. Each front end is told, every ``ACK_EVERY``
at most, how far its numbered messages have come (``InputAck``): it keeps the others, to
send again if this host missed one and for a next host if this one dies; they are taken
strictly in turn (server/cluster/held_input.py).
"""
from __future__ import annotations

import asyncio
import logging
import time
from collections import deque
from typing import Awaitable, Callable

from nats.aio.msg import Msg
from nats.aio.subscription import Subscription

import protocol as p
from protocol.bus import (AttachCheck, ConnAttach, ConnClosed, ConnOpened, HangUp, InputAck, PresenceEntry,
                          ResumeCode, Unattached, conn_id_batches)
from server.cluster.bus import CONN_HEADER, Bus, conn_header, front_subject, hub_subject, parse_conn_id, settle
from server.cluster.tasks import cancel_and_wait
from server.cluster.held_input import (FIRST_HEADER, IN_HEADER, LOW_HEADER, RESEND_AFTER, SENDER_HEADER,
                                       Taker, Unconfirmed)
from server.cluster.order import MOVE_HEADER, SEQ_HEADER, is_move, parse_seq
from server.link import OUTBOX_LIMIT, Closed, Frame, HubLink, Peer
from server.lobby import Hub
from server.lobby.messages import Attached, Opened
from server.lobby.state import Conn

log = logging.getLogger(__name__)

MAX_CONNS = 100_000  # connections one host accepts from all front ends together


class RemoteLink(HubLink):
    """A connection whose session lives on a front end: deliveries go out on the bus."""

    def __init__(self, post: Callable[[Frame | Closed], None], conn_id: int, front: str,
                 out: "Outgoing", gone: Callable[[int], object]) -> None:
        super().__init__(post, conn_id)
        self.front = front  # the process holding the SSH connection
        subject = front_subject(front)
        self._subject = subject
        self._out = out
        self._gone = gone  # the gateway forgets the connection
        self.in_flight = 0  # frames handed to the bus task that it has not published yet
        self.presence: PresenceEntry | None = None  # the last entry sent for it
        self.resume = ""  # the last seat code sent for it (``ResumeCode``)
        self.released = False  # this host stops; the session goes on with the next one
        self.sent = 0  # frames sent to it so far: each carries its number (server/cluster/order.py)

    @property
    def queued(self) -> int:
        return self.in_flight

    def deliver(self, data: bytes | None) -> bool:
        if data is None:
            self.hang_up()
            return True
        if self.released:
            return True
        if self.queued >= OUTBOX_LIMIT:  # the bus cannot keep up with this one: as lagging
            return False
        self.in_flight += 1
        self.sent += 1
        headers = conn_header(self.conn_id)
        headers[SEQ_HEADER] = str(self.sent)
        if is_move(data):
            headers[MOVE_HEADER] = "1"
        self._out.put(self, self._subject, headers, data, self.front)
        return True

    def hang_up(self) -> None:
        self._gone(self.conn_id)
        if not self.closed:
            self.closed = True
            if self.released:
                return
            self._out.put(None, self._subject, None, p.encode(HangUp(conn_id=self.conn_id)), self.front)


class Outgoing:
    """Everything the host publishes, in order, from one task. What it sends one front end
    (its sessions' frames, its messages about them) is numbered for that front end, kept
    until it confirms it, and sent again after ``RESEND_AFTER`` without a confirmation, as
    a front end's own messages to the host are (server/cluster/held_input.py)."""

    def __init__(self, bus: Bus) -> None:
        self._bus = bus
        self._queue: deque[tuple[RemoteLink | None, str, dict[str, str] | None, bytes, str | None]] = deque()
        self._wake = asyncio.Event()
        self.stopped = False
        # Numbers above any an earlier run of this process gave (a host that stepped down and
        # hosts again): the front ends take them in turn after those (microseconds, < 2**53)
        self._start = time.time_ns() // 1000
        self._sent: dict[str, Unconfirmed] = {}  # front end -> what it has not confirmed yet
        self._resend: asyncio.TimerHandle | None = None

    def put(self, link: RemoteLink | None, subject: str, headers: dict[str, str] | None, data: bytes,
            front: str | None = None) -> None:
        """``front``: numbered for it (``subject`` is its own)."""
        self._queue.append((link, subject, headers, data, front))
        self._wake.set()

    def confirmed(self, front: str, n: int) -> None:
        sent = self._sent.get(front)
        if sent is not None:
            sent.confirmed(n)

    def waiting(self) -> set[str]:
        """The front ends that have not confirmed all this host sent them."""
        return {front for front, sent in self._sent.items() if sent}

    def forget(self, front: str) -> None:
        """A front end judged gone: what it did not confirm is not sent again. Its numbering
        goes on (if it was only cut off, it has taken the numbers given so far)."""
        sent = self._sent.get(front)
        if sent is not None:
            sent.take()

    async def run(self) -> None:
        nc = self._bus.nc
        while not self.stopped:  # as Node._watch_loop: a cancel may come back as an error
            await self._wake.wait()
            self._wake.clear()
            while self._queue:
                link, subject, headers, data, front = self._queue.popleft()
                if link is not None:
                    link.in_flight -= 1
                if front is not None:
                    sent = self._sent.get(front)
                    if sent is None:
                        sent = self._sent[front] = Unconfirmed(self._start)
                    headers = {} if headers is None else headers
                    if IN_HEADER not in headers:  # (one sent again has its number)
                        headers[IN_HEADER] = str(sent.number(headers, data))
                    headers[LOW_HEADER] = str(sent.low())
                    headers[SENDER_HEADER] = self._bus.owner
                try:
                    await nc.publish(subject, data, headers=headers)
                except Exception:
                    log.exception("host: cannot publish to %s", subject)
            if self._resend is None and any(self._sent.values()):
                self._resend = asyncio.get_running_loop().call_later(RESEND_AFTER, self._resend_due)

    def _resend_due(self) -> None:
        """What a front end has not confirmed for ``RESEND_AFTER`` goes to it again, in order,
        before anything newer (it takes nothing after a gap, and leaves repeats)."""
        self._resend = None
        if self.stopped:
            return
        now = time.monotonic()
        again: list[tuple[RemoteLink | None, str, dict[str, str] | None, bytes, str | None]] = []
        for front, sent in self._sent.items() if self._bus.nc.is_connected else ():
            items = sent.due(now)
            if items:
                log.warning("host: %d messages front end %s has not confirmed: sent again", len(items), front)
                again += [(None, front_subject(front), headers, data, front) for headers, data in items]
        if again:
            self._queue.extendleft(reversed(again))
            self._wake.set()
        elif any(self._sent.values()):
            self._resend = asyncio.get_running_loop().call_later(RESEND_AFTER, self._resend_due)


class HostGateway:
    """Attaches the hub of this process to the sessions of every front end."""

    def __init__(self, bus: Bus, hub: Hub) -> None:
        self._bus = bus
        self._hub = hub
        self._out = Outgoing(bus)
        hub.watch_presence(self.presence_of)
        self.links: dict[int, RemoteLink] = {}
        self._sub: Subscription | None = None
        self._task: asyncio.Task[None] | None = None
        # Each front end's last numbered frame taken, and the last one it was told of
        self._in_turn = Taker(self._confirm)  # how far each front end's messages have come

    def publish(self, subject: str, data: bytes) -> None:
        """Out in order with the frames the hub sends (a table's messages: server/cluster/proxy.py)."""
        self._out.put(None, subject, None, data)

    def presence_of(self, conn: Conn) -> None:
        """Where a named connection is now, to its front end (which writes it to the presence
        bucket), in order with its frames."""
        link = self.links.get(conn.peer.conn_id)
        if link is None or link.closed or conn.name is None:
            return
        entry = PresenceEntry(conn_id=link.conn_id, front=link.front, name=conn.name,
                              guest=conn.peer.fingerprint is None, table_id=conn.table_id, seat=conn.seat,
                              rating=conn.rating)
        if entry != link.presence:  # said again (entering the lobby, then where it is): once
            link.presence = entry
            self._out.put(None, link._subject, None, p.encode(entry), link.front)
        code = self._resume_code(conn)
        if code and code != link.resume:  # kept by the front end, for a new host if this one dies (``ConnAttach``)
            link.resume = code
            self._out.put(None, link._subject, None, p.encode(ResumeCode(conn_id=link.conn_id, code=code)), link.front)

    def to_every_front(self, subject: str, message: p.Message) -> None:
        """A bus message for every front end, once, in order with every session's frames."""
        self._out.put(None, subject, None, p.encode(message))

    def to_front(self, conn_id: int, message: p.Message) -> None:
        """A bus message about a connection to its front end, in order with its frames."""
        link = self.links.get(conn_id)
        if link is not None and not link.closed:
            self._out.put(None, link._subject, None, p.encode(message), link.front)

    def _resume_code(self, conn: Conn) -> str:
        """A seated guest's code for their seat ("" if none)."""
        table = self._hub.tables.get(conn.table_id or "")
        if table is None or conn.seat is None or conn.peer.fingerprint is not None or conn.seat >= len(table.seats):
            return ""
        occupant = table.seats[conn.seat]
        return occupant.resume[:16] if occupant is not None and occupant.conn_id == conn.peer.conn_id else ""

    def sent_to(self, conn_id: int) -> int:
        """How many frames this host has sent a connection so far (what a table message
        about it says the owner's frames follow: server/cluster/order.py)."""
        link = self.links.get(conn_id)
        return 0 if link is None else link.sent

    def front_of(self, conn_id: int) -> str | None:
        """The front end holding a connection (None: not open any more)."""
        link = self.links.get(conn_id)
        return None if link is None or link.closed else link.front

    async def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._out.run(), name="host-out")
        self._sub = await self._bus.nc.subscribe(hub_subject(self._bus.owner), cb=self._on_message)
        await settle(self._bus.nc)  # subscribed before the front ends learn this is the host

    def release_sessions(self) -> None:
        """This host stops, the cluster goes on: the sessions stay their front ends', which
        attach them to the next host; nothing more reaches them from here (neither the
        hub's farewell nor a hang-up). A process that stops tells its own sessions itself."""
        for link in self.links.values():
            link.released = True

    async def stop(self) -> None:
        """Stop taking frames (the hub's shutdown then hangs up every connection)."""
        if self._sub is not None:
            await self._sub.unsubscribe()
            self._sub = None
        self._in_turn.flush()  # what it took is confirmed now: not sent to the next host again

    async def flush(self) -> None:
        """Publish what is still queued (hang-ups at shutdown), then stop the sender."""
        for _ in range(100):
            if not self._out._queue:
                break
            await asyncio.sleep(0.01)
        self._out.stopped = True
        if self._task is not None:
            await cancel_and_wait(self._task)
        await settle(self._bus.nc)

    async def _on_message(self, msg: Msg) -> None:
        headers = msg.headers or {}
        number = parse_seq(headers.get(IN_HEADER, ""))
        front = headers.get(SENDER_HEADER, "")[:256]
        if number is not None and front:
            if not self._in_turn.take(front, number, parse_seq(headers.get(LOW_HEADER, ""))):
                return  # a repeat, or one after a gap (the front end sends both again)
        conn = headers.get(CONN_HEADER)
        if conn is not None:
            link = self.links.get(parse_conn_id(conn) or 0)
            if link is None or link.closed:
                return  # a frame of a connection the host does not know (any more)
            first = parse_seq(headers.get(FIRST_HEADER, "")) or number
            self._hub.post(Frame(link.conn_id, msg.data, f"{link.front}:{first}" if first else "",
                                 again=FIRST_HEADER in headers))
            return
        message = self._bus.decode(msg)
        match message:
            case ConnOpened() | ConnAttach():
                self._open(message)
            case ConnClosed(conn_id=conn_id):
                link = self.links.pop(conn_id, None)
                if link is not None:
                    link.closed = True
                    self._hub.post(Closed(conn_id))
            case InputAck(front=front, n=n) if front:  # a front end has taken this host's messages
                if message.host == self._bus.owner:
                    self._out.confirmed(front, n)
            case AttachCheck(front=front, conn_ids=conn_ids):
                self._unattached(front, [conn_id for conn_id in conn_ids if not self._holds(front, conn_id)])
            case None:
                pass
            case _:
                self._bus.dropped += 1
                log.warning("host: unexpected %s dropped", message.TYPE)

    def _confirm(self, front: str, number: int) -> None:
        """A front end learns how far its messages have come (in order with its sessions' frames)."""
        self._out.put(None, front_subject(front), None, p.encode(InputAck(host=self._bus.owner, n=number)))

    async def drop_dead_fronts(self, alive: Callable[[str], Awaitable[bool]]) -> None:
        """Close the connections of front ends that are gone (``alive``: their lease holds);
        a process killed outright never said goodbye for its sessions. (One with none left
        that has not confirmed what this host sent it is looked at too: nothing more is sent
        again to a dead one.)"""
        for front in {link.front for link in self.links.values()} | self._out.waiting():
            if await alive(front):
                continue
            gone = [link for link in self.links.values() if link.front == front]
            if not gone:
                self._in_turn.forget(front)
                self._out.forget(front)
                continue
            log.warning("host: front end %s is gone: its %d connections close", front, len(gone))
            self._in_turn.forget(front)
            self._out.forget(front)
            for link in gone:
                self.links.pop(link.conn_id, None)
                link.closed = True
                self._hub.post(Closed(link.conn_id))
            # Lost if it is dead; if it was only cut off from the others and is back, it
            # attaches them again (it also asks, when it takes back its lapsed lease)
            self._unattached(front, [link.conn_id for link in gone])

    def _holds(self, front: str, conn_id: int) -> bool:
        link = self.links.get(conn_id)
        return link is not None and not link.closed and link.front == front

    def _unattached(self, front: str, conn_ids: list[int]) -> None:
        """Tell ``front`` which of its sessions this host does not hold (in order with its frames)."""
        for batch in conn_id_batches(conn_ids):
            self._out.put(None, front_subject(front), None, p.encode(Unattached(host=self._bus.owner, conn_ids=batch)),
                          front)

    def _open(self, message: ConnOpened | ConnAttach) -> None:
        if message.conn_id in self.links or len(self.links) >= MAX_CONNS:
            log.warning("host: connection %s refused (known, or too many)", message.conn_id)
            return
        link = RemoteLink(self._hub.post, message.conn_id, message.front, self._out,
                          lambda conn_id: self.links.pop(conn_id, None))
        self.links[message.conn_id] = link
        peer = Peer(message.conn_id, message.ip, message.username, message.fingerprint)
        if isinstance(message, ConnAttach):  # a session of a host that died (server/lobby/reattach.py)
            self._hub.post(Attached(peer, link, message.name, message.table_id, message.seat, message.resume,
                                    message.code))
        else:
            self._hub.post(Opened(peer, link))
