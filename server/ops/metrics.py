"""``--metrics ADDR:PORT``: what an operator watches, for Prometheus at /metrics.

Counters and histograms are bumped where things happen (the table actors, the SSH front end);
the gauges (sessions, tables by variant and status) are sampled by ``watch`` on the event
loop every ``SAMPLE_EVERY`` seconds, so the HTTP thread of prometheus_client only reads
numbers and never walks the hub's tables. The loop's lag is sampled by server/ops/loop_lag.py."""
from __future__ import annotations

import argparse
import asyncio
import logging
from typing import Any, Callable, Iterable

from prometheus_client import Counter, Gauge, Histogram, Info, start_http_server

from server.ops.logs import process_name
from tui.i18n import Translator

log = logging.getLogger("truco-ssh")
SAMPLE_EVERY = 1.0

ACTIONS = Counter("truco_actions", "Game actions applied (plays and calls, bots included)", ["variant"])
REFUSED = Counter("truco_refused_connections", "SSH connections refused before a session", ["reason"])
INPUT_DROPS = Counter("truco_input_drops", "Client input dropped or throttled", ["why"])
RESTORES = Counter("truco_restores", "Tables restored from the event log at start")
FAILOVERS = Counter("truco_failovers", "Tables another process took over from one that was gone")
SESSIONS = Gauge("truco_sessions", "Open SSH sessions")
PLAYERS = Gauge("truco_players", "Distinct players (names) online")
TABLES = Gauge("truco_tables", "Tables in the lobby", ["variant", "status"])
LOOP_LAG = Histogram("truco_event_loop_lag_seconds", "How late a timer fires on the event loop",
                     buckets=(0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5))
PRESS_TO_UPDATE = Histogram("truco_press_to_update_seconds",
                            "From a player's action reaching its table to the table's update sent",
                            buckets=(0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1.0))
EVENT_WRITE = Histogram("truco_event_log_write_seconds", "Writing a batch of events to the event log",
                        buckets=(0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1.0))
BUS_CONNECTED = Gauge("truco_bus_connected", "1 while the cluster's NATS connection is up")
PROCESS = Info("truco_process", "This process: its name in the log and in a cluster")


def parse_address(text: str) -> tuple[str, int]:
    """``ADDR:PORT`` (``[v6]:PORT`` too) or ValueError."""
    host, sep, port = text.rpartition(":")
    if not sep or not port.isdigit() or not 0 <= int(port) <= 65535:
        raise ValueError(f"ADDR:PORT wanted, not {text!r}")
    return host.strip("[]") or "127.0.0.1", int(port)


def checked_address(text: str) -> str:
    """``--metrics``'s value, refused unless ``ADDR:PORT`` (argparse says why)."""
    try:
        parse_address(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return text


def serve_metrics(address: str) -> tuple[Any, int]:
    """Serve /metrics on ``address`` (a thread of prometheus_client): the server and its port."""
    host, port = parse_address(address)
    server, _thread = start_http_server(port, addr=host)
    PROCESS.info({"name": process_name()})
    bound = server.server_address[1]
    log.info("metrics on http://%s:%d/metrics", host, bound)
    return server, int(bound)


def sample_tables(tables: Iterable[Any]) -> None:
    counts: dict[tuple[str, str], int] = {}
    for table in tables:
        status = "playing" if table.actor is not None else "waiting"
        counts[(table.variant, status)] = counts.get((table.variant, status), 0) + 1
    TABLES.clear()
    for (variant, status), n in counts.items():
        TABLES.labels(variant=variant, status=status).set(n)


async def watch(sessions: Callable[[], Iterable[Any]], tables: Callable[[], Iterable[Any]],
                bus_connected: Callable[[], bool] | None = None) -> None:
    """Sample the gauges until cancelled."""
    while True:
        await asyncio.sleep(SAMPLE_EVERY)
        open_sessions = list(sessions())
        SESSIONS.set(len(open_sessions))
        PLAYERS.set(len({getattr(s, "username", id(s)) for s in open_sessions}))
        sample_tables(tables())
        if bus_connected is not None:
            BUS_CONNECTED.set(1 if bus_connected() else 0)


Watching = tuple[Any, "asyncio.Task[None]"]


def start(address: str, sessions: Callable[[], Iterable[Any]], tables: Callable[[], Iterable[Any]],
          say: Callable[[str], None], tr: Translator,
          bus_connected: Callable[[], bool] | None = None) -> Watching | None:
    """/metrics on ``address`` (none if empty) and the task that samples the gauges."""
    if not address:
        return None
    server, port = serve_metrics(address)
    say(tr("cli.metrics", address=f"{parse_address(address)[0]}:{port}"))
    task = asyncio.get_running_loop().create_task(watch(sessions, tables, bus_connected), name="metrics")
    return server, task


async def stop(watching: Watching | None) -> None:
    if watching is None:
        return
    server, task = watching
    task.cancel()
    await asyncio.gather(task, return_exceptions=True)
    await asyncio.to_thread(server.shutdown)  # waits for its thread to leave serve_forever
    server.server_close()


def worker_address(address: str, number: int) -> str:
    """``--workers``: worker ``number`` serves its own /metrics on the given port + number."""
    host, port = parse_address(address)
    return f"[{host}]:{port + number}" if ":" in host else f"{host}:{port + number}"
