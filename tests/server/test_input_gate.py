"""The per-session input gate (server/session/input_gate.py), driven with a fake clock: what a session's
input may cost, when it is paused, when it is dropped, and how resize storms are coalesced."""
from __future__ import annotations

import asyncio
import math
import time
import contextvars
import dataclasses
from typing import Callable

from hypothesis import given
from hypothesis import strategies as st
from server.session import input_gate
from server.config import ServerConfig
from server.session.cpu_budget import FIRST_ESTIMATE, CpuBudget, address_budget
from server.session.key_chunks import editing_key_end
from server.session.input_gate import (
    RESUME_SPREAD,
    BUSY_WAIT, DROP_AFTER, FEED_CHUNK, QUEUE_LIMIT, RESIZE_EVERY, InputGate,
)

CONFIG = dataclasses.replace(ServerConfig(), input_cpu_per_second=0.01, input_cpu_burst=0.05)


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


class Sink:
    """The session: records what the gate fed, resized, paused; each fed byte costs `cost`."""

    def __init__(self, clock: Clock, cost: float) -> None:
        self.clock, self.cost = clock, cost
        self.fed = bytearray()
        self.sizes: list[tuple[int, int]] = []
        self.reading = True
        self.notices = 0
        self.gate: InputGate | None = None

    def feed(self, data: bytes) -> None:
        self.fed += data
        assert self.gate is not None
        self.gate.charge(self.cost * len(data), self.clock())  # what the App spent on them

    def resize(self, width: int, height: int) -> None:
        self.sizes.append((width, height))

    def pause_reading(self) -> None:
        self.reading = False

    def resume_reading(self) -> None:
        self.reading = True

    def dropped(self) -> None:
        self.notices += 1

    def busy(self) -> bool:
        return False


class Loop:
    """Callbacks the gate scheduled, run when the fake clock reaches them."""

    def __init__(self, clock: Clock) -> None:
        self.clock = clock
        self.due: list[tuple[float, int, Callable[[], None]]] = []
        self._n = 0

    def schedule(self, delay: float, callback: Callable[[], None]) -> None:
        self._n += 1
        self.due.append((self.clock.now + max(0.0, delay), self._n, callback))

    def run_for(self, seconds: float, step: float = 0.001) -> None:
        end = self.clock.now + seconds
        while self.clock.now < end:
            self.run_due()
            self.clock.now += step
        self.run_due()

    def run_due(self) -> None:
        while True:
            ready = sorted(d for d in self.due if d[0] <= self.clock.now)
            if not ready:
                return
            self.due.remove(ready[0])
            ready[0][2]()


def make(cost: float, config: ServerConfig = CONFIG) -> tuple[InputGate, Sink, Loop, Clock]:
    clock = Clock()
    sink, loop = Sink(clock, cost), Loop(clock)
    gate = InputGate(config, sink, loop.schedule, clock)
    sink.gate = gate
    return gate, sink, loop, clock


def test_typing_within_the_budget_goes_straight_through() -> None:
    gate, sink, loop, clock = make(cost=0.001)  # 1 ms a key, 10 ms/s budget
    for ch in b"hola, que tal":
        gate.received(bytes([ch]))
        clock.now += 0.2  # five keys a second: 5 ms/s
        loop.run_due()
    assert bytes(sink.fed) == b"hola, que tal"
    assert sink.reading and sink.notices == 0 and gate.dropped_bytes == 0


def test_a_burst_over_budget_is_paused_then_fed_in_order_as_the_budget_refills() -> None:
    gate, sink, loop, clock = make(cost=0.002)  # 50 bytes of keys cost 100 ms: over 50 ms saved
    data = bytes(range(65, 65 + 25)) * 6  # 150 bytes, three packets
    for i in range(0, 150, 50):
        gate.received(data[i:i + 50])
    assert bytes(sink.fed) == data[:50]
    assert not sink.reading  # the rest waits, and the channel is not read meanwhile
    loop.run_for(DROP_AFTER * 0.9)
    assert len(sink.fed) == 50  # the debt (50 ms at 10 ms/s) is not paid yet
    gate.cpu.budgets[0].rate = 1.0  # a generous budget from now on: what waits is fed, none dropped
    loop.run_for(0.5)
    assert bytes(sink.fed) == data and sink.notices == 0 and sink.reading


