"""A front end: the SSH sessions of this process, connected to the lobby host over the bus.

Each session gets an ordinary ``HubLink``; what it sends goes to ``truco.hub.in`` (its
frames as they are, its connection id in a header) and what the host sends it arrives on
this process's own subject. Lagging sessions are dropped here, as the hub does in a single
process. When the host changes (it died, another process took over) the sessions stay: each
is told the lobby is coming back, what it sends waits, and once the new host is ready each
is attached to it again (server/cluster/reattach.py: its name, its seat, what it watched),
followed by what it sent that the old host never confirmed and what it sent meanwhile
(server/cluster/held_input.py).
Where each named session is (``PresenceEntry``, from the host) is written to the presence
bucket by this process, and deleted when the session ends (server/cluster/presence.py).
The lobby's lists reach this process's sessions from its own copies (``feed``,
server/cluster/lobby_feed.py), when the host says they are in the lobby (``LobbyView``).
"""
from __future__ import annotations

import asyncio
import logging
import secrets
import time
from collections import deque
from typing import Callable

from nats.aio.msg import Msg

import protocol as p
from protocol.bus import (CONN_ID_MAX, OWNER_MAX, AttachCheck, ConnClosed, ConnOpened, HangUp, InputAck, LobbyChatLine,
                          LobbyView, PresenceEntry, ResumeCode, Unattached, conn_id_batches)
from server.cluster.bus import (CONN_HEADER, LOBBY_CHAT_SUBJECT, Bus, conn_header, front_subject, hub_subject,
                                parse_conn_id, settle)
from server.cluster.table_seq import TABLE_SEQ_HEADER, TableSeqs
from server.cluster.held_input import (FIRST_HEADER, IN_HEADER, LOW_HEADER, RESEND_AFTER, SENDER_HEADER, Held,
                                       Taker, Unconfirmed)
from server.cluster.lobby_feed import LobbyFeed
from server.cluster.names import NameMirror
from server.cluster.order import AFTER_HEADER, MOVE_HEADER, SEQ_HEADER, FrameOrder, parse_after, parse_seq
from server.cluster.presence import PresenceWriter
from server.cluster.reattach import REATTACH_WAIT, AttachBook
from server.link import Closed, Frame, HubLink

log = logging.getLogger(__name__)

SEND_QUEUE_LIMIT = 20_000  # frames waiting for the bus before new ones are dropped


