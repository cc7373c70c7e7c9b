"""A small client of the ``truco`` SSH subsystem: typed messages over asyncssh.

    async with await Client.connect("127.0.0.1", 2222, "ana") as client:
        await client.send(p.SendChat(text="hola"))
        async for event in client:          # every event, in order, until the server hangs up
            ...

``connect`` opens the SSH connection (a guest unless ``client_keys`` are given), starts the
subsystem and claims the name: it returns once the server said ``welcome`` (the first events,
the welcome and the lobby, are still delivered by the iteration), or raises ``NameRefused``
with the server's reason and suggestion. Frames are length-prefixed msgpack (docs/PROTOCOL.md);
what arrives is decoded and validated like everything else in this package.
"""
from __future__ import annotations

import asyncio
import dataclasses
import time
from collections import deque
from collections.abc import AsyncIterator, Sequence
from types import TracebackType
from typing import Any, TypeVar

import asyncssh

from protocol.codec import MAX_FRAME, FrameReader, frame
from protocol.errors import ProtocolError
from protocol.messages import (
    ClaimName, Command, Event, NameRefused as NameRefusedEvent, TableAction, TableUpdate, Welcome,
)

SUBSYSTEM = "truco"
CONNECT_TIMEOUT = 20.0
READ_CHUNK = 64 * 1024
QUEUE_MAX = 4096  # events received and not yet taken; past this the client stops reading

E = TypeVar("E", bound=Event)


def wire_view(update: TableUpdate) -> dict[str, Any]:
    """A table update's view as plain wire data (``engine.view_from_wire`` reads it), whether
    the message carries it as a map or as a typed record (every field, defaults included)."""
    view: Any = update.view
    return view if isinstance(view, dict) else dict(_every_field(view))


def _every_field(value: Any) -> Any:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _every_field(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, (tuple, list)):
        return [_every_field(v) for v in value]
    if isinstance(value, dict):
        return {k: _every_field(v) for k, v in value.items()}
    return value


class NameRefused(Exception):
    """The server refused the name (``reason``: invalid, taken, reserved_key, reserved_word)."""

    def __init__(self, event: NameRefusedEvent) -> None:
        super().__init__(f"name {event.name!r} refused: {event.reason}")
        self.event = event


class Closed(Exception):
    """The server hung up (or the connection failed)."""


class Client:
    """One subsystem session. Create it with ``await Client.connect(...)``."""

    def __init__(self, conn: asyncssh.SSHClientConnection, writer: asyncssh.SSHWriter[bytes],
                 reader: asyncssh.SSHReader[bytes]) -> None:
        self._conn = conn
        self._writer = writer
        self._reader = reader
        self._events: asyncio.Queue[Event | None] = asyncio.Queue(QUEUE_MAX)
        self._task = asyncio.get_running_loop().create_task(self._read())
        # Command ids: a seat's recent ids are remembered by its table across connections (a
        # repeat is ignored), so each connection starts from the clock, past the last one's.
        self._cid = int(time.time() * 1000)
        self._unread: deque[Event] = deque()  # events put back (``unread``), read first
        self.welcome: Welcome | None = None
        self.bytes_received = 0  # bytes read off the channel so far (frames and their lengths)
        self.error: Exception | None = None  # why the reading stopped, if not a clean end

    @classmethod
    async def connect(cls, host: str, port: int, name: str, *, lang: str = "en",
                      client_keys: Sequence[asyncssh.SSHKey] | None = None,
                      known_hosts: object = None, timeout: float = CONNECT_TIMEOUT, claim: bool = True) -> Client:
        """Connect, start the subsystem and claim ``name`` (``claim=False``: no name, as an
        operator's tool does; only operators' commands and pings are then answered).

        ``known_hosts``: as asyncssh takes it (a file name, or () for ~/.ssh/known_hosts); the
        default None accepts any host key, fine for a bot on a LAN and for tests only.
        """
        conn = await asyncio.wait_for(asyncssh.connect(
            host, port, username=name, known_hosts=known_hosts,
            client_keys=list(client_keys) if client_keys else [], agent_path=None,
            password="guest", preferred_auth="publickey,keyboard-interactive,password",
        ), timeout)
        try:
            writer, reader, _ = await asyncio.wait_for(
                conn.open_session(subsystem=SUBSYSTEM, encoding=None), timeout)
            client = cls(conn, writer, reader)
            if claim:
                await client.send(ClaimName(name=name, lang=lang))
                client.welcome = await client._await_welcome(timeout)
        except BaseException:
            conn.close()
            raise
        return client

    async def _await_welcome(self, timeout: float) -> Welcome:
        """The welcome, leaving it (and whatever came before it) to be read again."""
        held: list[Event] = []
        try:
            while True:
                event = await self.receive(timeout)
                held.append(event)
                if isinstance(event, NameRefusedEvent):
                    raise NameRefused(event)
                if isinstance(event, Welcome):
                    return event
        except Closed as exc:
            raise Closed(f"the server hung up before the welcome ({exc})") from None
        finally:
            self._unread.extendleft(reversed(held))

    async def _read(self) -> None:
        frames = FrameReader(MAX_FRAME)
        try:
            while True:
                chunk = await self._reader.read(READ_CHUNK)
                if not chunk:
                    break
                self.bytes_received += len(chunk)
                for message in frames.feed(chunk):
                    if isinstance(message, Event):
                        await self._events.put(message)
        except (ProtocolError, asyncssh.Error, OSError) as exc:
            self.error = exc
        finally:
            await self._events.put(None)

    # -- sending ----------------------------------------------------------------------
    async def send(self, command: Command) -> None:
        if self._writer.channel.is_closing():
            raise Closed("the session is closed")
        self._writer.write(frame(command))
        await self._writer.drain()

    def next_cid(self) -> int:
        """A fresh command id for a TableAction (a repeat of one id never acts twice)."""
        self._cid += 1
        return self._cid

    async def act(self, table_id: str, call: str, card: str | None = None,
                  amount: int | None = None) -> None:
        await self.send(TableAction(table_id=table_id, call=call, card=card, cid=self.next_cid(),
                                    amount=amount))

    # -- receiving --------------------------------------------------------------------
    async def receive(self, timeout: float | None = None) -> Event:
        """The next event; ``Closed`` once the server has hung up."""
        if self._unread:
            return self._unread.popleft()
        event = await asyncio.wait_for(self._events.get(), timeout)
        if event is None:
            self._events.put_nowait(None)  # every later call sees the end too
            raise Closed(str(self.error) if self.error else "the server hung up")
        return event

    def unread(self, event: Event) -> None:
        """Put an event back: the next ``receive`` (or iteration) returns it first."""
        self._unread.appendleft(event)

    async def wait_for(self, kind: type[E], timeout: float = 30.0) -> E:
        """Skip events until one of ``kind`` arrives."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            event = await self.receive(max(0.0, deadline - loop.time()))
            if isinstance(event, kind):
                return event

    def __aiter__(self) -> AsyncIterator[Event]:
        return self._iterate()

    async def _iterate(self) -> AsyncIterator[Event]:
        while True:
            try:
                yield await self.receive()
            except Closed:
                return

    # -- closing ----------------------------------------------------------------------
    async def close(self) -> None:
        self._conn.close()
        await self._conn.wait_closed()
        self._task.cancel()
        try:
            await self._task
        except asyncio.CancelledError:
            pass

    async def __aenter__(self) -> Client:
        return self

    async def __aexit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                        tb: TracebackType | None) -> None:
        await self.close()
