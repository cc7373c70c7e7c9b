"""Connections: opening, closing, the one rule for a second login, shutdown, slow readers."""
from __future__ import annotations

import logging

import protocol as p
from server.link import HubLink, Peer
from server.lobby.seats import Seats
from server.lobby.state import Conn, LobbyState
from server.ratelimit import Buckets, TokenBucket

log = logging.getLogger(__name__)


class Sessions:
    def __init__(self, state: LobbyState, seats: Seats) -> None:
        self._state = state
        self._seats = seats

    def open(self, peer: Peer, link: HubLink) -> None:
        cfg = self._state.config
        shared = self._state.address_chat.get(peer.ip)
        if shared is None:
            shared = self._state.address_chat[peer.ip] = TokenBucket(cfg.chat_per_address_per_second,
                                                                       cfg.chat_address_burst)
        self._state.conns[peer.conn_id] = Conn(
            peer,
            link,
            commands=TokenBucket(cfg.commands_per_second, cfg.commands_burst),
            chat=Buckets(TokenBucket(cfg.chat_per_second, cfg.chat_burst), shared),
        )

    def close(self, conn_id: int) -> None:
        state = self._state
        conn = state.conns.pop(conn_id, None)
        state.lagging.discard(conn_id)
        if conn is None:
            return
        conn.link.hang_up()
        ip = conn.peer.ip
        if not any(c.peer.ip == ip for c in state.conns.values()):
            state.address_chat.pop(ip, None)  # (a reconnection is bounded by the connection limits)
        if conn.name is None:
            return
        table = state.tables.get(conn.table_id or "")
        if table is not None and table.actor is not None and conn.seat is not None:
            self._seats.away(conn, table)  # the seat is held for them (also for a rematch)
        else:
            self._seats.leave_table(conn)
        if state.online.get(conn.key or "") == conn_id:
            del state.online[conn.key or ""]
        state.lobby_news(p.PlayerLeft(name=conn.name))

    def replace(self, old_id: int | None, new_id: int) -> None:
        """A new session of the same person (their key, or their seat's code) wins: the old
        one is told why and closed. The one place a second login is handled."""
        if old_id is None or old_id == new_id:
            return
        old = self._state.conns.get(old_id)
        if old is not None:
            self._state.send(old, p.Notice(code="replaced"))
            self.close(old_id)

    def shutdown(self, notice: str) -> None:
        state = self._state
        frame = p.encode(p.Notice(code=notice))
        for conn in list(state.conns.values()):
            conn.link.deliver(frame)
            conn.link.hang_up()
        state.conns.clear()
        state.online.clear()

    def drop_lagging(self) -> None:
        # Dropped after the step, not inside a broadcast: closing broadcasts
        # PlayerLeft, which must not recurse into the broadcast being sent.
        state = self._state
        while state.lagging:
            conn_id = state.lagging.pop()
            conn = state.conns.get(conn_id)
            if conn is not None:
                log.warning("conn %s (%s) is not reading its events: dropped", conn_id, conn.name)
                self.close(conn_id)
