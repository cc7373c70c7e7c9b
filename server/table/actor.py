"""One running table: an asyncio task that owns the engine state of its match.

Commands arrive in the inbox (``messages``: from the hub, on behalf of a connection, or
from the table's own ``timers``); after every change each seat and each spectator gets a
``TableUpdate`` holding exactly what it may see (``frames``). Bots, turn timers and the
pause between hands are timers that post back into the same inbox, so every change to
the state happens in this one task.

Persistence ("nothing seen is ever lost", docs/ARCHITECTURE.md, "Persistence"): a step of the actor
handles the messages waiting in its inbox (at most ``BATCH``), which only queues the
new events and the frames for the viewers; then the events are appended to the
store in one transaction on the writer thread, and only after the commit are the
frames sent. A crash can therefore lose events nobody has seen, never one they have.

Randomness: ``chance`` (the deals are held to a commitment every viewer is sent first).

Restarts (``snapshot``): only the current match is rebuilt, from the latest snapshot and the
hand after it; a running turn timer resumes with the time it had left (``Timers.resume``).
"""
from __future__ import annotations

import asyncio
import logging
import secrets
from collections import deque
from typing import Callable

import engine
import protocol as p
from server.ops import action_trace, metrics
from server.store import ChatRow, EventRow, GameRecord, SenaRow, Snapshot, Store
from server.table import bots, moves, rematch
from server.table.chance import Chance
from server.table import messages as m
from server.table.occupant import Occupant
from server.table.talk import Talk
from server.table.snapshot import replay_match, snapshot_bytes
from server.table.timers import Pace, Timers, waiting_on
from server.table.viewers import Shown, Viewers

log = logging.getLogger(__name__)

RECENT_CIDS = 64  # remembered command ids per seat, for idempotent retries
BATCH = 32  # inbox messages handled before one append to the log

Send = Callable[[int, bytes], None]


