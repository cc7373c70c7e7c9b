"""One running table: an asyncio task that owns the engine state of its match.

Commands arrive in the inbox (from the hub, on behalf of a connection); after every
change each seat and each spectator gets a ``TableUpdate`` holding exactly what it
may see: its own view of the state and the engine events projected for it.
Bots, turn timers and the pause between hands are timers that post back into the
same inbox, so every change to the state happens in this one task.

Persistence ("nothing seen is ever lost", DESIGN.md section 2): a step of the actor
handles the messages waiting in its inbox (at most ``BATCH``), which only queues the
new events and the frames for the viewers; then the events are appended to the
store in one transaction on the writer thread, and only after the commit are the
frames sent. A crash can therefore lose events nobody has seen, never one they have.

Randomness: each table has a random seed (stored with the table); every deal and
every bot decision draws from ``Random(f"{seed}/deal/{seq}")`` (``/bot/`` for bots),
where ``seq`` is the number of events logged so far. The state itself is rebuilt
from the log by ``engine.replay`` (deals are events, no rng needed); the seed only
matters for what comes next, and because it is keyed by ``seq`` a table restored
after a crash deals exactly what it would have dealt without one. No rng state has
to be saved, and a restore never depends on how many numbers were drawn before.

Restarts: only the current match is rebuilt. Before each deal the state is saved as a
snapshot (``snapshot_bytes``), in the same transaction as the deal's events, so a
restore reads the latest snapshot and replays the one hand after it. A turn timer that
was running resumes with the time it had left when the server stopped.
"""
from __future__ import annotations

import asyncio
import dataclasses
import enum
import hashlib
import io
import logging
import pickle
import random
import secrets
import time
from collections import deque
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable

import msgpack

import engine
import protocol as p
from protocol.text import clean_text, name_key

if TYPE_CHECKING:
    from server.store import EventRow, GameRecord, Snapshot, Store

log = logging.getLogger(__name__)

RECENT_CIDS = 64  # remembered command ids per seat, for idempotent retries
RECENT_CHAT = 20  # table chat lines a (re)joining viewer is sent (chat is not in the event log)
BATCH = 32  # inbox messages handled before one append to the log


# -- snapshots: the state before a deal, so a restart replays one hand, not the match ------
def _state_format() -> bytes:
    """Names and types of the state's fields: a snapshot written by an engine whose state
    has another shape is not read (the match is replayed from its start instead)."""
    shapes = [
        f"{cls.__name__}:" + ",".join(f"{f.name}={f.type}" for f in dataclasses.fields(cls))
        for cls in (engine.State, engine.HandSummary)
    ]
    return hashlib.sha256("|".join(shapes).encode()).hexdigest()[:16].encode()


SNAPSHOT_HEADER = b"truco-state/1/" + _state_format() + b"\n"


class StaleSnapshot(ValueError):
    """A snapshot this engine cannot use; replay the match from its start."""


class _EngineUnpickler(pickle.Unpickler):
    """Only the engine's own data classes and enums: a snapshot never calls anything else."""

    def find_class(self, module: str, name: str) -> Any:
        if module.startswith("engine."):
            found = super().find_class(module, name)
            if isinstance(found, type) and (dataclasses.is_dataclass(found) or issubclass(found, enum.Enum)):
                return found
        raise pickle.UnpicklingError(f"{module}.{name} is not allowed in a snapshot")


def snapshot_bytes(state: engine.State) -> bytes:
    # The rules are the table's (rebuilt from its options), not part of the snapshot.
    return SNAPSHOT_HEADER + pickle.dumps(dataclasses.replace(state, rules=None), protocol=5)  # type: ignore[arg-type]


def state_from_snapshot(blob: bytes, rules: engine.RuleSet, n_players: int) -> engine.State:
    if not blob.startswith(SNAPSHOT_HEADER):
        raise StaleSnapshot("the snapshot was written by another engine version")
    try:
        state = _EngineUnpickler(io.BytesIO(blob[len(SNAPSHOT_HEADER):])).load()
    except Exception as exc:  # a damaged snapshot: the log itself is still whole
        raise StaleSnapshot(f"the snapshot cannot be read: {exc}") from exc
    if not isinstance(state, engine.State) or state.n != n_players:
        raise StaleSnapshot("the snapshot is not a state of this table")
    return dataclasses.replace(state, rules=rules)


