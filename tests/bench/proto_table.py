"""The load generator's protocol seats: four programs on the ``truco`` subsystem at one table.

Each seat is a ``protocol.client.Client`` (an SSH connection speaking msgpack frames, no
screen) whose events are read all along by a task of its own (a client that stops reading is
dropped by the server) and reduced to a few facts: the latest update of its table, when the
next one arrived after a ``mark``, whether the server refused something. The table is set up
the way a program would: the owner creates a private 4-player table (no turn timer), the
other three join by its code. While measured, one action a second: the seat the game waits
for decides with the engine's own bot from its view only (server/cli/remote_bot.py, as
``truco-ssh bot`` does), and the time from sending it to the update arriving at the other
three seats is recorded, as the screen tables record the key press to the redraw.
"""
from __future__ import annotations

import asyncio
import contextlib
import random
import time
from collections.abc import Callable

import engine
import protocol as p
from protocol.client import Client
from server.cli.remote_bot import decide, must_move, view_of

LEVEL = "normal"  # the bot that decides for a protocol seat (what `truco-ssh bot` plays by default)


class ProtoSeat:
    """One protocol seat and what it has been told."""

    def __init__(self, client: Client, rng: random.Random, level: str = LEVEL) -> None:
        self.client = client
        self.rng = rng
        self.level = level  # the bot deciding for it: "easy" costs the load generator less CPU
        self.update: p.TableUpdate | None = None  # the latest update for this seat
        self.created: asyncio.Future[p.TableCreated] = asyncio.get_running_loop().create_future()
        self.dealt = asyncio.Event()  # an update with cards in hand has arrived
        self.errors = 0
        self.refused = asyncio.Event()  # the server refused a command since the last mark
        self.first_after: float | None = None  # perf_counter of the first update after a mark
        self._arrived = asyncio.Event()
        self._rematch_asked = -1  # the game number a rematch was asked for
        self._rules: dict[tuple[str, tuple[tuple[str, object], ...]], engine.RuleSet] = {}
        self._task = asyncio.get_running_loop().create_task(self._pump())

    @classmethod
    async def connect(cls, host: str, port: int, name: str, rng: random.Random,
                      level: str = LEVEL) -> ProtoSeat:
        return cls(await Client.connect(host, port, name), rng, level)

    @property
    def received(self) -> int:
        return self.client.bytes_received

    async def _pump(self) -> None:
        async for event in self.client:
            if isinstance(event, p.TableUpdate) and event.seat is not None:
                self.update = event
                if self.first_after is None:
                    self.first_after = time.perf_counter()
                    self._arrived.set()
                if event.view.own_cards:
                    self.dealt.set()
                if event.view.match_over and self._rematch_asked != event.view.game_no:
                    self._rematch_asked = event.view.game_no  # a new match, so the table plays on
                    await self.client.send(p.Rematch(table_id=event.table_id))
            elif isinstance(event, p.TableCreated) and not self.created.done():
                self.created.set_result(event)
            elif isinstance(event, p.Error):
                self.errors += 1
                self.refused.set()
        self._arrived.set()  # the connection closed: nobody waits for it
        self.refused.set()

    def mark(self) -> None:
        """From now on, note when the next update arrives."""
        self.first_after = None
        self._arrived = asyncio.Event()
        self.refused = asyncio.Event()

    async def next_update(self, timeout: float, refused: asyncio.Event) -> float:
        """When the first update after ``mark`` arrived (perf_counter); TimeoutError if none
        did within ``timeout`` or the mover's command was refused first."""
        arrived = asyncio.ensure_future(self._arrived.wait())
        given_up = asyncio.ensure_future(refused.wait())
        try:
            await asyncio.wait((arrived, given_up), timeout=timeout,
                               return_when=asyncio.FIRST_COMPLETED)
        finally:
            arrived.cancel()
            given_up.cancel()
        if self.first_after is None:
            raise asyncio.TimeoutError("no update")
        return self.first_after

    def to_move(self) -> bool:
        update = self.update
        return (update is not None and update.seat in update.waiting and bool(update.view.legal)
                and not update.view.match_over)

    def choose(self) -> p.TableAction:
        """The move the engine's bot makes from this seat's view of the latest update."""
        assert self.update is not None
        seat_view = view_of(self.update)
        key = (seat_view.variant, seat_view.options)
        rules = self._rules.get(key)
        if rules is None:
            rules = self._rules[key] = engine.get_ruleset(seat_view.variant, **dict(seat_view.options))
        action = decide(seat_view, rules, self.rng, self.level) or must_move(seat_view, self.rng)
        return p.TableAction(table_id=self.update.table_id, call=action.call.value,
                             card=str(action.card) if action.card is not None else None,
                             cid=self.client.next_cid(), amount=action.amount)

    async def close(self) -> None:
        self._task.cancel()
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self.client.close(), 5)


