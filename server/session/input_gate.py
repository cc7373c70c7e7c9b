"""No player can slow the others: a CPU budget for what each session's input costs.

Every session shares one event loop. What a client sends is cheap to receive but not to
handle: each key runs Textual's handlers, layout and a repaint, so a client typing (or
resizing) within the byte limits could still keep the core busy and give every other
player slow round trips. So each session's input handling has a CPU budget:

* ``meter``: the time of every event-loop callback that runs in the session's context
  (its App and every task the App starts inherit it, see :func:`install`) is charged to
  the session while its input is being handled, that is within ``CHARGE_WINDOW`` of the
  last input fed to the App. Repaints caused by other players' moves, later, are not
  charged: a player at a busy table is not throttled for watching it. The window does not
  count the time the loop spent on anyone else's callbacks meanwhile: on a loop crowded by
  a flood, a session's own work waits its turn past a wall-clock window, and was not
  charged (eight flooders from one address took 70 % of a core against a budget of 16 %).
* the budget is a bucket of CPU seconds (``input_cpu_per_second``, at most
  ``input_cpu_burst`` saved up) that may run into debt by what the last input cost. Every
  session from one address also spends from that address's budget
  (``input_cpu_per_address_per_second``): more connections buy a flooder nothing; and
  however much is saved, an address's input runs at a pace (``input_cpu_peak_per_second``).
  Each input is paid ahead as it is let in (cpu_budget.Prepaid).
* past it, input is paused: keys already received wait in a small queue and the channel
  is not read, so SSH flow control (a small window) holds the client back and nothing of
  its flood is even decrypted. When the debt is paid the queue is fed again.
* input held back for longer than ``DROP_AFTER`` (a client sending more than its budget
  pays for, not a burst) is dropped instead, and the player is told once: a flood would
  otherwise be typed seconds later. Dropping lasts until a fifth of the burst is saved
  up again (a few seconds).
* window-size changes are coalesced: at most one Resize every ``RESIZE_EVERY`` seconds
  reaches the App, with the latest size, and only when the budget allows.

The bytes per second a client may send (``input_bytes_per_second``) are counted here too;
past them the channel is paused as well (before, excess bytes were read and dropped, which
let a flooder make the server decrypt as fast as it could send).
"""
from __future__ import annotations

import asyncio
import contextvars
import functools
import logging
import random
import time
from collections import deque
from typing import Any, Callable, Protocol

from server.ops import metrics
from server.config import ServerConfig
from server.session.cpu_budget import Budgets, CpuBudget, Prepaid
from server.session.key_chunks import editing_key_end
from server.ratelimit import TokenBucket

log = logging.getLogger(__name__)

CHARGE_WINDOW = 0.25  # seconds after input was fed during which the session's work is its input's
# (less the time the loop spent on other callbacks meanwhile: see LOOP_BUSY)
FEED_CHUNK = 256  # at most the bytes handed to the App at once (one packet as it came, if smaller)
QUEUE_LIMIT = 4096  # bytes of input waiting while paused; past it input is dropped
DROP_AFTER = 1.0  # seconds input may wait for the budget (not the pace) before it is dropped
RESIZE_EVERY = 0.2  # seconds between two resizes reaching the App
BYTES_PAUSE = 0.25  # seconds the channel rests after bytes past the byte allowance
NOTICE_EVERY = 10.0  # seconds between two "input dropped" notices
DROPPING_ENDS = 0.2  # dropping ends once this share of the burst is saved up again
BUSY_POLL = 0.003  # seconds between two looks at whether the App has handled the last chunk
BUSY_WAIT = 0.05  # at most this long: an App kept busy by others' news must still take keys
# Sessions sharing an address's budget wait for the same debt: each comes back up to this
# much later than the others (its own share, drawn once) to read, feed or resize, so that
# they do not all do so in one turn of the loop (eight flooders did: 8 x 40 ms at once).
RESUME_SPREAD = 0.05

# The input gate whose session's App this code runs for, if any.
current_gate: contextvars.ContextVar["InputGate | None"] = contextvars.ContextVar(
    "truco_input_gate", default=None)


class GateSink(Protocol):
    """What the gate drives: the session's App and channel."""

    def feed(self, data: bytes) -> None: ...

    def resize(self, width: int, height: int) -> None: ...

    def pause_reading(self) -> None: ...

    def resume_reading(self) -> None: ...

    def dropped(self) -> None: ...

    def busy(self) -> bool: ...


