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
from typing import Any, Coroutine

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import nats  # noqa: E402

from server.cluster.bus import settle  # noqa: E402
from server.cluster.natsd import NatsServer  # noqa: E402


def _hog() -> None:
    while True:
        pass


def race_arguments(doc: str, other: str, other_help: str) -> argparse.Namespace:
    """--rounds, --hogs and the flag that runs the other way (``other``)."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=300)
    parser.add_argument("--hogs", type=int, default=3, help="busy processes loading the machine")
    parser.add_argument(other, action="store_true", help=other_help)
    return parser.parse_args()


def run_loaded(hogs: int, rounds: Coroutine[Any, Any, int]) -> int:
    """``rounds`` run while ``hogs`` busy processes load the machine."""
    busy = [multiprocessing.Process(target=_hog, daemon=True) for _ in range(hogs)]
    for hog in busy:
        hog.start()
    try:
        return asyncio.run(rounds)
    finally:
        for hog in busy:
            hog.terminate()


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
    args = race_arguments(__doc__, "--plain", "nats-py's flush() instead of bus.settle")
    lost = run_loaded(args.hogs, lost_rounds(args.rounds, args.plain))
    how = "flush()" if args.plain else "settle()"
    print(f"{how}: {lost} of {args.rounds} rounds lost a message ({args.hogs} busy processes)")


if __name__ == "__main__":
    main()
