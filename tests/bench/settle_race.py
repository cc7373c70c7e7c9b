"""How often a message published just after another connection subscribed is lost.

`python tests/bench/settle_race.py [--rounds 300] [--hogs 3] [--plain]`: a local nats-server;
each round, connection A subscribes to a new subject and waits (``bus.settle``, or with
``--plain`` nats-py's own ``flush()``), then connection B publishes five messages there and
flushes; a round where A gets fewer than five within 5 s counts as lost. ``--hogs`` busy
processes load the machine meanwhile, as a full test run does (the loss shows only then).
Not part of `make bench`: it measures a race, not a speed.
"""
from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import nats  # noqa: E402

from server.cluster.bus import settle  # noqa: E402
from server.cluster.natsd import NatsServer  # noqa: E402


def _hog() -> None:
    while True:
        pass


async def lost_rounds(rounds: int, plain: bool) -> int:
    server = NatsServer(Path(tempfile.mkdtemp()) / "jetstream")
    await server.start()
    lost = 0
    try:
        for i in range(rounds):
            a = await nats.connect(server.url)
            b = await nats.connect(server.url)
            got: list[bytes] = []

            async def keep(msg: object) -> None:
                got.append(msg.data)  # type: ignore[attr-defined]

            await a.subscribe(f"race.{i}", cb=keep)
            await (a.flush() if plain else settle(a))
            await b.publish(f"race.{i}", b"first")
            for k in range(4):
                await b.publish(f"race.{i}", b"more %d" % k, headers={"Truco-Conn": "7"})
            await b.flush()
            deadline = time.monotonic() + 5
            while len(got) < 5 and time.monotonic() < deadline:
                await asyncio.sleep(0.01)
            lost += len(got) < 5
            await a.close()
            await b.close()
    finally:
        await server.stop()
    return lost


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=300)
    parser.add_argument("--hogs", type=int, default=3, help="busy processes loading the machine")
    parser.add_argument("--plain", action="store_true", help="nats-py's flush() instead of bus.settle")
    args = parser.parse_args()
    hogs = [multiprocessing.Process(target=_hog, daemon=True) for _ in range(args.hogs)]
    for hog in hogs:
        hog.start()
    try:
        lost = asyncio.run(lost_rounds(args.rounds, args.plain))
    finally:
        for hog in hogs:
            hog.terminate()
    how = "flush()" if args.plain else "settle()"
    print(f"{how}: {lost} of {args.rounds} rounds lost a message ({args.hogs} busy processes)")


if __name__ == "__main__":
    main()
