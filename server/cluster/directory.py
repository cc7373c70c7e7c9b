"""The lobby's table list in cluster mode: the directory bucket, its writer and its copies.

The lobby host is the bucket's one writer (``HostLists``, what its ``LobbyState`` calls
instead of sending the lists to every session): a ``DirectoryEntry`` (the ``TableInfo``
the lobby shows) under each table's id at each change, deleted when the table goes. Every
process keeps a copy from a watch (``DirectoryMirror``), from which it feeds its own
sessions in the lobby (server/cluster/lobby_feed.py); a malformed value is logged and
dropped. So a change costs one write and one delivery per process, not one frame per
session of the cluster.

A new host writes each table as it restores or adopts it; once every table of the last
run is back it deletes the keys of tables it does not have (they closed while there was
no host, or could not be restored), so stale entries last no longer than a takeover.
"""
from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING, Any, Callable

from nats.js.kv import KeyValue

import protocol as p
from protocol.bus import DirectoryEntry, LobbyChatLine, LobbyView
from server.cluster.bus import DIRECTORY_BUCKET, LOBBY_CHAT_SUBJECT, Bus
from server.cluster.tasks import cancel_and_wait
from server.cluster.kvscan import current_values
from server.cluster.mirror import BucketMirror, BucketWriter
from server.lobby.state import Conn

if TYPE_CHECKING:
    from server.cluster.lobby_host import HostGateway

log = logging.getLogger(__name__)

TABLES_MAX = 100_000  # tables a copy keeps (a flood of foreign keys cannot grow it further)


class DirectoryMirror(BucketMirror):
    """This process's copy of the bucket (table id -> what the lobby shows of it)."""

    BUCKET = DIRECTORY_BUCKET
    MESSAGE = DirectoryEntry
    LABEL = "directory"

    def __init__(self, bus: Bus, kv: KeyValue) -> None:
        super().__init__(bus, kv)
        self._tables: dict[str, p.TableInfo] = {}
        # Told of each change (table id, info; None: gone), as it is applied
        self.changed: Callable[[str, p.TableInfo | None], None] | None = None

    def tables(self) -> list[p.TableInfo]:
        return list(self._tables.values())

    def _forget(self, key: str) -> None:
        if self._tables.pop(key, None) is not None and self.changed is not None:
            self.changed(key, None)

    def _keep(self, key: str, message: Any) -> str | None:
        assert isinstance(message, DirectoryEntry)
        info = message.table
        if info.table_id != key:
            return "it names another table"
        if key not in self._tables and len(self._tables) >= TABLES_MAX:
            return f"{TABLES_MAX} tables already"
        if self._tables.get(key) == info:
            return None  # written again as it was (a new host): no news
        self._tables[key] = info
        if self.changed is not None:
            self.changed(key, info)
        return None


class DirectoryWriter(BucketWriter):
    LABEL = "directory"


class HostLists:
    """The lobby host's side (``server.lobby.state.LobbyLists``): tables to the bucket, and
    to each session's front end (through ``gateway``, in order with the session's frames)
    when the session enters or leaves the lobby."""

    def __init__(self, kv: KeyValue) -> None:
        self._writer = DirectoryWriter(kv)
        self._written: set[str] = set()  # the tables in the bucket, as this host wrote it
        self.gateway: HostGateway | None = None
        self._tidy: asyncio.Task[None] | None = None

    # -- what the lobby calls ----------------------------------------------------------
    def table(self, info: p.TableInfo) -> None:
        self._written.add(info.table_id)
        self._writer.write(info.table_id, p.encode(DirectoryEntry(table=info)))

    def table_removed(self, table_id: str) -> None:
        self._written.discard(table_id)
        self._writer.write(table_id, None)

    def entered(self, conn: Conn, chat: tuple[p.ChatLine, ...]) -> None:
        if self.gateway is not None:
            # Its own entry first, so that the lists it gets show it
            self.gateway.presence_of(conn)
            self.gateway.to_front(conn.peer.conn_id, LobbyView(conn_id=conn.peer.conn_id, chat=chat))

    def chat(self, line: p.ChatLine) -> None:
        if self.gateway is not None:
            self.gateway.to_every_front(LOBBY_CHAT_SUBJECT, LobbyChatLine(
                sender=line.sender, text=line.text, ts=line.ts, system=line.system))

    def left(self, conn: Conn) -> None:
        if self.gateway is not None:
            self.gateway.to_front(conn.peer.conn_id, LobbyView(conn_id=conn.peer.conn_id, in_lobby=False))

    # -- running -----------------------------------------------------------------------
    def start(self, restored: asyncio.Event, tables: Callable[[], set[str]]) -> None:
        """Write from now on; once every table is back (``restored``), delete the others."""
        self._writer.start()
        self._tidy = asyncio.get_running_loop().create_task(self._tidy_up(restored, tables),
                                                            name="directory-tidy")

    async def stop(self) -> None:
        if self._tidy is not None:
            await cancel_and_wait(self._tidy)
        await self._writer.stop()

    async def _tidy_up(self, restored: asyncio.Event, tables: Callable[[], set[str]]) -> None:
        await restored.wait()
        try:
            keys = [entry.key for entry in await current_values(self._writer.kv)]  # (kvscan.py)
        except Exception as exc:  # the bus is down: the next host tidies
            log.warning("directory: cannot list the tables: %r", exc)
            return
        # Read now, after the await: what the lobby wrote meanwhile is kept
        kept = self._written | tables()
        stale = [key for key in keys if key not in kept]
        for key in stale:
            self._writer.write(key, None)
        if stale:
            log.info("directory: %d tables of an earlier host are gone", len(stale))
