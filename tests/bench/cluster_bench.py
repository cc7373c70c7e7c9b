"""Cluster failover benchmark: kill -9 the lobby host while its tables play, how soon do they
play again from another process, and is any acknowledged event lost?

A nats-server (the pinned wheel's) and three ``truco-ssh serve --nats`` processes on
127.0.0.1; the host runs bot-only tables (``--demo-bot-tables``, bots moving every 50 ms).
Each round: read every table's stream, SIGKILL the host, and measure

- ``seconds_to_play``: from the kill until every table's stream has a new event written by
  another process (the lease TTL, ``--lease-ttl``, is most of it);
- ``events_lost``: events the dead host had acknowledged (in the stream when it died) that the
  new host did not restore (the new host logs the sequence number it restored each table at);
- ``digest_mismatches``: restored tables whose state differs from our own replay of the stream;
- ``seconds_to_reattach``: from the kill until every player in the lobby on the other processes
  (``--players``, programs on the subsystem, spread over the processes that are not the host)
  has been attached to the new host (its lobby's snapshot arrived after the notice);
- ``sessions_dropped``: those players whose session ended anyway (must be 0).

A new process replaces the killed one before the next round, and new players replace those it
took with it. Run:
``python tests/bench/cluster_bench.py [--rounds 3] [--tables 2] [--lease-ttl 1.5] [--players 6] [--keyed]``.
"""
from __future__ import annotations

import argparse
import asyncio
import json
import signal
import statistics
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1]))  # run as a script: the checkout's packages

from server.cluster.bus import Bus  # noqa: E402
from server.cluster.jsstore import JetStreamStore  # noqa: E402
from server.cluster.names import NameMirror  # noqa: E402
from server.cluster.natsd import NatsServer  # noqa: E402
from tests.cluster import procs  # noqa: E402
from tests.e2e import programs  # noqa: E402


async def _writers(bus: Bus, table_id: str, after: int) -> set[str]:
    from nats.js.errors import NotFoundError

    from protocol.bus import LoggedEvents, decode_bus
    from server.cluster.bus import EVENTS_STREAM
    from server.cluster.eventlog import subject

    try:
        msg = await bus.js.get_last_msg(EVENTS_STREAM, subject(table_id))
    except NotFoundError:
        return set()
    event = decode_bus(msg.data)
    if not isinstance(event, LoggedEvents) or not event.events:
        return set()
    return {event.owner} if event.events[-1].seq > after else set()


async def _reattached(client: "programs.Client", killed: float) -> float | None:
    """Seconds from the kill until ``client`` is attached to the new host (None: its session
    ended)."""
    import protocol as p
    from protocol.client import Closed

    try:
        notice = await client.wait_for(p.Notice, 30)
        if notice.code != "reattaching":
            return None
        await client.wait_for(p.LobbySnapshot, 30)
    except (Closed, TimeoutError):
        return None
    return time.monotonic() - killed


async def _fill(players: list[tuple[procs.Proc, "programs.Client"]], cluster: list[procs.Proc],
                wanted: int, count: list[int], keyed: bool = False) -> None:
    """Players in the lobby on the processes that are not the host, up to ``wanted``
    (``keyed``: each with an SSH key of its own, whose stats and ignore list a new host reads)."""
    import asyncssh

    others = [p for p in cluster if not p.is_host]
    while len(players) < wanted:
        proc = others[len(players) % len(others)]
        count[0] += 1
        keys = [asyncssh.generate_private_key("ssh-ed25519")] if keyed else None
        client, = await programs.connect(proc.port, f"b{count[0]}", client_keys=keys)
        players.append((proc, client))


