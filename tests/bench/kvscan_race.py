"""How often a scan of a key-value bucket misses values that were there before it began.

`python tests/bench/kvscan_race.py [--rounds 300] [--hogs 3] [--watch]`: a local nats-server;
each round writes three keys, then another connection reads them back, with
``kvscan.current_values`` or (``--watch``) nats-py's watch up to its end-of-values marker;
a round that reads fewer than three counts as short. ``--hogs`` busy processes load the
machine meanwhile (the watch's marker comes early only then). Not part of `make bench`.
"""
from __future__ import annotations

import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import nats  # noqa: E402
from nats.js.api import KeyValueConfig, StorageType  # noqa: E402
from nats.js.kv import KeyValue  # noqa: E402

from server.cluster.kvscan import current_values  # noqa: E402
from server.cluster.natsd import NatsServer  # noqa: E402
from settle_race import race_arguments, run_loaded  # noqa: E402


async def watch_scan(kv: KeyValue, keys: str) -> list[KeyValue.Entry]:
    watcher = await kv.watch(keys, ignore_deletes=True)
    found = []
    try:
        async for entry in watcher:
            if entry is None:
                break
            found.append(entry)
    finally:
        await watcher.stop()
    return found


async def short_scans(rounds: int, watch: bool) -> int:
    server = NatsServer(Path(tempfile.mkdtemp()) / "jetstream")
    await server.start()
    writer = await nats.connect(server.url)
    short = 0
    try:
        kv = await writer.jetstream().create_key_value(
            config=KeyValueConfig(bucket="race", history=1, storage=StorageType.FILE))
        for i in range(rounds):
            for k in range(3):
                await kv.put(f"r{i}.k{k}", b"value")
            reader = await nats.connect(server.url)
            theirs = await reader.jetstream().key_value("race")
            found = await (watch_scan(theirs, f"r{i}.*") if watch else current_values(theirs, f"r{i}.*"))
            short += len(found) != 3
            await reader.close()
    finally:
        await writer.close()
        await server.stop()
    return short


def main() -> None:
    args = race_arguments(__doc__, "--watch", "nats-py's watch instead of current_values")
    short = run_loaded(args.hogs, short_scans(args.rounds, args.watch))
    how = "watch" if args.watch else "current_values"
    print(f"{how}: {short} of {args.rounds} scans short ({args.hogs} busy processes)")


if __name__ == "__main__":
    main()
