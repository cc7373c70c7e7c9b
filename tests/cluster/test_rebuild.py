"""A table rebuilt on another process after its owner died goes on as it was: its turn timer
resumes with what was left of the deadline (not the whole timer again), and its table chat
is shown again to whoever comes back to it. On a real nats-server; the owner "dies" as a
kill -9 would leave it: its tasks stop, its connection goes, nothing is released."""
from __future__ import annotations

import asyncio
import dataclasses
from typing import Any

import protocol as p
from server.cluster.bus import CONN_HEADER, Bus, front_subject, table_subject
from server.cluster.natsd import NatsServer
from server.cluster.owner import TableOwner
from server.cluster.tablewire import to_call
from server.table import messages as tm
from tests.cluster.test_owner import _ask, _in_the_directory, _process, _request, _until

TIMER = 30


async def _die(bus: Bus, owner: TableOwner) -> None:
    """As kill -9: no more renewals, writes or frames from this process; its leases stay
    until they run out."""
    tasks = [*owner._tasks, *(owned.task for owned in owner.tables.values())]
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    await bus.nc.close()


async def test_a_rebuilt_table_keeps_its_turn_deadline_and_its_chat(nats_server: NatsServer) -> None:
    bus, names, owner = await _process(nats_server.url, "proc-a")
    bus2, names2, other = await _process(nats_server.url, "proc-b")
    frames: list[tuple[int, p.Message]] = []

    async def on_front(msg: Any) -> None:
        frames.append((int(msg.headers[CONN_HEADER]), p.decode(msg.data)))

    def updates(conn: int, since: int = 0) -> list[p.TableUpdate]:
        return [m for c, m in frames[since:] if c == conn and isinstance(m, p.TableUpdate)]

    def chat(conn: int, since: int = 0) -> list[str]:
        return [m.line.text for c, m in frames[since:] if c == conn and isinstance(m, p.Chat)]

    ask = dataclasses.replace(_ask(), turn_timer=TIMER)
    alive = True
    try:
        await bus2.nc.subscribe(front_subject("front-1"), cb=on_front)
        await _in_the_directory(owner)
        assert (await _request(bus, "proc-a", ask)).running

        async def dealt() -> bool:
            return bool(updates(11)) and bool(updates(12))

        await _until(dealt)
        first = updates(11)[-1]
        assert first.timer is not None and 0 < first.timer <= TIMER
        said = ["hola", "buenas"]
        for text in said:
            call = to_call("t1", tm.Chat(11, "ana", text, False), "front-1")
            await bus2.nc.publish(table_subject("t1"), p.encode(call))

        async def heard() -> bool:  # sent only once stored: the owner may die from here on
            return chat(12) == said

        await _until(heard)
        await _die(bus, owner)
        alive = False

        # The lobby host asks another process (as after ``owner_lost``: no stopped_at); it
        # takes the table once the dead owner's lease ran out, and rebuilds it from its stream
        mark = len(frames)
        status = await _request(bus2, "proc-b", ask)
        assert status.running and status.owner == "proc-b" and status.seq == first.seq
        rejoin = to_call("t1", tm.Rejoin(11, 0), "front-1")
        await bus2.nc.publish(table_subject("t1"), p.encode(rejoin))

        async def back() -> bool:
            return bool(updates(11, mark))

        await _until(back)
        again = updates(11, mark)[0]
        assert again.seq == first.seq and again.view == first.view  # the same turn, not a new one
        # What was left of the turn (a lease TTL at least went by), not the whole timer again
        assert again.timer is not None and 0 < again.timer < TIMER - 0.5
        assert chat(11, mark) == said  # the table's chat, before its update
        assert other.tables["t1"].actor.seq == first.seq  # nobody played for ana meanwhile
    finally:
        await other.stop()
        if alive:
            await owner.stop()
        await names2.close()
        await names.close()
        await bus2.close()
        if alive:
            await bus.close()
