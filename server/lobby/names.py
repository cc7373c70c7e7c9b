"""Names and coming back: claiming a name, who may use it, and returning to a held seat.

A name reserved by a key (its first key holder's) is refused to anyone else; a returning
player (the same key, or a guest's resume code, typed in the lobby or given as the SSH
username) is put straight back into the seat held for them. A private table's join code given
as the SSH username (`ssh CODE@host`, the links `truco-ssh host` prints) seats the player at
that table once they have a name: a key holder keeps the name their key reserved, anyone else
is asked for one (the code is no name the others should see).
"""
from __future__ import annotations

import asyncio
import itertools
import logging
import secrets
import time
from typing import Callable

import protocol as p
from protocol.text import RESERVED_KEYS, clean_text, name_key, name_stem, usable_name, valid_name
from server.lobby.seats import CODE_ALPHABET, Seats
from server.lobby.sessions import Sessions
from server.lobby.state import Conn, LobbyState, Table
from server.ratelimit import TokenBucket
from server.table import Occupant
from server.table import messages as tm

log = logging.getLogger(__name__)


def as_code(text: str) -> str:
    """``text`` as a resume code, if it is one (else "")."""
    code = clean_text(text, 16).upper().replace(" ", "").replace("-", "")
    return code if len(code) == p.CODE_LEN and all(c in CODE_ALPHABET for c in code) else ""


