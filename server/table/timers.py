"""A table's clocks: bots' thinking, the pause between hands, turn timers, away players.

Every timer posts a message back into the actor's inbox (with the ``seq`` it was set at),
so every change to the state still happens in the actor's one task.
"""
from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Callable

import engine
from server.table import messages as m
from server.table.occupant import Occupant

# A turn timer that resumes after a restart or a rebuild on another process gets at least
# this (or the whole timer, if shorter): the players whose connection went down with the
# server need a moment to come back before the bot plays for them, and the others a moment
# to see the table again. A few seconds: never the whole timer again, which would let a
# crash (or a player able to cause one) buy time.
RESUME_GRACE = 5.0


@dataclass(frozen=True)
class Pace:
    """Delays that make a table playable by people; tests and benchmarks use zero."""

    bot_delay: float = 0.9  # seconds a bot "thinks"
    hand_pause: float = 3.0  # seconds the last trick and the hand summary stay up
    away_grace: float = 15.0  # seconds the table waits on an away player before the bot covers


def waiting_on(state: engine.State, n_seats: int) -> tuple[int, ...]:
    """The seats the game cannot go on without.

    Whoever may play a card is the one the table waits for; when nobody may (a
    bet or a declaration is pending) it waits for every seat that may answer.
    Seats that may merely call (e.g. truco at any time) are not waited for.
    """
    awaiting = [s for s in range(n_seats) if engine.legal_actions(state, s)]
    players = [
        s for s in awaiting
        if any(a.call is engine.Call.PLAY for a in engine.legal_actions(state, s))
    ]
    return tuple(players or awaiting)


class Timers:
    """The timers of one table, set again after every change (``schedule``)."""

    def __init__(self, pace: Pace, turn_timer: int, post: Callable[[m.TableMessage], None]) -> None:
        self.pace = pace
        self.turn_timer = turn_timer
        self._post = post
        self._handles: list[asyncio.TimerHandle] = []
        self.deadline: float | None = None  # when the running turn timer runs out (loop time)
        self.timed_seats: tuple[int, ...] = ()  # whom the turn timer runs for
        self.waiting: tuple[int, ...] = ()  # the seats the table waits for
        self._turn: tuple[int, float] | None = None  # (seq, loop time) the current turn runs out
        self.restored_left: tuple[int, float] | None = None  # (seq, seconds left) at the restart

    def resume(self, seq: int, used: float) -> None:
        """A restored table's turn (at ``seq``) had ``used`` seconds of its timer: it gets what
        was left, never less than ``RESUME_GRACE``. The turn's deadline is the log time of its
        last event plus the timer (its timer starts when those events are published)."""
        used = min(max(0.0, used), float(self.turn_timer))
        self.restored_left = (seq, max(self.turn_timer - used, min(RESUME_GRACE, float(self.turn_timer))))

    def _later(self, delay: float, message: m.TableMessage) -> None:
        self._handles.append(asyncio.get_running_loop().call_later(delay, self._post, message))

    def remaining(self) -> float | None:
        """Seconds left on the running turn timer (None: no timer runs)."""
        if self.deadline is None:
            return None
        return max(0.0, self.deadline - asyncio.get_running_loop().time())

    def cancel(self) -> None:
        for handle in self._handles:
            handle.cancel()
        self._handles.clear()
        self.deadline = None
        self.timed_seats = ()

    def schedule(self, state: engine.State, seats: list[Occupant], seq: int, *,
                 auto_rematch: bool, absent_voters: bool) -> None:
        """The timers for the state the table is in now (after ``cancel``)."""
        self.waiting = ()
        if state.match_over:
            if auto_rematch:
                self._later(self.pace.hand_pause, m.NewMatch(seq))
            elif absent_voters:
                self._later(self.pace.away_grace, m.CoverRematch(seq))
            return
        if state.needs_deal:
            self._later(self.pace.hand_pause, m.Deal(seq))
            return
        waiting = self.waiting = waiting_on(state, len(seats))
        humans = [s for s in waiting if not seats[s].bot]
        bots = [s for s in waiting if seats[s].bot]
        left = float(self.turn_timer)
        if bots and not humans:
            # One bot moves; the others wait for the state it leaves behind.
            self._later(self.pace.bot_delay, m.BotMove(bots[0], seq))
        elif humans and self.turn_timer:
            self.deadline = self._turn_deadline(seq)
            left = max(0.0, self.deadline - asyncio.get_running_loop().time())
            self.timed_seats = tuple(humans)
            self._later(left, m.Timeout(seq))
        # A player who is away gets a short grace per decision (or the turn timer, if shorter);
        # then the bot makes that one decision for them. Their seat stays theirs.
        away = [s for s in humans if seats[s].away]
        if away and (not self.turn_timer or self.pace.away_grace < left):
            self._later(self.pace.away_grace, m.Cover(away[0], seq))

    def _turn_deadline(self, seq: int) -> float:
        """When the current turn runs out. It is set once per turn (a player leaving or
        coming back does not restart it); after a restart, with the time that was left."""
        if self._turn is None or self._turn[0] != seq:
            left = float(self.turn_timer)
            if self.restored_left is not None and self.restored_left[0] == seq:
                left = self.restored_left[1]
            self._turn = (seq, asyncio.get_running_loop().time() + left)
        return self._turn[1]