class FrontEnd:
    """What the SSH layer calls ``hub`` in cluster mode (``connect``, ``reserved_fingerprint``)."""

    def __init__(self, bus: Bus, names: NameMirror, presence: PresenceWriter | None = None) -> None:
        self._bus = bus
        self._names = names
        self._presence = presence
        self.feed: LobbyFeed | None = None  # the lobby's lists (Node sets it)
        self._present: set[int] = set()  # sessions with an entry in the presence bucket
        self.subject = front_subject(bus.owner)
        # Connection ids are unique in the cluster: a random base per process, then a count.
        self._base = secrets.randbelow(CONN_ID_MAX >> 21) << 20
        self._next = 0
        self.links: dict[int, HubLink] = {}
        self._queue: deque[tuple[dict[str, str] | None, bytes]] = deque()
        self._wake = asyncio.Event()
        self._pump: asyncio.Task[None] | None = None
        self.host: str | None = None  # the process the sessions are attached to
        self.host_since = 0.0  # when it claimed the host lease: a host that lost it and claimed it again is new
        self._stopped = False
        # Sessions waiting for a host (opened while there was none, or attached to a host
        # that died): each one's opening or attachment, then its frames, sent in order once a
        # host is ready
        self._pending = Held()
        self._sent = Unconfirmed()  # what the host has not confirmed yet
        self._resend: asyncio.TimerHandle | None = None  # the next look at what it has not confirmed
        self._from_hosts = Taker(self._confirm)  # how far each host's messages to this process came
        self._confirm_tasks: set[asyncio.Task[None]] = set()
        self._book = AttachBook()  # what a new host needs to know of each session
        self._order = FrameOrder(self.deliver)  # the host's and the tables' frames, in order
        self._table_seqs = TableSeqs()  # no table frame older than one a session has (table_seq.py)
        self._no_host: asyncio.TimerHandle | None = None  # the sessions' wait for a new host ends
        # Why new players are refused now ("": they are not); the Node says (its front lease)
        self.standing: Callable[[], str] = lambda: ""
        self._lapses = 0  # times this process's lease ran out and was taken back, as last told

    async def start(self) -> None:
        await self._bus.nc.subscribe(self.subject, cb=self._on_message)
        await self._bus.subscribe(LOBBY_CHAT_SUBJECT, self._on_lobby_chat)
        await settle(self._bus.nc)  # subscribed before any session is opened
        self._pump = asyncio.get_running_loop().create_task(self._send_loop(), name="front-pump")
        if self._presence is not None:
            self._presence.start()

    async def stop(self) -> None:
        """Every session ends, told why (as a single process tells them); the host is told
        their connections closed."""
        farewell = p.encode(p.Notice(code="shutdown"))
        if self._no_host is not None:
            self._no_host.cancel()
            self._no_host = None
        for conn_id, link in list(self.links.items()):
            if conn_id not in self._pending:
                self._queue_bus(ConnClosed(conn_id=conn_id))
            link.deliver(farewell)
        self.hang_up_all()
        for _ in range(100):  # what is queued reaches the bus
            if not self._queue:
                break
            await asyncio.sleep(0.01)
        self._stopped = True
        if self._pump is not None:
            self._pump.cancel()
            await asyncio.gather(self._pump, return_exceptions=True)
        # Confirmations made just before the stop are sent (or fail) now, not left to the
        # loop's close, which reported them "never awaited" (seen once in a clean make test).
        await asyncio.gather(*self._confirm_tasks, return_exceptions=True)
        if self._presence is not None:
            await self._presence.stop()
        if not self._bus.nc.is_closed:
            await settle(self._bus.nc)

    # -- what the SSH layer calls --------------------------------------------------------
    def connect(self, ip: str, username: str, fingerprint: str | None) -> HubLink:
        self._next += 1
        conn_id = self._base + self._next
        link = HubLink(self._post, conn_id)
        self.links[conn_id] = link
        opened = ConnOpened(conn_id=conn_id, front=self._bus.owner, ip=ip[:64],
                            username=username[:256], fingerprint=fingerprint)
        self._book.opened(opened)
        if self.host is None:  # a new host is taking over: the session waits for it
            self._pending.start(conn_id, (None, p.encode(opened)))
            log.info("conn %s waits for the new lobby host", conn_id)
        else:
            self._queue_bus(opened)
        return link

    def reserved_fingerprint(self, key: str) -> str | None:
        return self._names.get(key)

    def turning_away(self) -> str:
        return self.standing()

    @property
    def online_count(self) -> int:
        return len(self.links)

    # -- session -> host -------------------------------------------------------------------
    def _post(self, message: Frame | Closed) -> None:
        if isinstance(message, Closed):
            self.links.pop(message.conn_id, None)
            self._absent(message.conn_id)
            self._forget(message.conn_id)
            if not self._pending.drop(message.conn_id):
                self._queue_bus(ConnClosed(conn_id=message.conn_id))
        else:
            item = (conn_header(message.conn_id), message.data)
            if message.conn_id not in self._pending:
                self._queue.append(item)
                self._wake.set()
            else:
                self._hold(message.conn_id, item)

    def _hold(self, conn_id: int, item: tuple[dict[str, str], bytes]) -> None:
        """A frame of a session waiting for a host; past its bounds it is dropped, and the
        player told once."""
        if not self._pending.add(conn_id, item) and self._pending.first_drop(conn_id):
            log.warning("conn %s: input past what a session may keep while the lobby host changes: dropped",
                        conn_id)
            link = self.links.get(conn_id)
            if link is not None:
                link.deliver(p.encode(p.Notice(code="reattach_dropped")))

    def _queue_bus(self, message: p.Message) -> None:
        self._queue.append((None, p.encode(message)))
        self._wake.set()

    async def _send_loop(self) -> None:
        nc = self._bus.nc
        while not self._stopped:  # as Node._watch_loop: a cancel may come back as an error
            await self._wake.wait()
            self._wake.clear()
            while self._queue and self.host is not None:  # (without a host they wait for the next)
                headers, data = self._queue.popleft()
                headers = {} if headers is None else headers
                if IN_HEADER not in headers:  # numbered, kept until the host has it (one sent
                    # again has its number already)
                    headers[IN_HEADER] = str(self._sent.number(headers, data))
                headers[LOW_HEADER] = str(self._sent.low())
                headers[SENDER_HEADER] = self._bus.owner
                try:
                    await nc.publish(hub_subject(self.host), data, headers=headers)
                except Exception:  # the connection reconnects by itself; sent again unless confirmed
                    log.exception("front end: cannot publish to the host")
            self._resend_later()
            if len(self._queue) > SEND_QUEUE_LIMIT:
                log.warning("front end: %d frames waiting for the bus: dropped", len(self._queue))
                self._queue.clear()

    def _resend_later(self) -> None:
        if self._resend is None and len(self._sent):
            self._resend = asyncio.get_running_loop().call_later(RESEND_AFTER, self._resend_due)

    def _resend_due(self) -> None:
        """Nothing confirmed for a while: the host missed something (NATS delivers at most
        once), or its confirmation went missing. Everything unconfirmed goes again, in order,
        before anything newer (the host leaves repeats, and takes nothing after a gap); not
        while this process's own connection is down (nats-py keeps what is published meanwhile)."""
        self._resend = None
        if self.host is None:
            return
        again = self._sent.due(time.monotonic()) if self._bus.nc.is_connected else []
        if again:
            log.warning("front end: %d messages the lobby host %s has not confirmed: sent again", len(again),
                        self.host)
            self._queue.extendleft(reversed(again))
            self._wake.set()
        self._resend_later()

    # -- host -> session -------------------------------------------------------------------
    async def _on_message(self, msg: Msg) -> None:
        headers = msg.headers
        if headers and SENDER_HEADER in headers and not self._in_turn(headers):
            return
        conn = headers.get(CONN_HEADER) if headers else None
        if headers and conn is not None:
            conn_id = parse_conn_id(conn) or 0
            if conn_id not in self.links:
                return
            seq = parse_seq(headers.get(SEQ_HEADER, ""))
            after = parse_after(headers.get(AFTER_HEADER, ""))
            if seq is not None:  # the host's
                if MOVE_HEADER in headers:
                    self._book.seated(conn_id, msg.data)
                self._order.host_frame(conn_id, seq, MOVE_HEADER in headers, msg.data)
            elif not self._table_seqs.fresh(conn_id, headers.get(TABLE_SEQ_HEADER)):
                log.info("conn %s: a table frame older than one it has (an owner cut off) dropped", conn_id)
            elif after is not None and after[1] == self.host:  # a table owner's, after the host's
                self._order.owner_frame(conn_id, after[0], msg.data)
            else:
                self.deliver(conn_id, msg.data)
            return
        message = self._bus.decode(msg)
        if isinstance(message, HangUp):
            link = self.links.pop(message.conn_id, None)
            self._absent(message.conn_id)
            self._forget(message.conn_id)
            if link is not None:
                link.hang_up()
        elif isinstance(message, PresenceEntry):
            self._present_at(message)
        elif isinstance(message, LobbyView):
            if self.feed is not None and message.conn_id in self.links:
                frame = self.feed.view(message)
                if frame is not None:
                    self.deliver(message.conn_id, frame)
        elif isinstance(message, ResumeCode):
            self._book.code(message)
        elif isinstance(message, Unattached):
            self._attach_again(message)
        elif isinstance(message, InputAck):
            if message.host == self.host:  # (one of an earlier host says nothing of this one)
                self._sent.confirmed(message.n)
        elif message is not None:
            self._bus.dropped += 1
            log.warning("front end: unexpected %s dropped", message.TYPE)

    def _in_turn(self, headers: dict[str, str]) -> bool:
        """A host's numbered message: taken only in turn (the host sends again what this front
        end did not confirm)."""
        number = parse_seq(headers.get(IN_HEADER, ""))
        return number is None or self._from_hosts.take(headers[SENDER_HEADER][:OWNER_MAX], number,
                                                       parse_seq(headers.get(LOW_HEADER, "")))

    def _confirm(self, host: str, number: int) -> None:
        if self._stopped:
            return  # (the host sends again, to whichever process has the sessions now)
        ack = p.encode(InputAck(host=host, n=number, front=self._bus.owner))
        task = asyncio.get_running_loop().create_task(self._publish(hub_subject(host), ack), name="front-confirm")
        self._confirm_tasks.add(task)
        task.add_done_callback(self._confirm_tasks.discard)

    async def _publish(self, subject: str, data: bytes) -> None:
        try:
            await self._bus.nc.publish(subject, data)
        except Exception as exc:  # lost with the connection: the host sends again, and is confirmed then
            log.debug("front end: confirmation to %s not sent: %r", subject, exc)

    async def _on_lobby_chat(self, message: p.Message, _msg: Msg) -> None:
        if isinstance(message, LobbyChatLine) and self.feed is not None:
            self.feed.chat(message)
        elif not isinstance(message, LobbyChatLine):
            self._bus.dropped += 1
            log.warning("front end: unexpected %s on the lobby chat dropped", message.TYPE)

    def deliver(self, conn_id: int, data: bytes) -> None:
        """A frame to one of this process's sessions; one too slow to read it is dropped."""
        link = self.links.get(conn_id)
        if link is not None and not link.deliver(data):
            log.warning("conn %s is not reading its events: dropped", link.conn_id)
            self.links.pop(link.conn_id, None)
            self._absent(link.conn_id)
            self._forget(link.conn_id)
            link.hang_up()
            self._queue_bus(ConnClosed(conn_id=link.conn_id))

    def _forget(self, conn_id: int) -> None:
        self._book.forget(conn_id)
        self._table_seqs.forget(conn_id)
        self._order.forget(conn_id)

    def host_changed(self, host: str | None, since: float = 0.0) -> None:
        """The lobby host is now ``host`` (None: none yet), which claimed the host lease at
        ``since``; the old one's sessions wait for it (or the next), then are attached to it
        again. The same process with a later claim is a new host too: it stepped down (its
        lobby, and the sessions attached to it, went) and took the lobby again meanwhile."""
        if host == self.host and (host is None or since == self.host_since):
            return
        old, self.host, self.host_since = self.host, host, since
        if old is not None:
            log.warning("lobby host %s is gone (now %s): its %d sessions wait for the next", old, host,
                        len(self.links))
            self._order.reset()  # the next host numbers its frames from 1
            self._detach_all()
        if host is not None:
            if self._no_host is not None:
                self._no_host.cancel()
                self._no_host = None
            pending = self._pending.take()
            if pending:
                log.info("lobby host %s: %d waiting sessions go to it", host, len(pending))
            for conn_id, items in pending.items():
                if conn_id in self.links:
                    self._queue.extend(items)
            self._wake.set()
        elif self._no_host is None:
            self._no_host = asyncio.get_running_loop().call_later(REATTACH_WAIT, self._give_up)

    def _detach_all(self) -> None:
        """The host died: each session is told, and waits with its attachment first in line,
        then what the old host never confirmed and what was still to go to it."""
        notice = p.encode(p.Notice(code="reattaching"))
        for conn_id, link in list(self.links.items()):
            if conn_id in self._pending:
                continue  # opened while there was no host: its opening waits already
            attach = self._book.attach(conn_id)
            if attach is None:  # never happens: every link was opened here
                continue
            self._pending.start(conn_id, (None, p.encode(attach)))
            link.deliver(notice)
        # (what was to go to the old host again is in ``_sent``, numbered for it)
        self._queue = deque(item for item in self._queue if item[0] is None or IN_HEADER not in item[0])
        unsent = [item for item in self._queue if item[0] is not None and CONN_HEADER in item[0]]
        if unsent:
            self._queue = deque(item for item in self._queue if item[0] is None or CONN_HEADER not in item[0])
        again = self._sent.take() + [(int(headers[CONN_HEADER]), data, int(headers.get(FIRST_HEADER, 0)))
                                     for headers, data in unsent if headers]
        if again:
            log.info("%d frames the old lobby host did not confirm go to the next one", len(again))
        for conn_id, data, first in again:
            if conn_id in self._pending:
                headers = conn_header(conn_id)
                if first:  # what the old host may have taken: known by its first number
                    headers[FIRST_HEADER] = str(first)
                self._hold(conn_id, (headers, data))

    def lease_renewed(self, lapses: int) -> None:
        """This process's lease was renewed; ``lapses``: times it ran out and was taken back.
        After a new lapse the lobby host may have judged this process gone and closed its
        sessions: cut off from the others while its own NATS node still answered, it cannot
        tell (server/cluster/reach.py). So it asks the host which ones it still holds."""
        if lapses == self._lapses:
            return
        self._lapses = lapses
        if self.host is None or self.host == self._bus.owner:
            return  # (a host never judges its own front end; without one, they attach to the next)
        for batch in conn_id_batches([conn_id for conn_id in self.links if conn_id not in self._pending]):
            self._queue_bus(AttachCheck(front=self._bus.owner, conn_ids=batch))

    def _attach_again(self, message: Unattached) -> None:
        """The host does not hold these sessions (it judged this process gone): each is
        attached to it again, as to a new host."""
        if message.host != self.host:
            return  # an earlier host's: the sessions attach to the current one anyway
        again = [conn_id for conn_id in message.conn_ids if conn_id in self.links and conn_id not in self._pending]
        if again:
            log.warning("lobby host %s does not hold %d sessions of this process (it judged it gone): they "
                        "attach to it again", message.host, len(again))
        notice = p.encode(p.Notice(code="reattaching"))
        for conn_id in again:
            attach = self._book.attach(conn_id)
            if attach is None:
                continue
            self._order.forget(conn_id)  # the host numbers its frames to it from 1 again
            self._book.say_again(conn_id)  # (the host deleted its presence entry)
            self._present.discard(conn_id)
            self._queue.append((None, p.encode(attach)))
            self.links[conn_id].deliver(notice)
        self._wake.set()

    def _give_up(self) -> None:
        """No host came back in time: the waiting sessions end (players reconnect later)."""
        self._no_host = None
        if self.host is not None:
            return
        log.warning("no lobby host for %.0f s: %d waiting sessions end", REATTACH_WAIT, len(self._pending))
        for conn_id in self._pending.waiting():
            link = self.links.pop(conn_id, None)
            self._absent(conn_id)
            self._forget(conn_id)
            if link is not None:
                link.hang_up()
        self._pending.take()

    def hang_up_all(self) -> None:
        self._pending.take()
        self._sent.take()
        self._book.clear()
        self._order.reset()
        links, self.links = self.links, {}
        for conn_id, link in links.items():
            self._absent(conn_id)
            link.hang_up()

    # -- presence ----------------------------------------------------------------------------
    def _present_at(self, entry: PresenceEntry) -> None:
        """The host says where a session of this process is: written if it is still here."""
        if entry.front != self._bus.owner or entry.conn_id not in self.links:
            return  # not ours, or it ended meanwhile (its delete was queued already)
        if not self._book.moved(entry):
            return  # said again (entering the lobby, then where it is; a guest's seat got its code)
        if self.feed is not None:
            self.feed.own(entry)
        if self._presence is not None:
            self._present.add(entry.conn_id)
            self._presence.put(entry)

    def _absent(self, conn_id: int) -> None:
        if self.feed is not None:
            self.feed.own_gone(conn_id)
        if conn_id in self._present and self._presence is not None:
            self._present.discard(conn_id)
            self._presence.delete(self._bus.owner, conn_id)

