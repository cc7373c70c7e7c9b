"""Bus messages per lobby change in cluster mode (not part of ``make bench``).

A nats-server and two ``truco-ssh serve --nats`` processes of the checkout given (default:
this one), ``--sessions`` programs on the ``truco`` subsystem sitting in the lobby, half on
each process; then ``--rounds`` rounds of lobby changes made by one more player on the first
process: he arrives (names himself), creates a table of two (it appears, he moves to it),
leaves it (it goes, he is back) and quits: 6 changes of the lobby's lists a round. A spy
connection subscribed to every subject counts what crosses the bus meanwhile, by kind (it
sees the watches' deliveries too: a ``>`` subscription matches their inboxes), and the
nats-server's own counters (its monitoring port, ``/varz``) count every message in and out
(out: the deliveries, the watches' included); the same counts over an idle stretch as long
(lease renewals and the like) are taken off. Reported per lobby change: the messages the
spy saw (in all and by kind: host -> session frames on the front ends' subjects, session ->
host frames, key-value writes by bucket, the watches' deliveries by bucket, the rest), the
messages into and out of the nats-server (its counters, in a second series of rounds
without the spy), and the list frames each session in the lobby received (what the players
see: the same either way).

Run: ``python tests/bench/lobby_fanout_bench.py [--sessions 50] [--rounds 5] [--checkout DIR]``;
``--checkout /work/main`` measures that checkout's server (the spy and clients are this one's).
"""
from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import tempfile
import time
import urllib.request
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
# Bench files are run as scripts: Python puts only this folder on sys.path then.
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parents[1]))

import protocol as p  # noqa: E402
from protocol.client import Client  # noqa: E402
from server.cluster.bus import CONN_HEADER, FRONT_SUBJECT, HUB_SUBJECT  # noqa: E402
from server.cluster.natsd import NatsServer, free_port  # noqa: E402
from tests.cluster.procs import Proc, start  # noqa: E402
from tests.e2e import programs  # noqa: E402

CHANGES_PER_ROUND = 6
LIST_FRAMES = (p.LobbySnapshot, p.PlayerUpdated, p.PlayerLeft, p.TableUpdated, p.TableRemoved)


class MonitoredNats(NatsServer):
    """The nats-server of the tests with its monitoring port on (``/varz``: its counters)."""

    monitor_port: int = 0

    async def start(self) -> None:
        self.monitor_port = free_port()
        real = asyncio.create_subprocess_exec

        async def with_monitor(*args: str, **kwargs: object) -> asyncio.subprocess.Process:
            return await real(*args, "-m", str(self.monitor_port), **kwargs)  # type: ignore[arg-type]

        asyncio.create_subprocess_exec = with_monitor  # type: ignore[assignment]
        try:
            await super().start()
        finally:
            asyncio.create_subprocess_exec = real

    async def counters(self) -> tuple[int, int]:
        """Messages in (published) and out (delivered) so far."""
        def read() -> dict[str, int]:
            with urllib.request.urlopen(f"http://127.0.0.1:{self.monitor_port}/varz", timeout=5) as answer:
                return json.load(answer)  # type: ignore[no-any-return]
        varz = await asyncio.to_thread(read)
        return varz["in_msgs"], varz["out_msgs"]


class Spy:
    def __init__(self) -> None:
        self.kinds: Counter[str] = Counter()

    async def seen(self, msg: object) -> None:
        subject: str = getattr(msg, "subject")
        reply: str = getattr(msg, "reply") or ""
        headers = getattr(msg, "headers") or {}
        if subject.startswith(FRONT_SUBJECT + "."):
            kind = "host->session frames" if CONN_HEADER in headers else "host->front messages"
        elif subject.startswith(HUB_SUBJECT + "."):
            kind = "session->host frames" if CONN_HEADER in headers else "front->host messages"
        elif reply.startswith("$JS.ACK.KV_"):  # a watch's delivery (it keeps the write's subject)
            kind = f"watch deliveries {reply.split('.')[2][3:]}"
        elif subject.startswith("$KV."):
            kind = f"kv writes {subject.split('.')[1]}"
        else:
            kind = "other"
        self.kinds[kind] += 1