def test_a_flood_is_dropped_with_one_notice_and_costs_at_most_the_budget() -> None:
    gate, sink, loop, clock = make(cost=0.001)
    spent_before = gate.charged
    for _ in range(200):  # 10 s of a client sending keys as fast as it is let
        if sink.reading:
            gate.received(b"x" * 40 + b"\r")
        loop.run_for(0.05)
    assert gate.dropped_bytes > 0 and sink.notices == 1
    # What it cost: the burst plus 10 ms a second (the debt of one chunk at most on top).
    assert gate.charged <= CONFIG.input_cpu_burst + 10 * CONFIG.input_cpu_per_second + FEED_CHUNK * 0.001
    assert gate.charged > spent_before
    # Once it stops, the budget refills and keys go through again.
    loop.run_for(10)
    fed = len(sink.fed)
    gate.received(b"ok")
    assert len(sink.fed) == fed + 2 and sink.reading


def test_input_queued_past_its_bound_is_dropped() -> None:
    gate, sink, loop, clock = make(cost=0.01)
    gate.received(b"a" * 64)  # 640 ms of work: deep in debt
    gate.received(b"b" * (QUEUE_LIMIT - 10))
    gate.received(b"c" * 20)  # the queue would pass its bound
    assert sink.notices == 1 and gate.dropping
    assert gate.dropped_bytes == QUEUE_LIMIT + 10


def test_bytes_past_the_byte_allowance_are_dropped_and_reading_pauses() -> None:
    config = dataclasses.replace(CONFIG, input_bytes_per_second=100.0, input_burst=1000)
    gate, sink, loop, clock = make(cost=0.0, config=config)
    gate.received(b"x" * 2000)  # a paste larger than the burst: refused whole
    assert gate.dropped_bytes == 2000 and not sink.reading and sink.fed == bytearray()
    loop.run_for(30)
    assert sink.reading


def test_a_resize_storm_reaches_the_app_as_a_few_resizes_of_the_latest_size() -> None:
    gate, sink, loop, clock = make(cost=0.0)
    for i in range(1000):  # a thousand window changes in one second
        gate.resized(80 + i % 7, 24)
        clock.now += 0.001
        loop.run_due()
    loop.run_for(1)
    assert 1 <= len(sink.sizes) <= 1 / RESIZE_EVERY + 2
    assert sink.sizes[-1] == (80 + 999 % 7, 24)


def test_resizes_wait_while_the_budget_is_spent() -> None:
    gate, sink, loop, clock = make(cost=0.01)
    gate.received(b"z" * 64)  # 640 ms of debt at 10 ms/s: about a minute
    gate.resized(100, 30)
    loop.run_for(5)
    assert sink.sizes == []
    loop.run_for(70, step=0.01)
    assert sink.sizes == [(100, 30)]


def test_work_is_charged_only_while_input_is_fresh() -> None:
    gate, sink, loop, clock = make(cost=0.0)
    gate.charge(0.01, clock.now)  # a repaint for someone else's move: no input yet
    assert gate.charged == 0
    gate.received(b"k")
    gate.charge(0.003, clock.now + 0.01)  # the key's own handling
    gate.charge(0.004, clock.now + 5.0)  # an update seconds later
    assert gate.charged == 0.003


def test_work_that_waited_behind_others_on_a_crowded_loop_is_still_charged() -> None:
    """Eight flooders' callbacks queue up: a session's own work for its input runs after
    the others', past the window in wall time, and is still its input's (it was not, and a
    flood from one address took 70 % of a core against a budget of 16 %)."""
    gate, sink, loop, clock = make(cost=0.0)
    gate.received(b"k")
    input_gate.LOOP_BUSY.seconds += 0.6  # the loop ran other sessions' callbacks for 0.6 s
    gate.charge(0.003, clock.now + 0.65)  # then this one's: 0.05 s of its own window
    assert gate.charged == 0.003
    gate.charge(0.004, clock.now + 0.95, wall=0.004)  # 0.35 s later on a quiet loop: not
    assert gate.charged == 0.003


