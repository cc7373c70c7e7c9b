"""One running table: an asyncio task that owns the engine state of its match.

Commands arrive in the inbox (from the hub, on behalf of a connection); after every
change each seat and each spectator gets a ``TableUpdate`` holding exactly what it
may see: its own view of the state and the engine events projected for it.
Bots, turn timers and the pause between hands are timers that post back into the
same inbox, so every change to the state happens in this one task.
"""
from __future__ import annotations

import asyncio
import logging
import random
import time
from collections import deque
from dataclasses import dataclass
from typing import Any, Callable

import engine
import protocol as p
from protocol.text import clean_text

log = logging.getLogger(__name__)

RECENT_CIDS = 64  # remembered command ids per seat, for idempotent retries


@dataclass
class Occupant:
    name: str
    conn_id: int | None  # None while a bot plays the seat
    bot: bool = False
    away: bool = False

    def info(self) -> p.SeatInfo:
        return p.SeatInfo(name=self.name, bot=self.bot, away=self.away)


@dataclass(frozen=True)
class Pace:
    """Delays that make a table playable by people; tests and benchmarks use zero."""

    bot_delay: float = 0.9  # seconds a bot "thinks"
    hand_pause: float = 3.0  # seconds the last trick and the hand summary stay up


Send = Callable[[int, bytes], None]