async def _drain(clients: list[Client], frames: Counter[str]) -> None:
    """Read every lobby session's events (they would lag otherwise), counting list frames."""
    async def one(client: Client) -> None:
        try:
            async for event in client:
                if isinstance(event, LIST_FRAMES):
                    frames[event.TYPE] += 1
        except Exception:
            pass
    await asyncio.gather(*(one(c) for c in clients))


async def _round(proc: Proc, n: int) -> None:
    mover, = await programs.connect(proc.port, f"mover{n}")
    try:
        table_id = await programs.table_of(mover, 2)
        await mover.wait_for(p.Seated, 15)
        await asyncio.sleep(0.3)
        await mover.send(p.LeaveTable(table_id=table_id))
        while True:
            if isinstance(await mover.receive(15), p.Seated):
                break
        await asyncio.sleep(0.3)
    finally:
        await mover.close()


async def measure(sessions: int, rounds: int, checkout: Path) -> dict[str, object]:
    os.environ["PYTHONPATH"] = str(checkout)  # the server processes run that checkout's code
    with tempfile.TemporaryDirectory(prefix="lobby-fanout-") as tmp_name:
        tmp = Path(tmp_name)
        nats = MonitoredNats(tmp / "jetstream")
        await nats.start()
        procs: list[Proc] = []
        clients: list[Client] = []
        drain: asyncio.Task[None] | None = None
        try:
            for _ in range(2):  # every client is on 127.0.0.1: no per-address limits
                procs.append(await start(tmp, nats.url, "--max-connections-per-ip", "10000",
                                         "--connections-per-minute-per-ip", "100000"))
            import nats as nats_py
            spy_conn = await nats_py.connect(nats.url)
            spy = Spy()
            for i in range(sessions):
                clients += await programs.connect(procs[i % 2].port, f"lobby{i}")
            frames: Counter[str] = Counter()
            drain = asyncio.get_running_loop().create_task(_drain(clients, frames))
            await asyncio.sleep(2.0)  # arrivals settled
            changes = rounds * CHANGES_PER_ROUND

            async def rounds_then_idle(first: int) -> tuple[float, float]:
                """The rounds, then as long idle: the seconds of each."""
                started = time.monotonic()
                for n in range(first, first + rounds):
                    await _round(procs[0], n)
                await asyncio.sleep(1.0)
                return started, time.monotonic() - started

            # 1. What crosses the bus, by kind
            sub = await spy_conn.subscribe(">", cb=spy.seen)
            await spy_conn.flush()
            frames.clear()
            _, busy = await rounds_then_idle(0)
            busy_kinds, spy.kinds = spy.kinds, Counter()
            busy_frames = sum(frames.values())
            await asyncio.sleep(busy)
            idle_kinds = spy.kinds
            await sub.unsubscribe()
            per_change = {k: round((busy_kinds[k] - idle_kinds[k]) / changes, 1)
                          for k in sorted(set(busy_kinds) | set(idle_kinds))}
            total = (sum(busy_kinds.values()) - sum(idle_kinds.values())) / changes
            # 2. Everything in and out of the nats-server, the spy gone
            await asyncio.sleep(0.5)
            before = await nats.counters()
            _, busy = await rounds_then_idle(rounds)
            mid = await nats.counters()
            await asyncio.sleep(busy)
            end = await nats.counters()
            published = ((mid[0] - before[0]) - (end[0] - mid[0])) / changes
            delivered = ((mid[1] - before[1]) - (end[1] - mid[1])) / changes
            await spy_conn.close()
            return {
                "checkout": str(checkout), "sessions_in_lobby": sessions, "lobby_changes": changes,
                "messages_per_change": round(total, 1), "by_kind_per_change": per_change,
                "nats_in_msgs_per_change": round(published, 1),
                "nats_out_msgs_per_change": round(delivered, 1),
                "list_frames_received_per_session_per_change": round(busy_frames / changes / sessions, 2),
            }
        finally:
            await programs.close_all(clients)
            if drain is not None:
                drain.cancel()
            await asyncio.gather(*(proc.stop() for proc in procs))
            await nats.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=50)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--checkout", type=Path, default=HERE.parents[1])
    args = parser.parse_args()
    print(json.dumps(asyncio.run(measure(args.sessions, args.rounds, args.checkout.resolve())), indent=2))


if __name__ == "__main__":
    main()