def test_the_meter_charges_callbacks_run_in_a_gated_context() -> None:
    gate, sink, loop, clock = make(cost=0.0)
    gate.received(b"k")  # input is fresh (in the fake clock); the meter uses perf_counter
    charged: list[float] = []
    gate.charge = lambda seconds, now, wall=0.0: charged.append(seconds)  # type: ignore[method-assign]
    input_gate.install()
    ctx = contextvars.copy_context()
    ctx.run(input_gate.current_gate.set, gate)

    async def main() -> None:
        loop = asyncio.get_running_loop()
        loop.call_soon(sum, range(10000), context=ctx)
        loop.call_soon(sum, range(10000))  # not a session's: not charged
        await asyncio.sleep(0.01)

    asyncio.run(main())
    assert len(charged) == 1 and charged[0] > 0


def test_the_meter_charges_cpu_time_not_the_time_others_take() -> None:
    # A callback preempted by the kernel (here: sleeping, as on a machine busy with other
    # processes) costs the session only the CPU it used, not the wall time.
    gate, sink, loop, clock = make(cost=0.0)
    gate.received(b"k")
    charged: list[float] = []
    gate.charge = lambda seconds, now, wall=0.0: charged.append(seconds)  # type: ignore[method-assign]
    input_gate.install()
    ctx = contextvars.copy_context()
    ctx.run(input_gate.current_gate.set, gate)

    async def main() -> None:
        loop = asyncio.get_running_loop()
        loop.call_soon(time.sleep, 0.05, context=ctx)
        ran = loop.create_future()
        loop.call_soon(ran.set_result, None)  # callbacks run in order: the one above, charged, first
        await ran

    asyncio.run(main())
    assert len(charged) == 1 and charged[0] < 0.01


def test_packets_read_together_wait_for_the_app_to_take_each_chunk() -> None:
    gate, sink, loop, clock = make(cost=0.0)
    offered = 0
    for _ in range(1000):  # a thousand small packets in one read of the socket
        if sink.reading:
            gate.received(b"x" * 10)
            offered += 10
    assert len(sink.fed) == 10  # the App has not run yet: nothing more is fed...
    assert not sink.reading and offered == 20  # ...nor read: the client is held back
    loop.run_due()  # the App takes the first chunk, then the rest
    loop.run_due()
    assert len(sink.fed) == 20 and sink.reading


def test_the_next_chunk_waits_until_the_app_has_handled_the_last() -> None:
    gate, sink, loop, clock = make(cost=0.0)
    busy = [True]
    sink.busy = lambda: busy[0]  # type: ignore[method-assign]
    gate.received(b"y" * (FEED_CHUNK * 2))
    loop.run_for(BUSY_WAIT / 2)
    assert len(sink.fed) == FEED_CHUNK  # keys still being passed around inside the App
    busy[0] = False
    loop.run_for(0.01)
    assert len(sink.fed) == FEED_CHUNK * 2


def test_an_app_kept_busy_by_others_still_takes_keys() -> None:
    gate, sink, loop, clock = make(cost=0.0)
    sink.busy = lambda: True  # type: ignore[method-assign]  # news arriving all the time
    gate.received(b"a")
    gate.received(b"b")
    loop.run_for(BUSY_WAIT * 3)
    assert bytes(sink.fed) == b"ab"


