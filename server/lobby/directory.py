"""The table directory: creating, finding, joining and watching tables, and the commands
of the people at a table (passed on to its actor).
"""
from __future__ import annotations

import itertools
import secrets
from typing import Callable

import engine
import protocol as p
from protocol import deal_proof
from protocol.text import clean_text
from server.lobby.seats import Seats, new_code
from server.ops import action_trace
from server.moderation.reports import TableLine
from server.lobby.state import Conn, LobbyState, Table
from server.table import Occupant
from server.table import messages as tm

DEFAULT_PUBLIC_TURN_TIMER = 30  # seconds

OptionsValidator = Callable[[str, int, dict[str, p.OptionValue]], dict[str, p.OptionValue]]


class Directory:
    def __init__(self, state: LobbyState, seats: Seats, variants: tuple[p.VariantInfo, ...],
                 validate_options: OptionsValidator) -> None:
        self._state = state
        self._seats = seats
        self.variants = {v.name: v for v in variants}
        self._validate_options = validate_options

    def start_demo_tables(self) -> None:
        state = self._state
        tables = itertools.chain(state.tables.values(), state.restoring.values())
        wanted = state.config.demo_bot_tables - sum(1 for t in tables if t.demo)
        for i in range(max(0, wanted)):
            players = (2, 4, 6)[i % 3]
            options = self._validate_options("argentino", players, {"target": 15, "match_games": 1})
            table = Table(
                table_id=self._new_table_id(), title=f"Demo {i + 1}", variant="argentino",
                owner="demo", seats=[Occupant(f"Bot {n + 1}", None, bot=True) for n in range(players)],
                options=options, private=False, code="", demo=True,
            )
            state.tables[table.table_id] = table
            self._seats.maybe_start(table)

    # -- finding a table ------------------------------------------------------------------
    def on_create_table(self, conn: Conn, msg: p.CreateTable) -> None:
        """A table with partners (4 or 6 seats) the screens open is a waiting room its
        creator starts (``StartTable``), so friends who joined can choose partners first.
        Programs that do not ask for one keep the table that starts when full."""
        self.create(conn, msg, owner_starts=msg.owner_starts and msg.players >= 4)

    def create(self, conn: Conn, msg: p.CreateTable, owner_starts: bool, quick: bool = False) -> None:
        state = self._state
        variant = self.variants.get(msg.variant)
        if variant is None:
            state.error(conn, "bad_table", f"unknown variant {msg.variant!r:.30}")
            return
        if not variant.implemented:
            state.error(conn, "not_playable", f"{variant.title}: coming soon, not playable yet")
            return
        if msg.players not in variant.player_counts:
            state.error(conn, "bad_table", f"{variant.title} is not played by {msg.players}")
            return
        try:
            options = self._validate_options(msg.variant, msg.players, dict(msg.options))
        except ValueError as exc:
            state.error(conn, "bad_table", str(exc))
            return
        self._seats.leave_table(conn)
        title = clean_text(msg.title, p.TITLE_MAX) or f"{conn.name}"
        table_id = self._new_table_id()
        code = new_code({t.code for t in state.tables.values()}) if msg.private else ""
        timer = msg.turn_timer
        if timer is None:  # strangers wait for nobody; friends at a private table need no clock
            timer = 0 if msg.private else DEFAULT_PUBLIC_TURN_TIMER
        table = Table(
            table_id=table_id, title=title, variant=msg.variant, owner=conn.name or "",
            seats=[None] * msg.players, options=options, private=msg.private, code=code,
            turn_timer=timer, owner_starts=owner_starts, quick=quick,
        )
        state.tables[table_id] = table
        state.send(conn, p.TableCreated(table_id=table_id, code=code))
        self._seats.sit(conn, table, 0)

    def on_join_table(self, conn: Conn, msg: p.JoinTable) -> None:
        state = self._state
        table = state.tables.get(msg.table_id)
        if table is None:
            state.error(conn, "no_table", "that table is gone")
            return
        if table.private and conn.peer.conn_id not in table.invited and conn.table_id != table.table_id:
            state.error(conn, "private", "this table is private: join it with its code")
            return
        if table.actor is not None:
            state.error(conn, "playing", "the game has started: watch it instead")
            return
        if table.people() and conn.table_id != table.table_id and (wait := self._seats.leavers.refused(conn)):
            state.send(conn, wait)  # other people sit here: a leaver's wait holds
            return
        entropy = checked_entropy(state, conn, msg.entropy)
        if entropy is None:
            return
        seat = msg.seat
        if seat is None:
            seat = next((i for i, s in enumerate(table.seats) if s is None), None)
            if seat is None:
                state.error(conn, "table_full", "no free seat at that table")
                return
        if seat >= len(table.seats):
            state.error(conn, "bad_seat", "no such seat")
            return
        if table.seats[seat] is not None:
            state.error(conn, "seat_taken", "that seat is taken")
            return
        self._seats.sit(conn, table, seat, entropy)

    def on_join_code(self, conn: Conn, msg: p.JoinByCode) -> None:
        code = clean_text(msg.code, 16).upper().replace(" ", "")
        table = next((t for t in self._state.tables.values() if t.code and t.code == code), None)
        if table is None:
            self._state.error(conn, "bad_code", "no table has that code")
            return
        table.invited.add(conn.peer.conn_id)
        self.on_join_table(conn, p.JoinTable(table_id=table.table_id))

    def join_by_link(self, conn: Conn, code: str) -> None:
        """`ssh CODE@host`: sit at the coded table, or watch it once it is full or playing."""
        table = next((t for t in self._state.tables.values() if t.code and t.code == code), None)
        if table is None:
            self._state.error(conn, "bad_code", "no table has that code")
            return
        table.invited.add(conn.peer.conn_id)
        if table.actor is None and any(s is None for s in table.seats):
            self.on_join_table(conn, p.JoinTable(table_id=table.table_id))
        else:
            self.on_watch_table(conn, p.WatchTable(table_id=table.table_id))

    def on_leave_table(self, conn: Conn, msg: p.LeaveTable) -> None:
        if conn.table_id != msg.table_id:
            self._state.error(conn, "not_at_table", "you are not at that table")
            return
        self._seats.leave_table(conn)
        self._state.send(conn, p.Seated())

    def on_watch_table(self, conn: Conn, msg: p.WatchTable) -> None:
        state = self._state
        table = state.tables.get(msg.table_id)
        if table is None:
            state.error(conn, "no_table", "that table is gone")
            return
        if table.private and conn.peer.conn_id not in table.invited:
            state.error(conn, "private", "this table is private: join it with its code")
            return
        if conn.table_id == table.table_id:
            return  # watching it already, or seated there (which is no leaving: issue 32)
        self._seats.leave_table(conn)
        table.spectators.add(conn.peer.conn_id)
        conn.table_id, conn.seat = table.table_id, None
        state.send(conn, p.Seated(table_id=table.table_id, code=table.code))
        if table.actor is not None:
            table.actor.post(tm.Watch(conn.peer.conn_id))
        state.table_changed(table)
        state.player_moved(conn)

    def _new_table_id(self) -> str:
        while True:
            table_id = "t" + secrets.token_hex(3)
            if table_id not in self._state.tables:
                return table_id

    # -- at the table ------------------------------------------------------------------
    def _my_table(self, conn: Conn, table_id: str) -> Table | None:
        table = self._state.tables.get(table_id)
        if table is None or conn.table_id != table_id:
            self._state.error(conn, "not_at_table", "you are not at that table")
            return None
        return table

    def on_add_bot(self, conn: Conn, msg: p.AddBot) -> None:
        table = self._my_table(conn, msg.table_id)
        if table is None:
            return
        if table.owner != conn.name:
            self._state.error(conn, "not_owner", "only the table's creator can add bots")
            return
        if table.actor is not None:
            self._state.error(conn, "playing", "the game has already started")
            return
        free = [i for i, s in enumerate(table.seats) if s is None]
        seat = msg.seat if msg.seat is not None else (free[0] if free else None)
        if seat is None or seat not in free:
            self._state.error(conn, "seat_taken", "no free seat for a bot")
            return
        if msg.level not in engine.BOT_LEVELS:
            self._state.error(conn, "bad_level", "unknown bot level")
            return
        number = sum(1 for s in table.seats if s is not None and s.bot) + 1
        table.seats[seat] = Occupant(name=f"Bot {number}", conn_id=None, bot=True, level=msg.level)
        self._state.table_changed(table)
        self._seats.save_room(table)
        self._seats.maybe_start(table)

    def on_swap_seats(self, conn: Conn, msg: p.SwapSeats) -> None:
        """Choosing partners before the game (``SwapSeats`` says who may swap what)."""
        table = self._my_table(conn, msg.table_id)
        if table is None:
            return
        if table.actor is not None:
            self._state.error(conn, "playing", "the game has already started")
            return
        a, b = msg.a, msg.b
        if a == b or max(a, b) >= len(table.seats):
            self._state.error(conn, "bad_seat", "no such seat")
            return
        if table.owner != conn.name and (a != conn.seat or table.seats[b] is not None):
            self._state.error(conn, "only_free_seat", "you may move to a free seat; only the creator moves others")
            return
        self._seats.swap(table, a, b)

    def on_start_table(self, conn: Conn, msg: p.StartTable) -> None:
        """The owner starts a waiting room's game, once every seat is taken (bots count)."""
        table = self._my_table(conn, msg.table_id)
        if table is None:
            return
        if table.actor is not None:
            self._state.error(conn, "playing", "the game has already started")
        elif table.owner != conn.name or conn.seat is None:
            self._state.error(conn, "not_owner_start", "only the table's creator starts the game")
        elif not table.owner_starts:
            self._state.error(conn, "starts_itself", "this table starts when every seat is taken")
        elif None in table.seats:
            self._state.error(conn, "not_full", "every seat must be taken first (add bots with b)")
        else:
            self._seats.maybe_start(table, by_owner=True)

    def _playing_table(self, conn: Conn, table_id: str) -> Table | None:
        """The table ``conn`` sits at, once its game has started (else an error, None)."""
        table = self._my_table(conn, table_id)
        if table is not None and table.actor is None:
            self._state.error(conn, "not_started", "the game has not started yet")
            return None
        return table

    def on_act(self, conn: Conn, msg: p.TableAction) -> None:
        table = self._playing_table(conn, msg.table_id)
        if table is not None and table.actor is not None:
            action_trace.mark("routed", conn.peer.conn_id, table.actor.table_id)
            table.actor.post(tm.Act(conn.peer.conn_id, msg))

    def on_table_chat(self, conn: Conn, msg: p.TableChat) -> None:
        table = self._my_table(conn, msg.table_id)
        if table is None or table.actor is None:
            return
        if not conn.chat.take():
            self._state.error(conn, "chat_rate", "you are chatting too fast")
            return
        table.said.append(TableLine(conn.name or "", clean_text(msg.text, p.CHAT_MAX), msg.partners))
        table.actor.post(tm.Chat(conn.peer.conn_id, conn.name or "", msg.text, msg.partners, conn.origin))

    def on_add_entropy(self, conn: Conn, msg: p.AddEntropy) -> None:
        """A seated player's random bytes for the table's next match (protocol/deal_proof.py):
        a waiting table keeps them with the seat; a running one passes them to its table."""
        table = self._my_table(conn, msg.table_id)
        if table is None:
            return
        if conn.seat is None or not msg.entropy:
            self._state.error(conn, "bad_entropy", "a seated player adds random bytes, in hexadecimal")
            return
        entropy = checked_entropy(self._state, conn, msg.entropy)
        if entropy is None:
            return
        if table.actor is not None:
            table.actor.post(tm.Entropy(conn.peer.conn_id, entropy))
            return
        occupant = table.seats[conn.seat]
        if occupant is not None:
            occupant.entropy = entropy
            self._seats.save_room(table)
            others = tuple(o.entropy for o in table.seats if o is not None and o.entropy)
            secret = deal_proof.match_secret(table.seed, 1)
            self._state.send(conn, p.DealSeal(table_id=table.table_id, match_no=1,
                                              commitment=deal_proof.commitment(secret), entropy=others))

    def on_sena(self, conn: Conn, msg: p.MakeSena) -> None:
        table = self._playing_table(conn, msg.table_id)
        if table is None or table.actor is None:
            return
        if not conn.chat.take():  # señas share the chat's budget: no flood to the partners
            self._state.error(conn, "chat_rate", "you are chatting too fast")
            return
        table.actor.post(tm.Sena(conn.peer.conn_id, msg.sena, conn.origin))

    def on_rematch(self, conn: Conn, msg: p.Rematch) -> None:
        table = self._my_table(conn, msg.table_id)
        if table is None or table.actor is None:
            return
        table.actor.post(tm.Rematch(conn.peer.conn_id))


def checked_entropy(state: LobbyState, conn: Conn, text: str) -> str | None:
    """A player's entropy as sent, lower-case ("" when none was sent); None (and the player
    told) when it is not 8 to 32 bytes in hexadecimal."""
    if not text:
        return ""
    try:
        deal_proof.parse_entropy(text)
    except ValueError as exc:
        state.error(conn, "bad_entropy", str(exc))
        return None
    return text.lower()