async def run_async(rounds: int, tables: int, lease_ttl: float, players_wanted: int = 6,
                    keyed: bool = False) -> dict[str, object]:
    procs.LEASE_TTL = lease_ttl
    tmp = Path(tempfile.mkdtemp(prefix="cluster-bench-"))
    nats = NatsServer(tmp / "js")
    await nats.start()
    # (every bench player comes from 127.0.0.1: the per-address limits would refuse most)
    options = ("--demo-bot-tables", str(tables), "--max-connections-per-ip", str(players_wanted + 8),
               "--connections-per-minute-per-ip", str(players_wanted * (rounds + 1) + 20))
    cluster: list[procs.Proc] = []
    bus = await Bus.connect(nats.url, owner="bench-reader")
    names = await NameMirror.open(bus)
    store = JetStreamStore(bus, names)
    await store.open()
    took: list[float] = []
    reattach: list[float] = []
    lost = mismatches = dropped = 0
    players: list[tuple[procs.Proc, programs.Client]] = []
    named = [0]
    try:
        cluster.append(await procs.start(tmp, nats.url, *options))
        cluster += [await procs.start(tmp, nats.url, *options) for _ in range(2)]
        table_ids: list[str] = []
        for _ in range(200):
            table_ids = [r.table_id for r in await store.table_index()]
            if len(table_ids) >= tables:
                break
            await asyncio.sleep(0.05)
        for _ in range(rounds):
            await _fill(players, cluster, players_wanted, named, keyed)
            await asyncio.sleep(1.0)  # the tables play a while
            host = next(p for p in cluster if p.is_host)
            await host.stop(signal.SIGKILL)
            killed = time.monotonic()
            cluster.remove(host)
            waits = asyncio.gather(*(_reattached(c, killed) for proc, c in players if proc is not host))
            acked = await procs.logged_state(nats.url)  # what was in the streams when it died
            waiting = set(table_ids)
            while waiting and time.monotonic() - killed < 60:
                for table_id in list(waiting):
                    writers = await _writers(bus, table_id, acked.get(table_id, (0, 0, ""))[1])
                    if writers - {host.owner}:
                        waiting.discard(table_id)
                await asyncio.sleep(0.02)
            if waiting:
                raise RuntimeError(f"tables {sorted(waiting)} did not play again within 60 s")
            took.append(time.monotonic() - killed)
            attached = await waits
            dropped += sum(1 for t in attached if t is None)
            if attached and None not in attached:
                reattach.append(max(t for t in attached if t is not None))
            gone = [c for proc, c in players if proc is host]
            await programs.close_all(gone)
            players = [(proc, c) for proc, c in players if proc is not host]
            new_host = next(p for p in cluster if p.is_host)
            restored = {m.group(1): (int(m.group(2)), int(m.group(3)), m.group(4))
                        for m in new_host.saw(procs.RESTORED)}
            for table_id, (match, seq, digest) in acked.items():
                got = restored.get(table_id)
                lost += max(0, seq - (got[1] if got else 0))
                mismatches += got is None or got != (match, seq, digest)
            new_host.lines[:] = [line for line in new_host.lines if procs.RESTORED.search(line) is None]
            cluster.append(await procs.start(tmp, nats.url, *options))
    finally:
        await programs.close_all([c for _, c in players])
        await asyncio.gather(*(p.stop() for p in cluster))
        await names.close()
        await bus.close()
        await nats.stop()
    return {
        "rounds": rounds, "tables": tables, "lease_ttl_s": lease_ttl,
        "seconds_to_play_median": round(statistics.median(took), 2),
        "seconds_to_play_max": round(max(took), 2),
        "events_lost": lost, "digest_mismatches": mismatches,
        "players": players_wanted, "players_keyed": keyed,
        "seconds_to_reattach_median": round(statistics.median(reattach), 2) if reattach else None,
        "seconds_to_reattach_max": round(max(reattach), 2) if reattach else None,
        "sessions_dropped": dropped,
    }


def run(rounds: int = 3, tables: int = 2, lease_ttl: float = 1.5, players: int = 6,
        keyed: bool = False) -> dict[str, object]:
    return asyncio.run(run_async(rounds, tables, lease_ttl, players, keyed))


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--tables", type=int, default=2)
    parser.add_argument("--lease-ttl", type=float, default=1.5)
    parser.add_argument("--players", type=int, default=6)
    parser.add_argument("--keyed", action="store_true", help="players with SSH keys (a new host reads their "
                        "stats and ignore lists)")
    args = parser.parse_args()
    print(json.dumps(run(args.rounds, args.tables, args.lease_ttl, args.players, args.keyed), indent=2))