def test_a_packet_is_fed_key_by_key_each_sequence_whole_and_a_long_paste_cut_before_an_escape() -> None:
    gate, sink, loop, clock = make(cost=0.0)
    chunks: list[bytes] = []
    feed = sink.feed
    sink.feed = lambda data: (chunks.append(data), feed(data))  # type: ignore[method-assign]
    typed = b"abc\x1b]52;c;SGVsbG8=\x07def\x1b[2Jghi\x7fV\x1bOPx\x15"  # one packet
    gate.received(typed)
    loop.run_for(0.1)
    # Each editing key (and each sequence, whole) alone, the text between it in runs: the
    # App handles one before it is given the next.
    assert chunks == [b"abc", b"\x1b]52;c;SGVsbG8=\x07", b"def", b"\x1b[2J", b"ghi", b"\x7f", b"V",
                      b"\x1bOP", b"x", b"\x15"]
    paste = b"\x1b[200~" + b"p" * (FEED_CHUNK - 10) + b"\x1b[201~" + b"q" * 300
    del chunks[:]
    gate.received(paste)
    loop.run_for(0.1)
    assert b"".join(chunks) == paste
    assert chunks[0] == paste[:FEED_CHUNK - 4]  # before the ESC of the paste's end, not inside it
    assert all(len(chunk) <= FEED_CHUNK for chunk in chunks)


KEYS = st.sampled_from([b"a", "ñ".encode(), b"xyz", b"\r", b"\t", b"\x7f", b"\x15", b"\x1b[A", b"\x1b[1;5C",
                        b"\x1bOP", b"\x1b[<0;3;4M", b"\x1b[200~pasted\r\ntext\x1b[201~", b"\x1b]52;c;aGk=\x07",
                        b"\x1bx"])


@given(st.lists(KEYS, min_size=1, max_size=30))
def test_a_packet_cut_at_its_editing_keys_is_whole_and_every_key_in_one_piece(keys: list[bytes]) -> None:
    packet = b"".join(keys)
    chunks, rest = [], packet
    while rest:
        end = editing_key_end(rest)
        assert 0 < end <= len(rest)
        chunks.append(rest[:end])
        rest = rest[end:]
    assert b"".join(chunks) == packet
    # Every key's bytes lie inside one chunk (a run of text may hold several).
    bounds, at = set(), 0
    for chunk in chunks:
        at += len(chunk)
        bounds.add(at)
    at = 0
    for key in keys:
        assert not any(at < b < at + len(key) for b in bounds), (key, chunks)
        at += len(key)


def test_sessions_from_one_address_share_its_budget_and_others_keep_theirs() -> None:
    """Two sessions of one address: what the first spends, the second cannot; a session from
    another address is not held back by them. (Here the address may spend what one session
    may: the flooder alone empties it.)"""
    clock = Clock()
    loop = Loop(clock)
    shared = CpuBudget(CONFIG.input_cpu_per_second, CONFIG.input_cpu_burst, clock)
    gates = []
    for cost, address in ((0.002, shared), (0.002, shared), (0.002, None)):
        sink = Sink(clock, cost)
        gate = InputGate(CONFIG, sink, loop.schedule, clock, address=address)
        sink.gate = gate
        gates.append((gate, sink))
    (flooder, flooder_sink), (housemate, housemate_sink), (stranger, stranger_sink) = gates
    for _ in range(40):  # the flooder spends the address's whole burst and more
        flooder.received(b"x" * 50)
        loop.run_for(0.01)
    assert shared.wait() > 0  # in debt
    housemate.received(b"hola")
    stranger.received(b"hola")
    loop.run_due()
    assert bytes(stranger_sink.fed) == b"hola"  # another address: straight through
    assert bytes(housemate_sink.fed) == b""  # the address's budget is spent: it waits
    loop.run_for(60)  # the flooder has stopped: the address pays its debt
    housemate.received(b"chau")
    loop.run_due()
    assert bytes(housemate_sink.fed).endswith(b"chau")


def test_a_packet_over_budget_fed_key_by_key_is_still_dropped_after_the_hold() -> None:
    """One packet of forty chat lines (a flood in one write): fed an editing key at a time,
    each chunk costs little and waits a little, but the packet as a whole is held back longer
    than DROP_AFTER: the rest is dropped and the player told, not typed for seconds."""
    gate, sink, loop, clock = make(cost=0.0001)  # 2 ms a line: a wait of 0.2 s after each
    packet = b"".join(b"linea %02d xxxxxxxx\r" % n for n in range(40))
    gate.received(packet)
    loop.run_for(DROP_AFTER * 3)
    assert sink.notices == 1 and gate.dropped_bytes > 0
    assert len(sink.fed) < len(packet)


