"""What is said at a table: the table chat, the partner-only chat and señas.

None of it is a rule of the hand, so none goes through the engine. The table chat is not
in the event log, but its latest lines are stored with it (``pending_chat``, appended by
the actor before anyone is sent them; ``CHAT_KEPT`` of them): a rejoining viewer is sent
them, and so is every viewer of a table restarted or rebuilt on another process
(``restore_chat``). Partner-only lines are never kept. The señas of the current hand are
part of each seat's game, so each one is stored with the table's log together with the seats that saw it (``pending``, appended by the
actor before anyone is sent it) and a restored table shows each seat the same ones
(``restore``, ``resend``). With the table option ``reserved_words`` a table chat line that is exactly a
legal call makes it (``words``): the actor applies the action ``chat`` returns. A seña goes to its
sender and the sender's partners; with the table option ``senas`` at "fair" each opponent
catches it with a small chance (``CATCH_CHANCE``), drawn from the table's seeded rng keyed
by the log position and the seña's number in the hand, so a replayed or tested table
catches exactly the same señas; "private" never shows one to an opponent, and "off"
refuses them. Spectators never see a seña or a partner line: a spectator may sit beside an
opponent. Bots make honest señas when a hand is dealt and read their partners' ones when
they decide (``partner_senas``).

Frames are queued on the table's ``Viewers``, so they go out after the events they follow
are in the log, like everything else the actor sends.
"""
from __future__ import annotations

import random
import time
from dataclasses import replace

import engine
import protocol as p
from engine.bots.senas import bot_senas
from engine.variants.senas import sena_codes
from protocol.text import clean_text
from server.store import ChatRow, SenaRow
from server.table.occupant import Occupant
from server.table.viewers import Viewers
from server.table.words import reserved_action

CATCH_CHANCE = 0.12  # "fair": the chance one opponent catches one seña
MAX_SENAS_PER_HAND = 16  # per seat: a seña costs no turn, but a table is not a flood channel


