"""Who sees a table, and the frames each of them is owed.

The actor hands over what the table shows (``Shown``) with each update; the frames are
made here, and queued until the actor takes them, once the events they show are in the
log (``TableActor._flush``): nobody is ever sent what a crash could lose.
"""
from __future__ import annotations

from collections import deque
from dataclasses import dataclass

import engine
import protocol as p
from server.store import CHAT_KEPT
from server.table import frames
from server.table.occupant import Occupant

RECENT_CHAT = CHAT_KEPT  # table chat lines a (re)joining viewer is sent (the store keeps as many)


@dataclass(frozen=True)
class Shown:
    """What a table shows at one moment: everything its frames are made of."""

    table_id: str
    seq: int  # events published so far
    state: engine.State
    seats: list[Occupant]
    log: list[engine.Event]  # the table's whole log: a (re)joining viewer's history comes from it
    waiting: tuple[int, ...]
    timer: float | None
    rematch_votes: frozenset[int]


class Viewers:
    def __init__(self, seats: list[Occupant]) -> None:
        # connection -> seat (None: a spectator)
        self.seats: dict[int, int | None] = {
            o.conn_id: i for i, o in enumerate(seats) if o.conn_id is not None
        }
        self.chat: deque[p.ChatLine] = deque(maxlen=RECENT_CHAT)
        self._views = frames.ViewsOf()  # the viewers' views of the latest state
        self._out: list[tuple[int, bytes]] = []
        self._seal: bytes | None = None  # the match's DealSeal: to every viewer, and to each newcomer

    def take(self) -> list[tuple[int, bytes]]:
        """The queued frames, in order (the log holds what they show)."""
        out, self._out = self._out, []
        return out

    def emit(self, conn_id: int, frame: bytes) -> None:
        self._out.append((conn_id, frame))

    def error(self, conn_id: int, code: str, message: str, reason: str = "") -> None:
        self.emit(conn_id, p.encode(p.Error(code=code, message=message[:400], reason=reason[:32])))

    def say(self, line: p.ChatLine) -> None:
        """A table chat line: to the players and the spectators of this table only."""
        self.chat.append(line)
        frame = p.encode(p.Chat(line=line))
        for viewer in list(self.seats):
            self.emit(viewer, frame)

    def seal(self, seal: p.DealSeal, tell: bool = True) -> None:
        """The match's commitment (or, at its end, its secret): to everyone watching now
        (``tell``), and to each viewer who joins from now on."""
        self._seal = p.encode(seal)
        for viewer in list(self.seats) if tell else ():
            self.emit(viewer, self._seal)

    def update_all(self, shown: Shown, events: list[engine.Event], history_for: int | None = None) -> None:
        spectator_frame: bytes | None = None
        for conn_id, seat in list(self.seats.items()):
            if conn_id == history_for:
                self.update_one(shown, conn_id, events, history=True)
            elif seat is None:
                if spectator_frame is None:
                    spectator_frame = self._render(shown, None, events, [])
                self.emit(conn_id, spectator_frame)
            else:
                self.emit(conn_id, self._render(shown, seat, events, []))

    def watch(self, shown: Shown, conn_id: int) -> None:
        """A new spectator: the match so far, then updates."""
        self.seats[conn_id] = None
        self.update_one(shown, conn_id, [], history=True)

    def resend(self, shown: Shown) -> None:
        """Every viewer's current view again (frames to them may have been lost)."""
        for conn_id in list(self.seats):
            self.update_one(shown, conn_id, [])

    def update_one(self, shown: Shown, conn_id: int, events: list[engine.Event], *, history: bool = False) -> None:
        """One viewer's update; ``history``: it has just (re)joined, so it also gets the
        match so far (its log would otherwise start empty)."""
        seat = self.seats.get(conn_id)
        hands = frames.history(shown.log, seat) if history else []
        if history:  # what was said at the table lately, before the log it goes with
            for line in self.chat:
                self.emit(conn_id, p.encode(p.Chat(line=line)))
            if self._seal is not None:  # the commitment the deals it is about to see are held to
                self.emit(conn_id, self._seal)
        while True:
            try:
                self.emit(conn_id, self._render(shown, seat, events, [e for hand in hands for e in hand]))
                return
            except p.ProtocolError:
                if not hands:
                    raise
                hands = hands[1:]  # over the frame cap: send fewer old hands (never seen so far)

    def _render(self, shown: Shown, seat: int | None, events: list[engine.Event],
                history: list[p.LogEvent]) -> bytes:
        """One viewer's encoded TableUpdate (ProtocolError if over the frame cap)."""
        view = self._views.of(shown.state, seat, self.seats.values())
        return frames.table_update(shown.table_id, shown.seq, seat, shown.seats, view, events,
                                   waiting=shown.waiting, timer=shown.timer, rematch_votes=shown.rematch_votes,
                                   history=history)