async def set_up_proto_table(host: str, port: int, n: int, seats: list[ProtoSeat],
                             connecting: asyncio.Semaphore, timeout: float,
                             level: str = LEVEL) -> dict[str, float]:
    """Four protocol seats (appended to ``seats`` as they connect) at one private table, dealt.
    Returns the seconds each step took, as the screen tables' set-up does."""
    t0 = time.monotonic()

    async def connect(i: int) -> None:
        async with connecting:
            seats.append(await ProtoSeat.connect(host, port, f"q{n}p{i}", random.Random(n * 4 + i), level))

    await asyncio.gather(*(connect(i) for i in range(4)))
    t1 = time.monotonic()
    owner = seats[0]
    await owner.client.send(p.CreateTable(variant="argentino", players=4, options={}, private=True,
                                          turn_timer=0))
    created = await asyncio.wait_for(owner.created, timeout)
    t2 = time.monotonic()
    for seat in seats[1:]:
        await seat.client.send(p.JoinByCode(code=created.code))
    await asyncio.wait_for(asyncio.gather(*(s.dealt.wait() for s in seats)), timeout)
    return {"connect": t1 - t0, "create": t2 - t1, "join": time.monotonic() - t2}


def whose_move(seats: list[ProtoSeat]) -> ProtoSeat | None:
    """The seat the game waits for, once every seat has been told the same state (so nobody
    decides from an update the others have moved past)."""
    seqs = {s.update.seq for s in seats if s.update is not None}
    if len(seqs) != 1:
        return None
    return next((s for s in seats if s.to_move()), None)


async def act(mover: ProtoSeat, others: list[ProtoSeat], timeout: float,
              record: Callable[[list[float], int], None]) -> bool:
    """Send the mover's decision; time its update's arrival at the others. False when the
    server refused it (nobody's view moved)."""
    for seat in [mover, *others]:
        seat.mark()
    command = mover.choose()
    sent = time.perf_counter()
    await mover.client.send(command)
    results = await asyncio.gather(*(s.next_update(timeout, mover.refused) for s in others),
                                   return_exceptions=True)
    seen = [r - sent for r in results if isinstance(r, float)]
    if not seen:
        return False
    record(seen, len(results) - len(seen))
    return True


async def play_proto_table(seats: list[ProtoSeat], until: float, timeout: float,
                           record: Callable[[list[float], int], None], rate: float = 1.0) -> None:
    """``rate`` actions a second (one, as a person plays, unless a bench wants more load per
    connection) until ``until`` (monotonic): whoever the game waits for moves."""
    tick = time.monotonic()
    while time.monotonic() < until:
        mover = whose_move(seats)
        if mover is None:  # between hands, or an update still on its way: look again soon
            await asyncio.sleep(0.05)
            continue
        await act(mover, [s for s in seats if s is not mover], timeout, record)
        tick = max(tick + 1.0 / rate, time.monotonic())
        await asyncio.sleep(max(0.0, min(tick, until) - time.monotonic()))