class InputGate:
    """One session's input: bytes in, keys to the App within the session's CPU budget.

    ``schedule(delay, callback)`` runs the callback later in the App's context (so its work
    is metered); ``clock`` is ``time.perf_counter`` (the meter's clock) unless a test's.
    """

    def __init__(self, config: ServerConfig, sink: GateSink,
                 schedule: Callable[[float, Callable[[], None]], Any],
                 clock: Callable[[], float] = time.perf_counter,
                 address: Budgets | CpuBudget | None = None) -> None:
        """``address``: the budget every session from this one's address shares (same clock)."""
        self._sink = sink
        self._schedule = schedule
        self._clock = clock
        self._bytes = TokenBucket(config.input_bytes_per_second, config.input_burst, clock)
        own = CpuBudget(config.input_cpu_per_second, config.input_cpu_burst, clock)
        self.cpu = Budgets(own, address) if address is not None else Budgets(own)
        self._queue: deque[bytes] = deque()  # packets as they came: a packet is never cut
        self._queued = 0  # bytes in the queue
        self._fed_at = -1e9  # when input last reached the App (the meter's window)
        self._busy_at_feed = 0.0  # LOOP_BUSY.seconds then
        self._own_since_feed = 0.0  # wall seconds of this session's callbacks since
        self._held_since: float | None = None  # input waiting since (None: not held back)
        self._reading = True
        self._pump_due = False
        self._in_flight = False  # a chunk fed that the App has not taken yet
        self._taken_wait_ends = 0.0
        self._resume_at: float | None = None  # when the channel is due to be read again
        self._stagger = random.uniform(0.0, RESUME_SPREAD) if address is not None else 0.0
        self._rest_until = -1e9  # no reading before this (after bytes past the allowance)
        self.dropping = False
        self.dropped_bytes = 0
        self._noticed_at = -1e9
        self._size: tuple[int, int] | None = None  # a resize not yet given to the App
        self._resize_due = False
        self._resized_at = -1e9
        self.charged = 0.0  # seconds charged so far (figures, tests)
        self._prepaid = Prepaid(self.cpu)
        self._settle_mark = -1  # admissions when a refund was last put off (-1: none due)

    # -- the meter ------------------------------------------------------------------------
    def charge(self, seconds: float, now: float, wall: float = 0.0) -> None:
        """A callback of this session's App took ``seconds`` (``wall``: of wall time, counted
        in ``LOOP_BUSY`` already); input pays while it is fresh."""
        self._own_since_feed += wall
        others = LOOP_BUSY.seconds - self._busy_at_feed - self._own_since_feed
        if now - self._fed_at - others <= CHARGE_WINDOW:
            self._prepaid.charge(seconds)
            self.charged += seconds

    def _admit(self) -> None:
        """An input (a chunk, a resize) goes to the App, paid ahead (cpu_budget.Prepaid); what
        it did not cost goes back once the App is done with it (``_taken``) or, for a resize,
        after a charge window with no new input."""
        self._prepaid.admit()
        if self._settle_mark < 0:
            self._settle()

    def _settle(self, mark: int = -1) -> None:
        admissions = self._prepaid.admissions
        if mark != admissions:  # (more) input since: its work may still be charged
            self._settle_mark = admissions
            self._schedule(CHARGE_WINDOW, functools.partial(self._settle, admissions))
            return
        self._settle_mark = -1
        self._prepaid.refund()
        self._resume()

    def _fed(self, now: float) -> None:
        """Input reached the App at ``now``: its window starts."""
        self._fed_at = now
        self._busy_at_feed = LOOP_BUSY.seconds
        self._own_since_feed = 0.0

    def spend(self, seconds: float) -> None:
        """Work done on this client's input outside its App (the SSH layer): always charged,
        and past the budget the socket rests until the debt is paid. Only typed bytes pass the
        channel's flow control: window-size changes and other requests do not, and a client
        sending thousands a second was decrypted and parsed without end (eight such clients
        took 70 % of a core)."""
        self.cpu.spend(seconds)
        self.charged += seconds
        wait = self.cpu.wait()
        if wait > 0:
            self._pause(wait)

    # -- bytes from the client ------------------------------------------------------------
    def received(self, data: bytes) -> None:
        if not self._bytes.take(len(data)):
            # Past the byte allowance (a paste too large is refused whole): dropped, and the
            # channel paused until the allowance is back, so a flood is not even read.
            self._drop(len(data), "input past the byte allowance")
            self._rest_until = self._clock() + BYTES_PAUSE
            self._pause(BYTES_PAUSE)
            return
        if self.dropping:
            if self.cpu.saved_share() < DROPPING_ENDS:
                self._drop(len(data), "")
                return
            self.dropping = False
        if self._queued + len(data) > QUEUE_LIMIT:
            self._drop(self._queued + len(data), "input queue full")
            self._clear()
            self.dropping = True
            return
        self._queue.append(bytes(data))
        self._queued += len(data)
        if self._in_flight:  # the App has not taken the last chunk: read nothing more till it has
            self._pause(0.0)
        self._pump()

    def _pump(self) -> None:
        """Feed one chunk to the App if the budget allows; come back for the rest."""
        self._pump_due = False
        if self._in_flight:
            return  # _taken comes back here
        if not self._queue:
            self._held_since = None
            self._resume()
            return
        now = self._clock()
        wait = self.cpu.wait()
        if wait > 0:
            if self._held_since is None:
                self._held_since = now
            elif now - self._held_since >= DROP_AFTER and self.cpu.wait(pace=False) > 0:
                self._drop(self._queued, "input over its CPU budget")
                self._clear()
                self.dropping = True
                self._held_since = None
                self._pause(wait)
                return
            self._pause(wait)
            self._later(min(wait, DROP_AFTER) + self._stagger, self._pump)
            return
        chunk, whole = self._next_chunk()
        if whole:  # held back is counted per packet: a packet fed key by key may still be a flood
            self._held_since = None
        self._fed(now)
        # One chunk at a time: the next only once the App has taken this one. Bytes arrive
        # many packets per read; feeding them all at once would queue thousands of keys in
        # the App before the first one is handled (and charged).
        self._in_flight = True
        self._taken_wait_ends = now + BUSY_WAIT
        self._admit()
        self._sink.feed(chunk)
        self._schedule(0.0, self._taken)
        if self._queue:
            self._pause(0.0)  # more is waiting: read nothing new until it is taken

    def _next_chunk(self) -> tuple[bytes, bool]:
        """The next packet, as the client sent it, up to the end of its first editing key:
        the terminal parser needs a sequence in one piece (one cut short, a lone ESC above
        all, becomes keys once the rest is late), and a key that runs an action (Backspace,
        Home, Ctrl+U...) must be handled before the letters typed after it: Textual runs a
        binding's action after the letters queued with it, so "Backspace, V" in one packet
        (a slow link sends a few keys at once) deleted the V. A packet longer than
        FEED_CHUNK (a paste) is cut too, before an ESC where it has one. True: the chunk ends
        its packet."""
        packet = self._queue.popleft()
        size = min(editing_key_end(packet), FEED_CHUNK)
        if size < len(packet) and size == FEED_CHUNK:
            esc = packet.rfind(b"\x1b", 1, size)
            if esc > 0:
                size = esc
        whole = size >= len(packet)
        if not whole:
            packet, rest = packet[:size], packet[size:]
            self._queue.appendleft(rest)
        self._queued -= len(packet)
        return packet, whole

    def _clear(self) -> None:
        self._queue.clear()
        self._queued = 0

    def _taken(self) -> None:
        # Taken means handled, not just routed: the App passes keys on to widgets (which may
        # pass them back), so its queues must be empty before the next chunk goes in.
        now = self._clock()
        self._fed(now)
        busy = self._sink.busy()
        if now < self._taken_wait_ends and busy:
            self._schedule(BUSY_POLL, self._taken)
            return
        self._in_flight = False
        if not busy:  # done with: what it did not cost goes back (its repaint is charged as it comes)
            self._prepaid.refund()
        self._pump()

    def _later(self, delay: float, callback: Callable[[], None]) -> None:
        if callback == self._pump:
            if self._pump_due:
                return
            self._pump_due = True
        self._schedule(delay, callback)

    # -- the channel: paused while input is held back -----------------------------------------
    def _pause(self, seconds: float) -> None:
        if self._reading:
            self._reading = False
            self._sink.pause_reading()
        if seconds > 0:
            self._resume_in(seconds)

    def _resume_in(self, seconds: float) -> None:
        """Try reading again in ``seconds``, and this session's stagger (one timer: the
        earliest asked for)."""
        seconds += self._stagger
        at = self._clock() + seconds
        if self._resume_at is not None and self._resume_at <= at:
            return
        self._resume_at = at

        def fire() -> None:
            if self._resume_at == at:
                self._resume_at = None
            self._resume()

        self._schedule(seconds, fire)

    def _resume(self) -> None:
        if self._reading or self._queue:
            return
        wait = self._rest_until - self._clock()
        if not self.dropping:
            wait = max(wait, self.cpu.wait())
        if wait > 0:
            self._resume_in(wait)
            return
        self._reading = True
        self._sink.resume_reading()

    def _drop(self, count: int, why: str) -> None:
        if count <= 0:
            return
        self.dropped_bytes += count
        now = self._clock()
        if why:
            log.info("session input dropped (%s): %d bytes", why, count)
            metrics.INPUT_DROPS.labels(why).inc()
        if now - self._noticed_at >= NOTICE_EVERY:
            self._noticed_at = now
            self._sink.dropped()

    # -- window-size changes ----------------------------------------------------------------
    def resized(self, width: int, height: int) -> None:
        """A window-size change: the latest size reaches the App, at most every RESIZE_EVERY."""
        self._size = (width, height)
        if not self._resize_due:
            self._resize_due = True
            delay = max(0.0, self._resized_at + RESIZE_EVERY - self._clock())
            self._schedule(delay, self._apply_resize)

    def _apply_resize(self) -> None:
        wait = self.cpu.wait()
        if wait > 0:  # over budget: the size waits for the debt to be paid
            self._schedule(wait + self._stagger, self._apply_resize)
            return
        self._resize_due = False
        size, self._size = self._size, None
        if size is not None:
            self._resized_at = self._clock()
            self._fed(self._resized_at)
            self._admit()
            self._sink.resize(*size)


