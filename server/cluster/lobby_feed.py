"""The lobby's lists for one front end's sessions, from its own copies (cluster mode).

Who is online comes from the presence bucket (``PresenceMirror``): this process's own
sessions as the lobby host tells it (in order with their frames, before the bucket has
them), every other process's from the watch. The tables come from the directory bucket
(``DirectoryMirror``, written by the host alone). A session the host says is in the lobby
(``LobbyView``) gets a ``LobbySnapshot`` built from the copies at that moment, and from
then on every change of them as news (``PlayerUpdated``/``PlayerLeft``/``TableUpdated``/
``TableRemoved``), until the host says it left for a table: snapshot and news come from
one ordered source, in the event loop with nothing awaited in between, so a session
neither sees a ghost nor misses anyone. As in one process, only sessions in the lobby get
the lobby's news; a table's own news reaches the people at it from the host.

The lobby lists players by name: while a name has two sessions (the same person coming
back, the old session not yet gone) it shows the latest, and leaves when the last goes.
"""
from __future__ import annotations

import logging
from typing import Callable

import protocol as p
from protocol.bus import LobbyChatLine, LobbyView, PresenceEntry
from server.cluster.bus import presence_key
from server.cluster.directory import DirectoryMirror
from server.cluster.presence import PresenceMirror

log = logging.getLogger(__name__)

Deliver = Callable[[int, bytes], None]  # a frame to one of this process's sessions


def player_info(entry: PresenceEntry) -> p.PlayerInfo:
    return p.PlayerInfo(name=entry.name, guest=entry.guest, table_id=entry.table_id, rating=entry.rating)


class LobbyFeed:
    def __init__(self, owner: str, presence: PresenceMirror, directory: DirectoryMirror,
                 deliver: Deliver) -> None:
        self._owner = owner
        self._own_prefix = presence_key(owner, 0)[:-1]  # "<front>.": this process's keys
        self._directory = directory
        self._deliver = deliver
        self._entries: dict[str, PresenceEntry] = {}  # presence key -> entry
        self._keys_of: dict[str, dict[str, None]] = {}  # name -> its sessions' keys, latest last
        self._shown: dict[str, p.PlayerInfo] = {}  # name -> what the lobby lists
        self._lobby: set[int] = set()  # this process's sessions in the lobby
        self._named: set[int] = set()  # this process's sessions with a name (a presence entry)
        for key, entry in presence.items():
            self._watched(key, entry)
        presence.changed = self._watched
        directory.changed = self._table

    # -- this process's sessions, as the host tells it ---------------------------------
    def view(self, message: LobbyView) -> bytes | None:
        """The host says where a session is: entering the lobby, its lists (to deliver)."""
        if not message.in_lobby:
            self._lobby.discard(message.conn_id)
            return None
        snapshot = p.LobbySnapshot(players=tuple(self._shown.values()),
                                   tables=tuple(self._directory.tables()), chat=message.chat)
        try:
            frame = p.encode(snapshot)
        except p.ProtocolError as exc:  # more than a frame holds: as the hub in one process
            log.error("conn %s: lobby snapshot not sent: %s", message.conn_id, exc)
            return None
        self._lobby.add(message.conn_id)  # its news from now on
        return frame

    def own(self, entry: PresenceEntry) -> None:
        """Where one of this process's sessions is (the host said so)."""
        self._named.add(entry.conn_id)
        self._set(presence_key(self._owner, entry.conn_id), entry)

    def own_gone(self, conn_id: int) -> None:
        """One of this process's sessions ended (or went unnamed from the list)."""
        self._lobby.discard(conn_id)
        self._named.discard(conn_id)
        self._set(presence_key(self._owner, conn_id), None)

    def chat(self, said: LobbyChatLine) -> None:
        """A lobby chat line, published once by the host for every front end: to every named
        session of this process, as the hub sends it to every named session in one process.
        It left the host in order with the sessions' own frames (one publisher, one queue), so
        a session that entered the lobby after it has it in its snapshot, and not twice."""
        if not self._named:
            return
        frame = p.encode(p.Chat(line=p.ChatLine(sender=said.sender, text=said.text, ts=said.ts,
                                                system=said.system)))
        for conn_id in list(self._named):
            self._deliver(conn_id, frame)

    def own_entry(self, conn_id: int) -> PresenceEntry | None:
        return self._entries.get(presence_key(self._owner, conn_id))

    # -- the copies ----------------------------------------------------------------------
    def _watched(self, key: str, entry: PresenceEntry | None) -> None:
        if not key.startswith(self._own_prefix):  # this process's own: from the host, above
            self._set(key, entry)

    def _table(self, table_id: str, info: p.TableInfo | None) -> None:
        self._news(p.TableRemoved(table_id=table_id) if info is None else p.TableUpdated(table=info))

    def _set(self, key: str, entry: PresenceEntry | None) -> None:
        old = self._entries.get(key)
        if entry == old:
            return
        if old is not None:
            keys = self._keys_of[old.name]
            del keys[key]
            if not keys:
                del self._keys_of[old.name]
        if entry is None:
            del self._entries[key]
        else:
            self._entries[key] = entry
            self._keys_of.setdefault(entry.name, {})[key] = None
            self._show(entry.name)
        if old is not None and (entry is None or old.name != entry.name):
            self._show(old.name)

    def _show(self, name: str) -> None:
        """The lobby's line for ``name`` as its sessions are now, as news if it changed."""
        keys = self._keys_of.get(name)
        if not keys:
            if self._shown.pop(name, None) is not None:
                self._news(p.PlayerLeft(name=name))
            return
        info = player_info(self._entries[next(reversed(keys))])
        if self._shown.get(name) != info:
            self._shown[name] = info
            self._news(p.PlayerUpdated(player=info))

    def _news(self, message: p.Message) -> None:
        if not self._lobby:
            return
        frame = p.encode(message)  # once for every session
        for conn_id in list(self._lobby):  # a session too slow to read is hung up meanwhile
            self._deliver(conn_id, frame)