class TableActor:
    def __init__(
        self,
        table_id: str,
        variant: str,
        options: dict[str, p.OptionValue],
        seats: list[Occupant],
        send: Send,
        *,
        turn_timer: int = 0,
        pace: Pace = Pace(),
        seed: int | None = None,
        on_change: Callable[["TableActor"], None] | None = None,
    ) -> None:
        self.table_id = table_id
        self.rules = engine.get_ruleset(variant, **options)
        self.seats = seats
        self.turn_timer = turn_timer
        self.pace = pace
        self._send = send
        self._on_change = on_change
        self._rng = random.Random(seed)
        self._bot_rng = random.Random(self._rng.random())
        self.inbox: asyncio.Queue[tuple[Any, ...]] = asyncio.Queue()
        self.state: engine.State | None = None
        self.seq = 0  # events published so far
        self.events: list[engine.Event] = []  # the whole log of this table's matches
        self.viewers: dict[int, int | None] = {
            o.conn_id: i for i, o in enumerate(seats) if o.conn_id is not None
        }
        self.rematch_votes: set[int] = set()
        self._cids: dict[int, deque[int]] = {}
        self._timers: list[asyncio.TimerHandle] = []
        self._deadline: float | None = None
        self._timer_seats: tuple[int, ...] = ()
        self._waiting: tuple[int, ...] = ()
        self._task: asyncio.Task[None] | None = None
        self.finished = False

    # -- lifecycle ---------------------------------------------------------------------
    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self.run(), name=f"table-{self.table_id}")

    def post(self, *message: Any) -> None:
        self.inbox.put_nowait(message)

    async def stop(self) -> None:
        self.post("stop")
        if self._task is not None:
            await asyncio.gather(self._task, return_exceptions=True)

    async def run(self) -> None:
        self._new_match()
        while True:
            message = await self.inbox.get()
            if message[0] == "stop":
                self._cancel_timers()
                return
            try:
                self._handle(message)
            except Exception:  # a bug in one command must not freeze the table
                log.exception("table %s failed on %s", self.table_id, message[0])

    def _handle(self, message: tuple[Any, ...]) -> None:
        kind = message[0]
        if kind == "act":
            self._on_act(message[1], message[2])
        elif kind == "bot":
            self._on_bot(message[1], message[2])
        elif kind == "deal":
            if message[1] == self.seq and self.state is not None and self.state.needs_deal:
                self._advance_chance()
        elif kind == "timeout":
            self._on_timeout(message[1])
        elif kind == "chat":
            self._on_chat(message[1], message[2], message[3])
        elif kind == "watch":
            self.viewers[message[1]] = None
            self._update_one(message[1], [])
        elif kind == "unwatch":
            self.viewers.pop(message[1], None)
        elif kind == "leave":
            self._on_leave(message[1])
        elif kind == "rematch":
            self._on_rematch(message[1])

    # -- the game ----------------------------------------------------------------------
    def _new_match(self) -> None:
        self.rematch_votes.clear()
        self.finished = False
        self.state, events = engine.new_match(self.rules, len(self.seats), self._rng)
        self._publish(events)

    def _apply(self, action: engine.Action) -> None:
        assert self.state is not None
        self.state, events = engine.apply(self.state, action)
        self._publish(events)

    def _advance_chance(self) -> None:
        assert self.state is not None
        self.state, events = engine.deal(self.state, self._rng)
        self._publish(events)

    def _on_act(self, conn_id: int, cmd: p.TableAction) -> None:
        seat = self.viewers.get(conn_id)
        if seat is None or self.state is None:
            self._error(conn_id, "not_seated", "you do not play at this table")
            return
        seen = self._cids.setdefault(seat, deque(maxlen=RECENT_CIDS))
        if cmd.cid and cmd.cid in seen:
            log.debug("table %s seat %s: command %s already applied", self.table_id, seat, cmd.cid)
            return  # a retried command: it already acted
        wire: dict[str, Any] = {"seat": seat, "call": cmd.call}
        if cmd.card is not None:
            wire["card"] = cmd.card
        if cmd.amount is not None:
            wire["amount"] = cmd.amount
        try:
            action = engine.action_from_wire(wire, deck=self.rules.card_notation)
            self._apply(action)
        except (engine.IllegalAction, ValueError) as exc:
            reason = getattr(exc, "reason", None) or str(exc)
            log.debug("table %s seat %s: %s refused: %s", self.table_id, seat, wire, reason)
            self._error(conn_id, "illegal", reason)
            return
        if cmd.cid:
            seen.append(cmd.cid)

    def _on_bot(self, seat: int, seq: int) -> None:
        if seq != self.seq or self.state is None:
            return  # the table moved on since this bot started thinking
        self._play_for(seat)

    def _play_for(self, seat: int) -> None:
        assert self.state is not None
        seat_view = engine.view(self.state, seat)
        if not seat_view.legal:
            return
        action = engine.choose_action(seat_view, self.rules, self._bot_rng)
        if action is None:
            # The bot would rather wait, but the table waits on this seat: make the
            # least committal move (a card, else an acceptance, else whatever is legal).
            by_call = {a.call: a for a in seat_view.legal}
            action = next(
                (a for a in seat_view.legal if a.call is engine.Call.PLAY),
                by_call.get(engine.Call.QUIERO, seat_view.legal[0]),
            )
        self._apply(action)

    def _on_timeout(self, seq: int) -> None:
        if seq != self.seq or self.state is None or not self._timer_seats:
            return
        seat = self._timer_seats[0]
        log.info("table %s: seat %s ran out of time; the bot plays for it", self.table_id, seat)
        self._play_for(seat)

    def _on_chat(self, conn_id: int, sender: str, text: str) -> None:
        """Table chat: to the players and the spectators of this table only."""
        if conn_id not in self.viewers:
            return
        text = clean_text(text, p.CHAT_MAX)
        if not text:
            return
        line = p.ChatLine(sender=sender, text=text, ts=int(time.time()), table_id=self.table_id)
        frame = p.encode(p.Chat(line=line))
        for viewer in list(self.viewers):
            self._send(viewer, frame)

    def _on_leave(self, conn_id: int) -> None:
        seat = self.viewers.pop(conn_id, None)
        if seat is None:
            return
        occupant = self.seats[seat]
        occupant.conn_id, occupant.bot = None, True  # a bot finishes the game for them
        self.rematch_votes.discard(seat)
        if self.state is not None and not self.state.match_over:
            self._cancel_timers()
            self._schedule()  # the bot may be the one the table waits for
        self._update_all([])

    def _on_rematch(self, conn_id: int) -> None:
        seat = self.viewers.get(conn_id)
        if seat is None or self.state is None or not self.state.match_over:
            self._error(conn_id, "no_rematch", "a rematch is possible once the match is over")
            return
        self.rematch_votes.add(seat)
        humans = {i for i, o in enumerate(self.seats) if not o.bot}
        if humans <= self.rematch_votes:
            self._new_match()
        else:
            self._update_all([])

    def human_seats(self) -> list[int]:
        return [i for i, o in enumerate(self.seats) if not o.bot]

    # -- publishing ----------------------------------------------------------------------
    def _publish(self, events: list[engine.Event]) -> None:
        self.events.extend(events)
        self.seq += len(events)
        self._cancel_timers()
        self._schedule()  # first: the updates carry the new turn timer
        self._update_all(events)
        if self._on_change is not None:
            self._on_change(self)

    def _update_all(self, events: list[engine.Event]) -> None:
        spectator_frame: bytes | None = None
        for conn_id, seat in list(self.viewers.items()):
            if seat is None:
                if spectator_frame is None:
                    spectator_frame = self._frame(None, events)
                self._send(conn_id, spectator_frame)
            else:
                self._send(conn_id, self._frame(seat, events))

    def _update_one(self, conn_id: int, events: list[engine.Event]) -> None:
        self._send(conn_id, self._frame(self.viewers.get(conn_id), events))

    def _frame(self, seat: int | None, events: list[engine.Event]) -> bytes:
        assert self.state is not None
        projected = []
        for event in events:
            visible = engine.project_event(event, seat)
            if visible is not None:
                projected.append(visible.to_wire())
        loop = asyncio.get_running_loop()
        remaining = None if self._deadline is None else max(0.0, self._deadline - loop.time())
        return p.encode(
            p.TableUpdate(
                table_id=self.table_id, seq=self.seq, seat=seat,
                seats=tuple(o.info() for o in self.seats),
                view=engine.view(self.state, seat).to_wire(),
                events=tuple(projected[-64:]),
                waiting=self._waiting, timer=remaining,
                rematch_votes=tuple(sorted(self.rematch_votes)),
            )
        )

    def _error(self, conn_id: int, code: str, message: str) -> None:
        self._send(conn_id, p.encode(p.Error(code=code, message=message[:400])))

    # -- who the table waits for -----------------------------------------------------------
    def waiting_on(self) -> tuple[int, ...]:
        """The seats the game cannot go on without.

        Whoever may play a card is the one the table waits for; when nobody may (a
        bet or a declaration is pending) it waits for every seat that may answer.
        Seats that may merely call (e.g. truco at any time) are not waited for.
        """
        assert self.state is not None
        awaiting = [s for s in range(len(self.seats)) if engine.legal_actions(self.state, s)]
        players = [
            s for s in awaiting
            if any(a.call is engine.Call.PLAY for a in engine.legal_actions(self.state, s))
        ]
        return tuple(players or awaiting)

    def _schedule(self) -> None:
        loop = asyncio.get_running_loop()
        state = self.state
        assert state is not None
        self._waiting = ()
        if state.match_over:
            self.finished = True
            return
        if state.needs_deal:
            self._timers.append(loop.call_later(self.pace.hand_pause, self.post, "deal", self.seq))
            return
        waiting = self._waiting = self.waiting_on()
        humans = [s for s in waiting if not self.seats[s].bot]
        bots = [s for s in waiting if self.seats[s].bot]
        if bots and not humans:
            # One bot moves; the others wait for the state it leaves behind.
            self._timers.append(loop.call_later(self.pace.bot_delay, self.post, "bot", bots[0], self.seq))
        elif humans and self.turn_timer:
            self._deadline = loop.time() + self.turn_timer
            self._timer_seats = tuple(humans)
            self._timers.append(loop.call_later(self.turn_timer, self.post, "timeout", self.seq))

    def _cancel_timers(self) -> None:
        for handle in self._timers:
            handle.cancel()
        self._timers.clear()
        self._deadline = None
        self._timer_seats = ()