@dataclass
class Occupant:
    name: str
    conn_id: int | None  # None while a bot plays the seat
    bot: bool = False
    away: bool = False  # a human whose connection dropped; the seat is held for them
    fingerprint: str | None = None  # the key that may reclaim the seat
    resume: str = ""  # the code a guest reclaims the seat with
    was_human: bool = False  # a person sat here (for "my games"), even if a bot plays on

    def __post_init__(self) -> None:
        if not self.bot:
            self.was_human = True

    def info(self) -> p.SeatInfo:
        return p.SeatInfo(name=self.name, bot=self.bot, away=self.away)

    @property
    def held(self) -> bool:
        """A human's seat, whether connected or away (not given to a bot for good)."""
        return not self.bot

    def to_record(self) -> dict[str, Any]:
        return {"name": self.name, "fp": self.fingerprint, "resume": self.resume,
                "bot": self.bot, "human": self.was_human}

    @classmethod
    def from_record(cls, d: dict[str, Any]) -> "Occupant":
        bot = bool(d.get("bot"))
        o = cls(name=str(d["name"]), conn_id=None, bot=bot, away=not bot,
                fingerprint=d.get("fp"), resume=str(d.get("resume") or ""))
        o.was_human = bool(d.get("human", not bot))
        return o


@dataclass(frozen=True)
class Pace:
    """Delays that make a table playable by people; tests and benchmarks use zero."""

    bot_delay: float = 0.9  # seconds a bot "thinks"
    hand_pause: float = 3.0  # seconds the last trick and the hand summary stay up
    away_grace: float = 15.0  # seconds the table waits on an away player before the bot covers


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
        seed: int | str | None = None,
        on_change: Callable[["TableActor"], None] | None = None,
        store: "Store | None" = None,
        title: str = "",
        auto_rematch: bool = False,
    ) -> None:
        self.table_id = table_id
        self.variant = variant
        self.title = title
        self.rules = engine.get_ruleset(variant, **options)
        self.seats = seats
        self.turn_timer = turn_timer
        self.pace = pace
        self._send = send
        self._on_change = on_change
        self._store = store
        self.auto_rematch = auto_rematch  # bot-only demo tables play on for ever
        self.seed = str(seed) if seed is not None else secrets.token_hex(16)
        self.match_no = 0
        self._out: list[tuple[int, bytes]] = []  # frames waiting for the log to commit
        self._rows: list["EventRow"] = []  # events not yet appended
        self._games: list[tuple["GameRecord", list[tuple[int, str, str | None]]]] = []
        self._snapshot: "Snapshot | None" = None  # goes with the next append
        self._changed = False
        self.failed = False  # the log could not be written: the table stopped
        self.inbox: asyncio.Queue[tuple[Any, ...]] = asyncio.Queue()
        self.state: engine.State | None = None
        self.seq = 0  # events published so far
        self.events: list[engine.Event] = []  # the whole log of this table's matches
        self.viewers: dict[int, int | None] = {
            o.conn_id: i for i, o in enumerate(seats) if o.conn_id is not None
        }
        self.rematch_votes: set[int] = set()
        self.chat: deque[p.ChatLine] = deque(maxlen=RECENT_CHAT)
        self._cids: dict[int, deque[int]] = {}
        self._timers: list[asyncio.TimerHandle] = []
        self._deadline: float | None = None
        self._timer_seats: tuple[int, ...] = ()
        self._turn: tuple[int, float] | None = None  # (seq, loop time) the current turn runs out
        self._restored_left: tuple[int, float] | None = None  # (seq, seconds left) at the restart
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
        if self.state is None:
            self._new_match()
        else:  # restored from the log: carry on where it stopped
            self._cancel_timers()
            self._schedule()
        if not await self._flush():
            return
        while True:
            batch = [await self.inbox.get()]
            while len(batch) < BATCH and not self.inbox.empty():
                batch.append(self.inbox.get_nowait())
            stop = False
            for message in batch:
                if message[0] == "stop":
                    stop = True
                    break
                try:
                    self._handle(message)
                except Exception:  # a bug in one command must not freeze the table
                    log.exception("table %s failed on %s", self.table_id, message[0])
            if not await self._flush() or stop:
                self._cancel_timers()
                return

    async def _flush(self) -> bool:
        """Append the queued events to the log, then send the queued frames (in order)."""
        rows, out, games, snapshot = self._rows, self._out, self._games, self._snapshot
        self._rows, self._out, self._games, self._snapshot = [], [], [], None
        if self._store is not None and rows:
            try:  # a finished match's record goes in the transaction of its last events
                await self._store.append(self.table_id, rows, games=games, snapshot=snapshot)
            except Exception:
                # Nobody may see what is not in the log: the table stops here, and resumes
                # from its last logged event when the server is restarted.
                log.exception("table %s: cannot write the event log; the table stops", self.table_id)
                self.failed = True
                frame = p.encode(p.Error(code="storage", message="the server cannot save this game"))
                for conn_id in list(self.viewers):
                    self._send(conn_id, frame)
                return False
        for conn_id, frame in out:
            self._send(conn_id, frame)
        if self._changed:
            self._changed = False
            if self._on_change is not None:
                self._on_change(self)
        return True

    def _emit(self, conn_id: int, frame: bytes) -> None:
        self._out.append((conn_id, frame))

    # -- restoring ------------------------------------------------------------------------
    def restore(self, rows: list["EventRow"], snapshot: "Snapshot | None" = None,
                stopped_at: float | None = None) -> None:
        """Rebuild the current match from the log (before ``start``).

        ``rows``: the table's log from the start of the current match or earlier (only the
        last match is replayed); or, with ``snapshot`` (the state before its latest deal), the
        match's match_started and the events after the snapshot. ``stopped_at``: when the
        server was last alive, so a running turn timer gets back the time it had left
        (StaleSnapshot: replay the match without the snapshot).
        """
        opening = [r for r in rows if snapshot is not None and r.seq <= snapshot.seq]
        tail = rows[len(opening):]
        first = snapshot.seq + 1 if snapshot is not None else (rows[0].seq if rows else 1)
        for number, row in enumerate(tail, first):
            if row.seq != number:
                raise ValueError(f"table {self.table_id}: the log jumps from {number - 1} to {row.seq}")
        if not rows and snapshot is None:
            return
        if snapshot is None:
            tail = [r for r in rows if r.match_no == rows[-1].match_no]
        start = None
        if snapshot is not None:
            start = state_from_snapshot(snapshot.state, self.rules, len(self.seats))
        self.match_no = rows[-1].match_no if rows else snapshot.match_no  # type: ignore[union-attr]
        deck = self.rules.card_notation
        replayed = [engine.event_from_wire(r.data, deck) for r in tail]
        self.state = engine.replay(self.rules, len(self.seats), replayed, start=start)
        # The match's start and, after a snapshot, the hand being played (what a returning
        # player is shown), not every hand before it
        self.events = [engine.event_from_wire(r.data, deck) for r in opening] + replayed
        self.seq = rows[-1].seq if rows else snapshot.seq  # type: ignore[union-attr]
        for row in rows:
            if row.cid is not None and row.seat is not None:
                self._cids.setdefault(row.seat, deque(maxlen=RECENT_CIDS)).append(row.cid)
        self.finished = self.state.match_over
        if stopped_at is not None and rows and self.turn_timer:
            used = min(max(0.0, stopped_at - rows[-1].ts), float(self.turn_timer))
            self._restored_left = (self.seq, self.turn_timer - used)

    def chance_rng(self) -> random.Random:
        return random.Random(f"{self.seed}/deal/{self.seq}")

    def bot_rng(self) -> random.Random:
        return random.Random(f"{self.seed}/bot/{self.seq}")

    def _handle(self, message: tuple[Any, ...]) -> None:
        kind = message[0]
        if kind == "act":
            self._on_act(message[1], message[2])
        elif kind == "bot":
            self._on_bot(message[1], message[2])
        elif kind == "new_match":
            if message[1] == self.seq and self.state is not None and self.state.match_over:
                self._new_match()
        elif kind == "cover_rematch":
            self._on_cover_rematch(message[1])
        elif kind == "deal":
            if message[1] == self.seq and self.state is not None and self.state.needs_deal:
                self._advance_chance()
        elif kind == "timeout":
            self._on_timeout(message[1])
        elif kind == "chat":
            self._on_chat(message[1], message[2], message[3])
        elif kind == "watch":
            self.viewers[message[1]] = None
            self._update_one(message[1], [], history=True)
        elif kind == "unwatch":
            self.viewers.pop(message[1], None)
        elif kind == "leave":
            self._on_leave(message[1])
        elif kind == "rematch":
            self._on_rematch(message[1])
        elif kind == "away":
            self._on_away(message[1])
        elif kind == "rejoin":
            self._on_rejoin(message[1], message[2])
        elif kind == "release":
            self._on_release(message[1])
        elif kind == "cover":
            self._on_cover(message[1], message[2])

    # -- the game ----------------------------------------------------------------------
    def _new_match(self) -> None:
        first_dealer = self._next_first_dealer()
        self.rematch_votes.clear()
        self.finished = False
        self.match_no += 1
        self.events = []
        self.state, events = engine.new_match(self.rules, len(self.seats), self.chance_rng(),
                                              first_dealer=first_dealer)
        self._publish(events)

    def _next_first_dealer(self) -> int | None:
        """A rematch deals first from the seat after the last match's first dealer, so its
        first mano is the seat after the last match's first mano; a first match draws it.
        The previous match start is in ``events`` (also after a restore from the log)."""
        started = self.events[0] if self.events else None
        if not isinstance(started, engine.MatchStarted):
            return None
        return (started.first_dealer + 1) % len(self.seats)

    def _apply(self, action: engine.Action, cause: tuple[int, int] | None = None,
               note: engine.Event | None = None) -> None:
        """`note` goes in the log just before the action's events (engine.SeatCovered)."""
        assert self.state is not None
        self.state, events = engine.apply(self.state, action)
        self._publish(events if note is None else [note, *events], cause)

    def _advance_chance(self) -> None:
        from server.store import Snapshot

        assert self.state is not None
        before, seq = self.state, self.seq
        self.state, events = engine.deal(self.state, self.chance_rng())
        if self._store is not None:  # a restart replays from here: one hand, not the match
            self._snapshot = Snapshot(self.match_no, seq, snapshot_bytes(before))
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
            self._apply(action, (seat, cmd.cid) if cmd.cid else None)
        except (engine.IllegalAction, ValueError) as exc:
            reason = getattr(exc, "reason", None) or str(exc)
            log.debug("table %s seat %s: %s refused: %s", self.table_id, seat, wire, reason)
            self._error(conn_id, "illegal", reason, getattr(exc, "code", ""))
            return
        if cmd.cid:
            seen.append(cmd.cid)

    def _on_bot(self, seat: int, seq: int) -> None:
        if seq != self.seq or self.state is None:
            return  # the table moved on since this bot started thinking
        self._play_for(seat)

    def _play_for(self, seat: int, covered: str | None = None) -> None:
        """The bot acts for `seat`; `covered` ("time", "away") says why a human's seat was
        played by the bot, and goes in the log so every viewer sees who chose the move."""
        assert self.state is not None
        seat_view = engine.view(self.state, seat)
        if not seat_view.legal:
            return
        action = engine.choose_action(seat_view, self.rules, self.bot_rng())
        if action is None:
            # The bot would rather wait, but the table waits on this seat: make the
            # least committal move (a card, else an acceptance, else whatever is legal).
            by_call = {a.call: a for a in seat_view.legal}
            action = next(
                (a for a in seat_view.legal if a.call is engine.Call.PLAY),
                by_call.get(engine.Call.QUIERO, seat_view.legal[0]),
            )
        self._apply(action, note=None if covered is None else engine.SeatCovered(seat, covered))

    def _on_timeout(self, seq: int) -> None:
        if seq != self.seq or self.state is None or not self._timer_seats:
            return
        seat = self._timer_seats[0]
        log.info("table %s: seat %s ran out of time; the bot plays for it", self.table_id, seat)
        self._play_for(seat, "time")

    def _on_chat(self, conn_id: int, sender: str, text: str) -> None:
        """Table chat: to the players and the spectators of this table only."""
        if conn_id not in self.viewers:
            return
        text = clean_text(text, p.CHAT_MAX)
        if not text:
            return
        line = p.ChatLine(sender=sender, text=text, ts=int(time.time()), table_id=self.table_id)
        self.chat.append(line)
        frame = p.encode(p.Chat(line=line))
        for viewer in list(self.viewers):
            self._emit(viewer, frame)

    def _on_leave(self, conn_id: int) -> None:
        seat = self.viewers.pop(conn_id, None)
        if seat is None:
            return
        occupant = self.seats[seat]
        occupant.conn_id, occupant.bot, occupant.away = None, True, False  # a bot finishes for them
        self.rematch_votes.discard(seat)
        if self._rematch_agreed():  # the others had all asked: they need not wait for this seat
            self._new_match()
            return
        self._reschedule()  # the bot may be the one the table waits for
        self._update_all([])

    def _on_away(self, conn_id: int) -> None:
        """The connection of a seated player dropped: hold the seat, show them away."""
        seat = self.viewers.pop(conn_id, None)
        if seat is None:
            return
        occupant = self.seats[seat]
        if occupant.conn_id == conn_id:
            occupant.conn_id, occupant.away = None, True
        self._reschedule()
        self._update_all([])

    def _on_rejoin(self, conn_id: int, seat: int) -> None:
        """The same player is back (on a new connection): the seat's full view, at once."""
        for old, s in list(self.viewers.items()):
            if s == seat:
                del self.viewers[old]
        occupant = self.seats[seat]
        occupant.conn_id, occupant.away, occupant.bot = conn_id, False, False
        self.viewers[conn_id] = seat
        self._reschedule()
        self._update_all([], history_for=conn_id)  # the log of the match so far, for them only

    def _on_release(self, seat: int) -> None:
        """The hold ran out: a bot plays the seat for good."""
        occupant = self.seats[seat]
        if occupant.conn_id is not None:
            return
        occupant.away, occupant.bot = False, True
        self.rematch_votes.discard(seat)
        if self._rematch_agreed():
            self._new_match()
            return
        self._reschedule()
        self._update_all([])

    def _on_cover(self, seat: int, seq: int) -> None:
        if seq != self.seq or self.state is None or not self.seats[seat].away:
            return
        log.info("table %s: seat %s is away; the bot covers this decision", self.table_id, seat)
        self._play_for(seat, "away")

    def _reschedule(self) -> None:
        if self.state is not None:
            self._cancel_timers()
            self._schedule()

    # -- the rematch ---------------------------------------------------------------------
    # Everyone who holds a seat is asked. A player who is away (dropped, or not back since a
    # restart) does not keep the others waiting for the whole seat hold: once every player
    # present has asked, the table waits ``away_grace`` for the absent ones (as it does for
    # their moves), then starts the rematch with their seats still held for them; a bot
    # covers their decisions until they are back. If they come back before that, the rematch
    # waits for their answer like anyone's, and they see the final score first.
    def _absent_voters(self) -> list[int]:
        """The away seats the rematch waits for, once every player present has asked for it."""
        present = [i for i, o in enumerate(self.seats) if not o.bot and not o.away]
        absent = [i for i, o in enumerate(self.seats) if not o.bot and o.away and i not in self.rematch_votes]
        if not self.rematch_votes or not absent or any(i not in self.rematch_votes for i in present):
            return []
        return absent

    def _on_cover_rematch(self, seq: int) -> None:
        if seq != self.seq or self.state is None or not self.state.match_over:
            return
        absent = self._absent_voters()
        if absent:
            log.info("table %s: %s away; the rematch starts with their seats held", self.table_id, absent)
            self.rematch_votes.update(absent)
            if self._rematch_agreed():
                self._new_match()

    def _on_rematch(self, conn_id: int) -> None:
        seat = self.viewers.get(conn_id)
        if seat is None or self.state is None or not self.state.match_over:
            self._error(conn_id, "no_rematch", "a rematch is possible once the match is over")
            return
        self.rematch_votes.add(seat)
        if self._rematch_agreed():
            self._new_match()
        else:
            self._reschedule()  # perhaps only absent players are left to answer (_absent_voters)
            self._update_all([])

    def _rematch_agreed(self) -> bool:
        """The match is over and every human still at the table asked for a rematch."""
        if self.state is None or not self.state.match_over or not self.rematch_votes:
            return False
        return set(self.human_seats()) <= self.rematch_votes

    def human_seats(self) -> list[int]:
        return [i for i, o in enumerate(self.seats) if not o.bot]

    # -- publishing ----------------------------------------------------------------------
    def _publish(self, events: list[engine.Event], cause: tuple[int, int] | None = None) -> None:
        from server.store import EventRow

        for i, event in enumerate(events):
            seat, cid = cause if cause is not None and i == 0 else (None, None)
            self._rows.append(EventRow(self.seq + i + 1, self.match_no, event.to_wire(), seat, cid))
        self.events.extend(events)
        self.seq += len(events)
        if any(isinstance(e, engine.MatchEnded) for e in events):
            self._record_game()
        self._cancel_timers()
        self._schedule()  # first: the updates carry the new turn timer
        self._update_all(events)
        self._changed = True

    def _record_game(self) -> None:
        from server.store import GameRecord

        assert self.state is not None
        hands = self.state.deal_no  # one per hand_dealt (the events may start at a snapshot)
        game = GameRecord(
            table_id=self.table_id, match_no=self.match_no, variant=self.variant, title=self.title,
            seats=[o.name for o in self.seats], scores=list(self.state.scores),
            winner=self.state.winner, hands=hands, finished_at=int(time.time()),
        )
        players = [(i, name_key(o.name), o.fingerprint) for i, o in enumerate(self.seats) if o.was_human]
        self._games.append((game, players))

    def _update_all(self, events: list[engine.Event], history_for: int | None = None) -> None:
        spectator_frame: bytes | None = None
        for conn_id, seat in list(self.viewers.items()):
            if conn_id == history_for:
                self._update_one(conn_id, events, history=True)
            elif seat is None:
                if spectator_frame is None:
                    spectator_frame = self._frame(None, events)
                self._emit(conn_id, spectator_frame)
            else:
                self._emit(conn_id, self._frame(seat, events))

    def _update_one(self, conn_id: int, events: list[engine.Event], *, history: bool = False) -> None:
        """One viewer's update; ``history``: it has just (re)joined, so it also gets the
        match so far (its log would otherwise start empty)."""
        seat = self.viewers.get(conn_id)
        hands = self._history(seat) if history else []
        if history:  # what was said at the table lately, before the log it goes with
            for line in self.chat:
                self._emit(conn_id, p.encode(p.Chat(line=line)))
        while True:
            try:
                self._emit(conn_id, self._frame(seat, events, [e for hand in hands for e in hand]))
                return
            except p.ProtocolError:
                if not hands:
                    raise
                hands = hands[1:]  # over the frame cap: send fewer old hands (never seen so far)

    def _history(self, seat: int | None) -> list[list[dict[str, Any]]]:
        """The current match's events as ``seat`` may see them, cut into hands (the match
        start joins the first hand): the latest whole hands within ``HISTORY_MAX`` events,
        or the end of the current hand if that alone is longer. Oldest first."""
        hands: list[list[dict[str, Any]]] = []  # newest first
        current: list[dict[str, Any]] = []  # newest first
        count = 0
        for event in reversed(self.events):  # a long match costs only what is sent
            visible = engine.project_event(event, seat)
            if visible is None:
                continue
            current.append(visible.to_wire())
            if isinstance(event, engine.HandDealt):
                hands.append(current[::-1])
                count += len(current)
                current = []
                if count >= p.HISTORY_MAX:
                    break
        if current:  # what came before the first deal (the match start) opens hand 1
            if hands:
                hands[-1] = current[::-1] + hands[-1]
            else:
                hands.append(current[::-1])
        kept: list[list[dict[str, Any]]] = []
        total = 0
        for hand in hands:
            if kept and total + len(hand) > p.HISTORY_MAX:
                break
            kept.append(hand)
            total += len(hand)
        if total > p.HISTORY_MAX:
            kept = [kept[0][-p.HISTORY_MAX:]]
        return kept[::-1]

    def _frame(self, seat: int | None, events: list[engine.Event],
               history: list[dict[str, Any]] | None = None) -> bytes:
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
                resume_code=self.seats[seat].resume if seat is not None else "",
                history=tuple(history or ()),
            )
        )

    def _error(self, conn_id: int, code: str, message: str, reason: str = "") -> None:
        self._emit(conn_id, p.encode(p.Error(code=code, message=message[:400], reason=reason[:32])))

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
            if self.auto_rematch:
                self._timers.append(loop.call_later(self.pace.hand_pause, self.post, "new_match", self.seq))
            elif self._absent_voters():
                self._timers.append(loop.call_later(self.pace.away_grace, self.post, "cover_rematch", self.seq))
            return
        if state.needs_deal:
            self._timers.append(loop.call_later(self.pace.hand_pause, self.post, "deal", self.seq))
            return
        waiting = self._waiting = self.waiting_on()
        humans = [s for s in waiting if not self.seats[s].bot]
        bots = [s for s in waiting if self.seats[s].bot]
        left = float(self.turn_timer)
        if bots and not humans:
            # One bot moves; the others wait for the state it leaves behind.
            self._timers.append(loop.call_later(self.pace.bot_delay, self.post, "bot", bots[0], self.seq))
        elif humans and self.turn_timer:
            self._deadline = self._turn_deadline(loop)
            left = max(0.0, self._deadline - loop.time())
            self._timer_seats = tuple(humans)
            self._timers.append(loop.call_later(left, self.post, "timeout", self.seq))
        # A player who is away gets a short grace per decision (or the turn timer, if shorter);
        # then the bot makes that one decision for them. Their seat stays theirs.
        away = [s for s in humans if self.seats[s].away]
        if away and (not self.turn_timer or self.pace.away_grace < left):
            self._timers.append(loop.call_later(self.pace.away_grace, self.post, "cover", away[0], self.seq))

    def _turn_deadline(self, loop: asyncio.AbstractEventLoop) -> float:
        """When the current turn runs out. It is set once per turn (a player leaving or
        coming back does not restart it); after a restart, with the time that was left."""
        if self._turn is None or self._turn[0] != self.seq:
            left = float(self.turn_timer)
            if self._restored_left is not None and self._restored_left[0] == self.seq:
                left = self._restored_left[1]
            self._turn = (self.seq, loop.time() + left)
        return self._turn[1]

    def _cancel_timers(self) -> None:
        for handle in self._timers:
            handle.cancel()
        self._timers.clear()
        self._deadline = None
        self._timer_seats = ()


def state_digest(state: engine.State, n_players: int) -> str:
    """A short fingerprint of a state: every seat's view and the spectator's, hashed.

    Used to compare a table restored after a restart with an independent replay of its log.
    """
    views = [engine.view(state, seat).to_wire() for seat in (*range(n_players), None)]
    return hashlib.sha256(msgpack.packb(views, use_bin_type=True)).hexdigest()[:16]