class Talk:
    def __init__(self, table_id: str, rules: engine.RuleSet, seed: str, viewers: Viewers,
                 seats: list[Occupant]) -> None:
        self.table_id = table_id
        self.rules = rules
        self.mode = str(rules.options_dict().get("senas", "fair"))
        self.reserved_words = bool(rules.options_dict().get("reserved_words", False))
        # No flor seña at a table that plays without flor.
        self.codes = frozenset(c for c in sena_codes(rules.variant) if rules.flor or c != "flor")
        self._seed = seed
        self._viewers = viewers
        self._seats = seats
        self.match_no = 0  # set by the actor: the señas it stores are keyed by match and hand
        self._hand_key = (-1, -1)
        self.made: list[tuple[int, str]] = []  # (seat, seña) of the current hand, in order
        self.seen: list[tuple[int, ...]] = []  # the seats that saw each of them
        self.pending: list[SenaRow] = []  # made since the actor last stored them
        self.pending_chat: list[ChatRow] = []  # table chat lines said since the actor last stored them
        self._chat_n = 0  # the number of the next table chat line (its key in the store)

    # -- who is whose partner ------------------------------------------------------------
    @staticmethod
    def partners_of(state: engine.State, seat: int) -> tuple[int, ...]:
        """The seat's partners in this hand (the Uruguayan 3-player game pairs change per hand)."""
        teams = state.team_of
        return tuple(s for s in range(len(teams)) if s != seat and teams[s] == teams[seat])

    def _to_seat(self, seat: int, event: p.Message) -> None:
        frame = p.encode(event)
        for conn_id, viewer_seat in list(self._viewers.seats.items()):
            if viewer_seat == seat:
                self._viewers.emit(conn_id, frame)

    def _hand(self, state: engine.State) -> None:
        if (self.match_no, state.deal_no) != self._hand_key:  # a new hand: last hand's are stale
            self._hand_key = (self.match_no, state.deal_no)
            self.made, self.seen = [], []

    def restore(self, state: engine.State, rows: list[SenaRow], match_no: int) -> None:
        """The stored señas of the hand being played (a restarted table)."""
        self.match_no = match_no
        self._hand(state)
        for row in sorted(rows, key=lambda r: r.n):
            if (row.match_no, row.deal_no) == self._hand_key and row.n == len(self.made):
                self.made.append((row.seat, row.sena))
                self.seen.append(row.seen)

    def take_pending(self) -> list[SenaRow]:
        rows, self.pending = self.pending, []
        return rows

    def take_chat(self) -> list[ChatRow]:
        rows, self.pending_chat = self.pending_chat, []
        return rows

    def restore_chat(self, rows: list[ChatRow]) -> None:
        """The stored latest table chat lines (a restarted or rebuilt table), oldest first."""
        for row in rows:
            self._viewers.chat.append(p.ChatLine(sender=row.sender, text=row.text, ts=row.ts,
                                                 table_id=self.table_id))
        if rows:
            self._chat_n = rows[-1].n + 1

    # -- señas ---------------------------------------------------------------------------
    def sena(self, conn_id: int, seat: int | None, code: str, state: engine.State | None, seq: int) -> None:
        """A seated player's seña (``seat`` None: a spectator, refused)."""
        if self.mode == "off":
            self._viewers.error(conn_id, "senas_off", "señas are off at this table")
            return
        if seat is None or state is None or state.match_over:
            self._viewers.error(conn_id, "no_sena", "no seña can be made now")
            return
        if code not in self.codes:
            self._viewers.error(conn_id, "bad_sena", "no such seña in this game")
            return
        if not self.partners_of(state, seat):
            self._viewers.error(conn_id, "no_partner", "you have no partner in this game")
            return
        self._hand(state)
        if sum(1 for s, _ in self.made if s == seat) >= MAX_SENAS_PER_HAND:
            self._viewers.error(conn_id, "too_many_senas", "enough señas for this hand")
            return
        self.make(state, seat, code, seq)

    def make(self, state: engine.State, seat: int, code: str, seq: int) -> list[tuple[int, p.SenaSeen]]:
        """Deliver one seña (already checked); the (seat, event) pairs it went to."""
        self._hand(state)
        number = len(self.made)
        mates = self.partners_of(state, seat)
        event = p.SenaSeen(table_id=self.table_id, seat=seat, sena=code, to=mates, deal_no=state.deal_no)
        out = [(seat, event), *((mate, event) for mate in mates)]
        if self.mode == "fair":
            rng = random.Random(f"{self._seed}/sena/{seq}/{number}")
            for other in range(len(state.team_of)):
                if other != seat and other not in mates and rng.random() < CATCH_CHANCE:
                    out.append((other, replace(event, caught=True)))
        seen = tuple(to_seat for to_seat, _ in out)
        self.made.append((seat, code))
        self.seen.append(seen)
        self.pending.append(SenaRow(self.match_no, state.deal_no, number, seat, code, seen))
        for to_seat, shown in out:
            self._to_seat(to_seat, shown)
        return out

    def resend(self, conn_id: int, seat: int, state: engine.State) -> None:
        """A player back on a new connection (or at a restored table) gets again the señas
        of this hand that his seat saw: his own, his partners', and an opponent's he caught."""
        self._hand(state)
        for (sender, code), seen in zip(self.made, self.seen):
            if seat in seen:
                to = self.partners_of(state, sender)
                self._viewers.emit(conn_id, p.encode(p.SenaSeen(
                    table_id=self.table_id, seat=sender, sena=code, to=to, deal_no=state.deal_no,
                    caught=seat != sender and seat not in to)))

    def partner_senas(self, state: engine.State, seat: int) -> tuple[tuple[int, str], ...]:
        """The señas the seat's partners made in this hand (what a bot reads when it decides)."""
        self._hand(state)
        mates = self.partners_of(state, seat)
        return tuple((s, code) for s, code in self.made if s in mates)

    def bots_signal(self, state: engine.State, seq: int) -> None:
        """A hand was dealt: every bot with a partner makes its honest señas."""
        if self.mode == "off" or state.match_over or state.needs_deal:
            return
        self._hand(state)
        for seat, occupant in enumerate(self._seats):
            if occupant.bot and self.partners_of(state, seat):
                for code in bot_senas(engine.view(state, seat), self.rules):
                    self.make(state, seat, code, seq)

    # -- the chat ---------------------------------------------------------------------------
    def chat(self, seat: int | None, sender: str, text: str, state: engine.State | None,
             partners: bool = False) -> engine.Action | None:
        """A table chat line to its players and spectators, or (``partners``) to the sender's
        partners only; with reserved words, the call a seated player's line makes (if legal)."""
        text = clean_text(text, p.CHAT_MAX)
        if not text:
            return None
        if partners:
            self._partner_line(seat, sender, text, state)
            return None
        line = p.ChatLine(sender=sender, text=text, ts=int(time.time()), table_id=self.table_id)
        self._viewers.say(line)
        self.pending_chat.append(ChatRow(self._chat_n, line.sender, line.text, line.ts))
        self._chat_n += 1
        if not self.reserved_words or seat is None or state is None or state.match_over:
            return None
        return reserved_action(text, state, seat, self.rules.variant)

    def _partner_line(self, seat: int | None, sender: str, text: str, state: engine.State | None) -> None:
        """A line to the sender's partners (and back to the sender); never to anyone else."""
        if seat is None or state is None:
            return
        mates = self.partners_of(state, seat)
        if not mates:
            return
        line = p.ChatLine(sender=sender, text=text, ts=int(time.time()), table_id=self.table_id,
                          partners=True)
        for to_seat in (seat, *mates):
            self._to_seat(to_seat, p.Chat(line=line))