# -- the meter: every loop callback run in a session's context is timed ------------------------
_installed = False


class _LoopBusy:
    """Wall seconds the event loop has spent in callbacks so far (the meter's, see install)."""
    seconds = 0.0


LOOP_BUSY = _LoopBusy()


#: Seconds of wall time under which a callback is charged its wall time (see install).
SHORT_CALLBACK = 0.0005


def install() -> None:
    """Time the event-loop callbacks that run in a session's context (once per process).

    asyncio runs every callback and every task step through ``Handle._run`` with the
    context the callback was scheduled in; a session's App and all its tasks carry the
    session's gate in ``current_gate``. This wraps ``Handle._run`` (a private method of
    asyncio's pure-Python handles, which the C task implementation also schedules): one
    context lookup and two clock reads per callback, and three or four for the callbacks of
    sessions. Every callback's wall time adds to ``LOOP_BUSY`` (the charge window's measure).
    """
    global _installed
    if _installed:
        return
    original = asyncio.events.Handle._run
    clock = time.perf_counter
    # The cost is this thread's CPU time, not the wall time: on a machine busy with other
    # processes a callback preempted halfway would otherwise be charged for the time the
    # kernel gave to someone else, and players throttled for the operator's load. Reading
    # the thread's CPU clock is a system call (the wall clock is not), a tenth of a seat's
    # CPU when read twice per callback; so a callback that took less than SHORT of wall
    # time is charged that (at most SHORT too much, and only when preempted), and only a
    # longer one reads the CPU clock a second time.
    cpu_clock = time.thread_time
    short = SHORT_CALLBACK

    busy = LOOP_BUSY

    def _run(self: asyncio.events.Handle) -> None:
        gate = self._context.get(current_gate)  # type: ignore[attr-defined]
        if gate is None:
            started = clock()
            try:
                original(self)
            finally:
                busy.seconds += clock() - started
            return
        cpu_started = cpu_clock()
        started = clock()
        try:
            original(self)
        finally:
            now = clock()
            wall = now - started
            busy.seconds += wall
            gate.charge(wall if wall < short else cpu_clock() - cpu_started, now, wall)

    asyncio.events.Handle._run = _run  # type: ignore[method-assign]
    _installed = True