class TableActor:
    def __init__(
        self, table_id: str, variant: str, options: dict[str, p.OptionValue], seats: list[Occupant], send: Send,
        *,
        turn_timer: int = 0,
        pace: Pace = Pace(),
        seed: int | str | None = None,
        on_change: Callable[["TableActor"], None] | None = None,
        store: Store | None = None,
        title: str = "",
        auto_rematch: bool = False,
    ) -> None:
        self.table_id, self.variant, self.title = table_id, variant, title
        self.rules = engine.get_ruleset(variant, **options)
        self.seats = seats
        self.turn_timer = turn_timer
        self._send, self._on_change, self._store = send, on_change, store
        self.auto_rematch = auto_rematch  # bot-only demo tables play on for ever
        self.seed = str(seed) if seed is not None else secrets.token_hex(16)
        self.chance = Chance(table_id, self.seed)
        self.match_no = 0
        self._rows: list[EventRow] = []  # events not yet appended
        self._games: list[tuple[GameRecord, list[tuple[int, str, str | None]]]] = []
        self._snapshot: Snapshot | None = None  # goes with the next append
        self._changed = False
        self.failed = False  # the log could not be written: the table stopped
        self.inbox: asyncio.Queue[m.TableMessage] = asyncio.Queue()
        self.state: engine.State | None = None
        self.seq = 0  # events published so far
        self.logged_seq = 0  # events in the log: ``seq`` runs ahead until the append (for good if it fails)
        self.events: list[engine.Event] = []  # the whole log of this table's matches
        self._viewers = Viewers(seats)
        self.viewers = self._viewers.seats  # connection -> seat (None: a spectator)
        self.talk = Talk(table_id, self.rules, self.seed, self._viewers, seats)  # chat, words, señas
        self.rematch_votes: set[int] = set()
        self._cids: dict[int, deque[int]] = {}
        self._timers = Timers(pace, turn_timer, self.post)
        self._task: asyncio.Task[None] | None = None
        self._thinker = bots.Thinker(self.rules, self.post)  # where the bots decide
        self.finished = False

    @property
    def pace(self) -> Pace:
        return self._timers.pace

    @pace.setter
    def pace(self, pace: Pace) -> None:  # from the next timer on
        self._timers.pace = pace

    # -- lifecycle ---------------------------------------------------------------------
    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self.run(), name=f"table-{self.table_id}")

    def post(self, message: m.TableMessage) -> None:
        self.inbox.put_nowait(message)

    async def stop(self) -> None:
        self.post(m.Stop())
        if self._task is not None:
            await asyncio.gather(self._task, return_exceptions=True)

    async def run(self) -> None:
        if self.state is None:
            self._new_match()
        else:  # restored from the log: carry on where it stopped
            self._reschedule()
        if not await self._flush():
            return
        while True:
            batch = [await self.inbox.get()]
            while len(batch) < BATCH and not self.inbox.empty():
                batch.append(self.inbox.get_nowait())
            stop = False
            for message in batch:
                if isinstance(message, m.Stop):
                    stop = True
                    break
                try:
                    self._handle(message)
                except Exception:  # a bug in one command must not freeze the table
                    log.exception("table %s failed on %s", self.table_id, type(message).__name__)
            if not await self._flush() or stop:
                self._timers.cancel()
                return

    async def _flush(self) -> bool:
        """Append the queued events to the log, then send the queued frames (in order)."""
        rows, games, snapshot, senas = self._rows, self._games, self._snapshot, self.talk.take_pending()
        self._rows, self._games, self._snapshot, chat = [], [], None, self.talk.take_chat()
        out = self._viewers.take()
        if self._store is not None and (rows or senas or chat):
            try:  # a finished match's record goes in the transaction of its last events
                await self._store.append(self.table_id, rows, games=games, snapshot=snapshot, senas=senas, chat=chat)
            except Exception:
                # Nobody may see what is not in the log: the table stops here, and resumes
                # from its last logged event when the server is restarted.
                log.exception("table %s: cannot write the event log; the table stops", self.table_id)
                self.failed = True
                frame = p.encode(p.Error(code="storage", message="the server cannot save this game"))
                for conn_id in list(self.viewers):
                    self._send(conn_id, frame)
                return False
            action_trace.mark("logged", None, self.table_id, self.seq)
        self.logged_seq = self.seq
        for conn_id, frame in out:
            self._send(conn_id, frame)
            action_trace.mark("sent", conn_id, self.table_id, self.seq)
        if self._changed:
            self._changed = False
            if self._on_change is not None:
                self._on_change(self)
        return True

    # -- restoring ------------------------------------------------------------------------
    def restore(self, rows: list[EventRow], snapshot: Snapshot | None = None,
                stopped_at: float | None = None, senas: list[SenaRow] | None = None,
                chat: list[ChatRow] | None = None) -> None:
        """Rebuild the current match from the log (before ``start``): ``snapshot.replay_match``
        (StaleSnapshot: replay without the snapshot); ``stopped_at``: when the server was last
        alive, or now for a table rebuilt while the cluster ran on (``Timers.resume``);
        ``senas``: the hand's; ``chat``: the table's latest lines."""
        self.talk.restore_chat(chat or [])
        replayed = replay_match(self.table_id, self.rules, len(self.seats), rows, snapshot)
        if replayed is None:
            return
        self.state, self.events = replayed.state, replayed.events
        self.match_no, self.seq = replayed.match_no, replayed.seq
        self.logged_seq = self.seq
        self.talk.restore(self.state, senas or [], self.match_no)
        for seat, cid in replayed.commands:
            self._cids.setdefault(seat, deque(maxlen=RECENT_CIDS)).append(cid)
        self.finished = self.state.match_over
        self.chance.restored(self.events)
        # kept, not sent: a moved table waits for its viewers to be in step (server/cluster/order.py)
        self._viewers.seal(self.chance.seal(self.match_no, self.state.match_over), tell=False)
        if stopped_at is not None and rows and self.turn_timer:
            self._timers.resume(self.seq, used=stopped_at - rows[-1].ts)

    def _handle(self, message: m.TableMessage) -> None:
        match message:
            case m.Act(conn_id, command):
                action_trace.mark("act", conn_id, self.table_id, self.seq)
                with metrics.PRESS_TO_UPDATE.time():  # applied, logged, each viewer's update queued
                    self._on_act(conn_id, command)
                action_trace.mark("applied", conn_id, self.table_id, self.seq)
            case m.BotMove(seat, seq):
                if seq == self.seq and self.state is not None:  # else the table moved on
                    self._play_for(seat)
            case m.BotChosen(seat, seq, action):
                if seq == self.seq and self.state is not None and self.seats[seat].bot:
                    if (chosen := self._thinker.chosen(self.state, seat, action, self.chance.bot(self.seq))):
                        self._apply(chosen)
            case m.NewMatch(seq):
                if seq == self.seq and self.state is not None and self.state.match_over:
                    self._new_match()
            case m.CoverRematch(seq):
                self._on_cover_rematch(seq)
            case m.Deal(seq):
                if seq == self.seq and self.state is not None and self.state.needs_deal:
                    self._advance_chance()
            case m.Timeout(seq):
                self._on_timeout(seq)
            case m.Chat(conn_id, sender, text, partners):
                self._on_chat(conn_id, sender, text, partners)
            case m.Entropy(conn_id, entropy):
                self._on_entropy(conn_id, entropy)
            case m.Sena(conn_id, code):
                self.talk.sena(conn_id, self.viewers.get(conn_id), code, self.state, self.seq)
            case m.Watch(conn_id):
                self._viewers.watch(self._shown(), conn_id)
            case m.Leave(conn_id):
                self._on_leave(conn_id)
            case m.Rematch(conn_id):
                self._on_rematch(conn_id)
            case m.Away(conn_id):
                self._on_away(conn_id)
            case m.Rejoin(conn_id, seat):
                self._on_rejoin(conn_id, seat)
            case m.Release(seat):
                self._on_release(seat)
            case m.Cover(seat, seq):
                self._on_cover(seat, seq)
            case m.Resend():
                self._viewers.resend(self._shown())

    # -- the game ----------------------------------------------------------------------
    def _new_match(self) -> None:
        first_dealer = moves.next_first_dealer(self.events, len(self.seats))
        rematch.replace_the_departed(self.seats)
        self.rematch_votes.clear()
        self.finished = False
        self.match_no += 1
        self.talk.match_no = self.match_no
        self.events = []
        first_dealer = self.chance.begin(self.match_no, self.seats, first_dealer)
        self._viewers.seal(self.chance.seal(self.match_no, over=False))  # before the first deal
        self.state, events = engine.new_match(  # match_started is logged first, then the deal
            self.rules, len(self.seats), self.chance.deal(self.match_no, self.seq + 2),
            first_dealer=first_dealer, entropy=self.chance.entropy)
        self._publish(events)

    def _apply(self, action: engine.Action, cause: tuple[int, int] | None = None,
               note: engine.Event | None = None) -> None:
        """`note` goes in the log just before the action's events (engine.SeatCovered)."""
        assert self.state is not None
        self.state, events = engine.apply(self.state, action)
        self._publish(events if note is None else [note, *events], cause)
        metrics.ACTIONS.labels(self.variant).inc()

    def _advance_chance(self) -> None:
        assert self.state is not None
        before, seq = self.state, self.seq
        self.state, events = engine.deal(self.state, self.chance.deal(self.match_no, self.seq + 1))
        if self._store is not None:  # a restart replays from here: one hand, not the match
            self._snapshot = Snapshot(self.match_no, seq, snapshot_bytes(before))
        self._publish(events)

    def _on_act(self, conn_id: int, cmd: p.TableAction) -> None:
        seat = self.viewers.get(conn_id)
        if seat is None or self.state is None:
            self._viewers.error(conn_id, "not_seated", "you do not play at this table")
            return
        seen = self._cids.setdefault(seat, deque(maxlen=RECENT_CIDS))
        if cmd.cid and cmd.cid in seen:  # a retry: it acted, but the update may have been lost
            self._viewers.update_one(self._shown(), conn_id, [])
            return
        try:
            action = engine.action_from_fields(seat, cmd.call, cmd.card, cmd.amount, deck=self.rules.card_notation)
            self._apply(action, (seat, cmd.cid) if cmd.cid else None)
        except (engine.IllegalAction, ValueError) as exc:
            reason = getattr(exc, "reason", None) or str(exc)
            log.debug("table %s seat %s: %s %s %s refused: %s", self.table_id, seat, cmd.call, cmd.card, cmd.amount,
                      reason)
            self._viewers.error(conn_id, "illegal", reason, getattr(exc, "code", ""))
            return
        if cmd.cid:
            seen.append(cmd.cid)

    def _play_for(self, seat: int, covered: str | None = None) -> None:
        """The bot acts for `seat`; `covered` ("time", "away") says why a human's seat was
        played by the bot, and goes in the log so every viewer sees who chose the move.
        A person's seat covered for one decision plays at the default level."""
        assert self.state is not None
        occupant = self.seats[seat]
        level = occupant.level if occupant.bot and covered is None else engine.BOT_DEFAULT_LEVEL
        senas = self.talk.partner_senas(self.state, seat)
        action = self._thinker.move(self.state, seat, self.seq, level, self.chance.bot(self.seq), senas)
        if action is not None:  # else nothing to do, or a search posts BotChosen later
            self._apply(action, note=None if covered is None else engine.SeatCovered(seat, covered))

    def _on_timeout(self, seq: int) -> None:
        if seq != self.seq or self.state is None or not self._timers.timed_seats:
            return
        seat = self._timers.timed_seats[0]
        log.info("table %s: seat %s ran out of time; the bot plays for it", self.table_id, seat)
        self._play_for(seat, "time")

    def _on_chat(self, conn_id: int, sender: str, text: str, partners: bool = False) -> None:
        """Table chat: to the players and the spectators of this table only (``partners``:
        to the sender's partners only); a reserved word may make a call (``talk``)."""
        if conn_id not in self.viewers:
            return
        seat = self.viewers[conn_id]
        action = self.talk.chat(seat, sender, text, self.state, partners)
        if action is not None and seat is not None:
            self._apply(action, None)

    # -- who sits where -------------------------------------------------------------------
    def _on_leave(self, conn_id: int) -> None:
        seat = self.viewers.pop(conn_id, None)
        if seat is None:
            return
        if not self.seats[seat].left_from(conn_id):  # a bot finishes for them, unless theirs again
            return log.warning("table %s seat %s is held again: conn %s's leave ignored", self.table_id, seat, conn_id)
        self._handed_to_bot(seat, "left")

    def _handed_to_bot(self, seat: int, why: str) -> None:
        """A bot plays ``seat`` for good (its player "left", or is "gone"): said in every viewer's log."""
        self.rematch_votes.discard(seat)
        if self._rematch_agreed():  # the others had all asked: they need not wait for this seat
            self._new_match()
            return
        self._reschedule()  # the bot may be the one the table waits for
        said: list[engine.Event] = [] if self.state is None or self.finished else [engine.SeatCovered(seat, why)]
        self._viewers.update_all(self._shown(), said)

    def _on_away(self, conn_id: int) -> None:
        """The connection of a seated player dropped: hold the seat, show them away."""
        seat = self.viewers.pop(conn_id, None)
        if seat is None:
            return
        occupant = self.seats[seat]
        if occupant.conn_id == conn_id:
            occupant.drop()
        self._reschedule()
        self._viewers.update_all(self._shown(), [])

    def _on_rejoin(self, conn_id: int, seat: int) -> None:
        """The same player is back (on a new connection): the seat's full view, at once."""
        for old, s in list(self.viewers.items()):
            if s == seat:
                del self.viewers[old]
        occupant = self.seats[seat]
        occupant.back(conn_id)
        self.viewers[conn_id] = seat
        self._reschedule()
        if self.state is not None:
            self.talk.resend(conn_id, seat, self.state)  # this hand's señas of their side
        self._viewers.update_all(self._shown(), [], history_for=conn_id)  # the log of the match so far, for them only

    def _on_release(self, seat: int) -> None:
        """The hold ran out: a bot plays the seat for good."""
        occupant = self.seats[seat]
        if occupant.conn_id is not None:
            return
        occupant.release()
        self._handed_to_bot(seat, "gone")

    def _on_cover(self, seat: int, seq: int) -> None:
        if seq != self.seq or self.state is None or not self.seats[seat].away:
            return
        log.info("table %s: seat %s is away; the bot covers this decision", self.table_id, seat)
        self._play_for(seat, "away")

    def _reschedule(self) -> None:
        if self.state is not None:
            self._timers.cancel()
            self._schedule()

    def _schedule(self) -> None:
        assert self.state is not None
        if self.state.match_over:
            self.finished = True
        self._timers.schedule(self.state, self.seats, self.seq, auto_rematch=self.auto_rematch,
                              absent_voters=bool(self._absent_voters()))

    def waiting_on(self) -> tuple[int, ...]:
        """The seats the game cannot go on without (see ``timers.waiting_on``)."""
        assert self.state is not None
        return waiting_on(self.state, len(self.seats))

    # -- the rematch (who it waits for: ``rematch``) ---------------------------------------
    def _absent_voters(self) -> list[int]:
        return rematch.absent_voters(self.seats, self.rematch_votes)

    def _on_cover_rematch(self, seq: int) -> None:
        if seq != self.seq or self.state is None or not self.state.match_over:
            return
        absent = self._absent_voters()
        if absent:
            log.info("table %s: %s away; the rematch starts with their seats held", self.table_id, absent)
            self.rematch_votes.update(absent)
            if self._rematch_agreed():
                self._new_match()

    def _on_entropy(self, conn_id: int, entropy: str) -> None:
        """A player's random bytes for the next match, answered with its commitment (``Chance.offered``)."""
        seat = self.viewers.get(conn_id)
        if seat is None:
            return self._viewers.error(conn_id, "not_seated", "you do not play at this table")
        self._viewers.emit(conn_id, p.encode(self.chance.offered(self.match_no, self.seats, seat, entropy)))

    def _on_rematch(self, conn_id: int) -> None:
        seat = self.viewers.get(conn_id)
        if seat is None or self.state is None or not self.state.match_over:
            self._viewers.error(conn_id, "no_rematch", "a rematch is possible once the match is over")
            return
        self.rematch_votes.add(seat)
        if self._rematch_agreed():
            self._new_match()
        else:
            self._reschedule()  # perhaps only absent players are left to answer (_absent_voters)
            self._viewers.update_all(self._shown(), [])

    def _rematch_agreed(self) -> bool:
        return rematch.agreed(self.state, self.seats, self.rematch_votes)

    # -- publishing: logged first (``_flush``), then sent ----------------------------------
    def _publish(self, events: list[engine.Event], cause: tuple[int, int] | None = None) -> None:
        for i, event in enumerate(events):
            seat, cid = cause if cause is not None and i == 0 else (None, None)
            self._rows.append(EventRow(self.seq + i + 1, self.match_no, event.to_wire(), seat, cid))
        self.events.extend(events)
        self.seq += len(events)
        if ended := any(isinstance(e, engine.MatchEnded) for e in events):
            assert self.state is not None
            self._games.append(moves.game_record(self.table_id, self.match_no, self.variant, self.title,
                                                 self.seats, self.state, self.chance.secret(self.match_no).hex()))
        self._timers.cancel()
        self._schedule()  # first: the updates carry the new turn timer
        self._viewers.update_all(self._shown(), events)
        if ended:  # the secret, now that no card of the match is left to deal
            self._viewers.seal(self.chance.seal(self.match_no, over=True))
        if any(isinstance(e, engine.HandDealt) for e in events) and self.state is not None:
            self.talk.bots_signal(self.state, self.seq)  # after the deal they are about
        self._changed = True

    def _shown(self) -> Shown:
        """What the table shows now (the viewers make each one's frame of it)."""
        assert self.state is not None
        return Shown(self.table_id, self.seq, self.state, self.seats, self.events, self._timers.waiting,
                     self._timers.remaining(), frozenset(self.rematch_votes))