class Names:
    def __init__(self, state: LobbyState, sessions: Sessions, seats: Seats,
                 variants: tuple[p.VariantInfo, ...], join_by_code: Callable[[Conn, str], None],
                 operator: Callable[[Conn], bool] = lambda conn: False) -> None:
        self._state = state
        self._operator = operator  # whether a connection's key is an operator's
        self._join_by_code = join_by_code  # the directory's: sit (or watch) at a coded table
        self._sessions = sessions
        self._seats = seats
        self._variants = variants

    def on_claim_name(self, conn: Conn, msg: p.ClaimName) -> None:
        state = self._state
        if conn.name is not None:
            state.error(conn, "has_name", "you already have a name")
            return
        name = msg.name
        fp = conn.peer.fingerprint
        resuming = self._seats.held_seat(code=as_code(name)) if fp is None else None
        if resuming is not None:  # `ssh CODE@host`: the guest's seat, under their old name
            occupant = resuming[2]
            self._sessions.replace(occupant.conn_id, conn.peer.conn_id)
            name = occupant.name if not self.refusal(occupant.name, None) else self.suggest(occupant.name, None)
        elif self._table_code(name):  # `ssh CODE@host`: a private table's code, not a name
            conn.join_code = self._table_code(name)
            name = self._reserved_name(fp)
            if not name:
                state.send(conn, p.NameRefused(name=conn.join_code, reason="join_code"))
                return
        refusal = self.refusal(name, fp)
        if refusal:
            state.send(conn, p.NameRefused(name=name[:64], reason=refusal, suggestion=self.suggest(name, fp)))
            log.info("conn %s: name %r refused (%s)", conn.peer.conn_id, name[:64], refusal,
                     extra={"session": conn.peer.conn_id})
            return
        key = name_key(name)
        self._sessions.replace(state.online.get(key), conn.peer.conn_id)  # same key-holder again
        conn.name = name
        state.online[key] = conn.peer.conn_id
        log.info("conn %s: plays as %r (%s)", conn.peer.conn_id, name, "key" if fp else "guest",
                 extra={"session": conn.peer.conn_id})
        cfg = state.config
        if cfg.new_player_minutes > 0 and (fp is None or fp not in state.reservations.values()):
            # a guest, or a key first seen now: slow chat for a while
            conn.slow_until = time.monotonic() + cfg.new_player_minutes * 60
            conn.slow_chat = TokenBucket(1.0 / max(0.1, cfg.new_player_chat_every), cfg.new_player_chat_burst)
        if fp is not None and key not in state.reservations:
            state.reservations[key] = fp
            state.reserved_names[key] = name
            self._persist_reservation(key, name, fp)
        state.send(conn, p.Welcome(name=name, guest=fp is None, variants=self._variants,
                                   chat_max=state.config.chat_max_len, operator=self._operator(conn)))
        state.send_snapshot(conn)
        state.lobby_news(p.PlayerUpdated(player=state.player_info(conn)), exclude=conn.peer.conn_id)
        if state.presence is not None:
            state.presence(conn)
        if resuming is None and fp is not None:
            resuming = self._seats.held_seat(fingerprint=fp)
        if resuming is not None:
            conn.join_code = ""  # back to the seat held for them comes first
            self.reclaim(conn, *resuming)
        elif conn.join_code:
            code, conn.join_code = conn.join_code, ""
            self._join_by_code(conn, code)

    def _table_code(self, text: str) -> str:
        """``text`` as the join code of a private table in the lobby (else "")."""
        code = as_code(text)
        if code and any(t.code == code for t in self._state.tables.values()):
            return code
        return ""

    def _reserved_name(self, fp: str | None) -> str:
        """The name the key ``fp`` reserved (the display form), or ""."""
        if fp is None:
            return ""
        state = self._state
        key = next((k for k, owner in state.reservations.items() if owner == fp), None)
        return "" if key is None else state.reserved_names.get(key, key)

    def on_resume(self, conn: Conn, msg: p.ResumeSeat) -> None:
        code = as_code(msg.code)
        found = self._seats.held_seat(code=code) if code else None
        if found is None:
            self._state.error(conn, "bad_resume", "no seat is held with that code")
            return
        self.reclaim(conn, *found)

    def reclaim(self, conn: Conn, table: Table, seat: int, occupant: Occupant) -> None:
        """Put a returning player straight back into their seat."""
        state = self._state
        self._sessions.replace(occupant.conn_id, conn.peer.conn_id)
        if conn.table_id is not None and (conn.table_id, conn.seat) != (table.table_id, seat):
            self._seats.leave_table(conn)  # (in that seat already: nothing is left)
        occupant.back(conn.peer.conn_id)
        conn.table_id, conn.seat = table.table_id, seat
        room = table.actor is None and table.table_id in state.tables  # a waiting room, restored
        state.send(conn, p.Seated(table_id=table.table_id, seat=seat, code=table.code if room else ""))
        if table.actor is not None:
            table.actor.post(tm.Rejoin(conn.peer.conn_id, seat))
            state.table_changed(table)
        else:  # still being restored (the table screen says so until it is back), or waiting
            state.send(conn, p.TableUpdated(table=state.table_info(table)))
        state.player_moved(conn)

    # -- who may use a name -------------------------------------------------------------
    def refusal(self, name: str, fp: str | None) -> str:
        """Why ``name`` may not be used by the holder of ``fp`` ("": it may)."""
        if not valid_name(name):
            return "invalid"
        key = name_key(name)
        if key in RESERVED_KEYS:
            return "reserved_word"
        owner = self._state.reservations.get(key)
        if owner is not None and owner != fp:
            return "reserved_key"
        online = self._state.online.get(key)
        if online is not None:
            holder = self._state.conns.get(online)
            if fp is None or holder is None or holder.peer.fingerprint != fp:
                return "taken"
        return ""

    def suggest(self, name: str, fp: str | None) -> str:
        stem = name_stem(name) or "player"
        if usable_name(stem) and not self.refusal(stem, fp):
            return stem
        stem = stem[:13]
        for n in itertools.chain(range(2, 100), (secrets.randbelow(900) + 100 for _ in range(50))):
            candidate = f"{stem}{n}"
            if not self.refusal(candidate, fp):
                return candidate
        return ""

    def _persist_reservation(self, key: str, name: str, fp: str) -> None:
        store = self._state.store
        if store is None:
            return
        task = asyncio.get_running_loop().create_task(store.reserve(key, name, fp))
        self._state.writes.add(task)
        task.add_done_callback(self._state.writes.discard)