def test_ssh_work_past_the_budget_rests_the_socket_until_it_is_paid() -> None:
    """Window-size changes and other SSH requests pass no flow control: what the SSH layer
    spends on them pauses the socket once the budget is spent, and reading comes back when
    the debt is paid."""
    gate, sink, loop, clock = make(cost=0.0)
    gate.spend(0.01)  # within the burst
    assert sink.reading
    gate.spend(CONFIG.input_cpu_burst + 0.1)  # thousands of resizes decrypted and parsed
    assert not sink.reading
    loop.run_for(1.0)
    assert not sink.reading  # 0.1 s of debt at 10 ms a second: about ten seconds
    loop.run_for(15.0, step=0.01)
    assert sink.reading


def test_sessions_of_one_address_come_back_one_after_another() -> None:
    """Eight sessions of one address wait for the same debt: they do not all read their
    sockets again in the same moment (each has its own stagger, within RESUME_SPREAD)."""
    clock = Clock()
    loop = Loop(clock)
    shared = CpuBudget(CONFIG.input_cpu_per_address_per_second, CONFIG.input_cpu_burst, clock)
    sinks = []
    for _ in range(8):
        sink = Sink(clock, 0.0)
        gate = InputGate(CONFIG, sink, loop.schedule, clock, address=shared)
        sink.gate = gate
        sinks.append(sink)
        gate.spend(CONFIG.input_cpu_burst + 0.01)  # together, far past the address's budget
    assert not any(s.reading for s in sinks)
    back: list[float] = []
    while len(back) < 8 and clock.now < 200:
        loop.run_for(0.001)
        back += [clock.now] * (sum(s.reading for s in sinks) - len(back))
    assert len(back) == 8 and len({round(t, 3) for t in back}) > 1
    assert max(back) - min(back) <= RESUME_SPREAD + 0.01


def address_gates(costs: list[float], config: ServerConfig = ServerConfig()
                  ) -> tuple[list[tuple[InputGate, Sink]], Loop, Clock]:
    """Sessions of one address (its budget as a server makes it), each input costing ``cost``
    a byte, charged as it is fed."""
    clock = Clock()
    loop = Loop(clock)
    shared = address_budget(config, clock)
    gates = []
    for cost in costs:
        sink = Sink(clock, cost)
        gate = InputGate(config, sink, loop.schedule, clock, address=shared)
        sink.gate = gate
        gates.append((gate, sink))
    return gates, loop, clock


def test_an_address_takes_at_most_its_pace_of_the_loop_however_much_it_saved() -> None:
    """Eight sessions of one address flood for a second with every budget whole (1.5 s of
    CPU saved, each and together): they get what the address's pace allows in a second, not
    the bursts, which let them take the whole loop in the flood's first second."""
    config = ServerConfig()
    gates, loop, _ = address_gates([0.0002] * 8, config)  # 10 ms a packet
    for _ in range(100):  # one second, a packet from each every 10 ms
        for gate, _sink in gates:
            gate.received(b"x" * 50)
        loop.run_for(0.01)
    spent = sum(gate.charged for gate, _ in gates)
    paced = config.input_cpu_peak_burst * 2 + config.input_cpu_peak_per_second * 1.0
    assert spent <= paced + 8 * 0.01  # (and what was in flight when the pace ran out)
    assert spent >= config.input_cpu_peak_per_second / 2  # paced, not stopped


def test_sessions_given_keys_in_one_turn_spend_ahead_so_few_start_before_any_is_charged() -> None:
    """Eight sessions of one address each given a key in the same turn of the loop, their
    Apps charging the work only later: what each input will cost is spent as it is let in,
    so only the first few start at once; the others follow at the address's pace."""
    config = ServerConfig()
    gates, loop, _ = address_gates([0.0] * 8, config)  # nothing charged at the feed
    for gate, _sink in gates:
        gate.received(b"a")
    loop.run_due()
    started = sum(bool(sink.fed) for _, sink in gates)
    assert 1 <= started <= 1 + math.ceil(config.input_cpu_peak_burst / FIRST_ESTIMATE)
    loop.run_for(0.5)
    assert sum(bool(sink.fed) for _, sink in gates) > started
