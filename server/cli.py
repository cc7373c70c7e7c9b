"""``truco-ssh serve``: start the server, print how to connect, stop cleanly on Ctrl-C."""
from __future__ import annotations

import argparse
import asyncio
import dataclasses
import logging
import signal
import threading
import sys
from pathlib import Path

from server.cluster.bus import BusOptions
from server.config import ServerConfig
from server.hostkey import fingerprint, load_or_create_host_key
from server.lobby import Hub
from server.netinfo import connect_lines, lan_addresses
from server.context import ServerContext
from server.ssh import start_ssh_server
from server.table import Pace
from server.store import Store, StoreError
from server.variants import validate_options, variant_infos
from tui import textual_patches

log = logging.getLogger("truco-ssh")
# Seconds for sessions to show the farewell (tui/screens/farewell.py: 1.5 s on screen, then
# the line on the terminal, sent before the channel closes) and close; then they are cut.
SHUTDOWN_GRACE = 3.0


def _say(text: str) -> None:
    # Textual swaps sys.stdout per app; the real terminal of the operator is __stdout__.
    out = sys.__stdout__
    if out is not None:
        out.write(text + "\n")
        out.flush()


def build_parser() -> argparse.ArgumentParser:
    defaults = ServerConfig()
    parser = argparse.ArgumentParser(prog="truco-ssh", description="Truco over SSH")
    sub = parser.add_subparsers(dest="command", required=True)
    serve = sub.add_parser("serve", help="run the server")
    serve.add_argument("--host", default=defaults.host, help="address to listen on (default %(default)s)")
    serve.add_argument("--port", type=int, default=defaults.port, help="TCP port (default %(default)s)")
    serve.add_argument("--data-dir", type=Path, default=defaults.data_dir,
                       help="where the database lives (default %(default)s)")
    serve.add_argument("--host-key", type=Path, default=defaults.host_key,
                       help="ed25519 host key, created on first start (default %(default)s)")
    serve.add_argument("--max-connections-per-ip", type=int, default=defaults.max_connections_per_ip)
    serve.add_argument("--max-sessions", type=int, default=defaults.max_sessions)
    serve.add_argument("--connections-per-minute-per-ip", type=float,
                       default=defaults.connections_per_minute_per_ip)
    serve.add_argument("--chat-per-second", type=float, default=defaults.chat_per_second)
    serve.add_argument("--chat-max-len", type=int, default=defaults.chat_max_len)
    serve.add_argument("--bot-delay", type=float, default=defaults.bot_delay,
                       help="seconds a bot takes to move (default %(default)s)")
    serve.add_argument("--hand-pause", type=float, default=defaults.hand_pause,
                       help="seconds the end of a hand stays on screen (default %(default)s)")
    serve.add_argument("--lite", action="store_true",
                       help="sessions start in lite mode: 16 colours, ASCII cards, no mouse (L toggles)")
    serve.add_argument("--no-compression", dest="compression", action="store_false",
                       help="never compress (by default clients that can inflate zlib get it)")
    serve.add_argument("--seat-hold", type=float, default=defaults.seat_hold,
                       help="seconds a dropped player's seat is held for them (default %(default)s)")
    serve.add_argument("--away-grace", type=float, default=defaults.away_grace,
                       help="seconds the table waits on an away player before a bot makes that "
                            "decision (default %(default)s)")
    # Operators and tests: bot-only tables that play on for ever (e.g. the crash test).
    serve.add_argument("--demo-bot-tables", type=int, default=0, help=argparse.SUPPRESS)
    # Tests: each restored table's state digest in the log, to compare with their own replay.
    serve.add_argument("--log-digests", action="store_true", help=argparse.SUPPRESS)
    cluster = serve.add_argument_group("cluster (README: Cluster)")
    cluster.add_argument("--nats", metavar="URL[,URL...]",
                         help="join a cluster through these NATS servers (2.10+, JetStream on)")
    cluster.add_argument("--workers", default="1", metavar="N",
                         help="processes sharing the port, with a local nats-server; a number or "
                              "auto (one per core; default %(default)s: one process, no bus)")
    # Set by --workers for its workers: several processes listen on the one port.
    cluster.add_argument("--reuse-port", action="store_true", help=argparse.SUPPRESS)
    cluster.add_argument("--lease-ttl", type=float, default=BusOptions().lease_ttl,
                         help="seconds before a dead lobby host is replaced (default %(default)s)")
    cluster.add_argument("--replicas", type=int, default=BusOptions().replicas,
                         help="JetStream copies of the cluster's data (3 on a NATS cluster of 3; "
                              "default %(default)s)")
    serve.add_argument("--log-level", default="WARNING", choices=["DEBUG", "INFO", "WARNING", "ERROR"])
    sub.add_parser("options", help="print every variant's table options (Markdown)")
    return parser


def config_from_args(args: argparse.Namespace) -> ServerConfig:
    return dataclasses.replace(
        ServerConfig(),
        host=args.host, port=args.port, data_dir=args.data_dir, host_key=args.host_key,
        max_connections_per_ip=args.max_connections_per_ip, max_sessions=args.max_sessions,
        chat_per_second=args.chat_per_second, chat_max_len=min(args.chat_max_len, 200),
        bot_delay=max(0.0, args.bot_delay), hand_pause=max(0.0, args.hand_pause),
        lite=args.lite, compression=args.compression,
        connections_per_minute_per_ip=max(1.0, args.connections_per_minute_per_ip),
        seat_hold=max(0.0, args.seat_hold), away_grace=max(0.0, args.away_grace),
        demo_bot_tables=max(0, min(50, args.demo_bot_tables)), log_digests=args.log_digests,
    )


async def serve(config: ServerConfig, ready: asyncio.Event | None = None,
                stop: asyncio.Event | None = None) -> None:
    """Run until ``stop`` is set (or SIGINT/SIGTERM), then shut down cleanly."""
    textual_patches.install()  # before any session's App: refuses another Textual version
    host_key = await asyncio.to_thread(load_or_create_host_key, config.host_key)
    store = Store(config.data_dir / "truco.sqlite3")
    # Start-up order: the server listens as soon as it knows its open tables; the integrity
    # check (it reads the whole file) and the tables' games run meanwhile (server/lobby/restore.py).
    await store.open(check=False)
    loop = asyncio.get_running_loop()
    stop = stop or asyncio.Event()
    checked: asyncio.Future[None] = loop.create_future()
    hub = Hub(config, variant_infos(), validate_options, store,
              pace=Pace(bot_delay=config.bot_delay, hand_pause=config.hand_pause,
                        away_grace=config.away_grace))
    await hub.load(checked, restore=False)
    hub_task = loop.create_task(hub.run(), name="hub")
    ctx = ServerContext(config, hub)
    acceptor = await start_ssh_server(ctx, host_key)
    port = acceptor.get_port()
    # Listening: now the check and the restore, which share the two cores with the sessions.
    check = loop.create_task(store.check(), name="check")
    check.add_done_callback(lambda task: _settle(checked, task, stop))
    hub.restore_tables()
    # Signals reach only the main thread; tests run serve() elsewhere and stop it by event.
    owns_signals = threading.current_thread() is threading.main_thread()
    if owns_signals:
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, stop.set)
    _say(f"truco-ssh listening on {config.host}:{port}")
    _say(f"Host key fingerprint: {fingerprint(host_key)}")
    for line in connect_lines(lan_addresses(config.host), port):
        _say(line)
    _say("Press Ctrl-C to stop.")
    if ready is not None:
        ready.set()
    try:
        await stop.wait()
    finally:
        _say("Shutting down: telling players…")
        acceptor.close()
        hub.request_shutdown("shutdown")
        await asyncio.wait_for(hub_task, timeout=SHUTDOWN_GRACE)
        await hub.stop_tables()  # their last events reach the log; they resume at the next start
        deadline = loop.time() + SHUTDOWN_GRACE
        while ctx.sessions and loop.time() < deadline:
            await asyncio.sleep(0.05)
        for session in list(ctx.sessions):
            session.close()
        await acceptor.wait_closed()
        await hub.drain_writes()
        check.cancel()
        await asyncio.gather(check, return_exceptions=True)
        await store.close()
        if owns_signals:
            for sig in (signal.SIGINT, signal.SIGTERM):
                loop.remove_signal_handler(sig)
        _say("Stopped.")
    if checked.done() and not checked.cancelled() and checked.exception() is not None:
        raise checked.exception()  # type: ignore[misc]  # main() reports it (exit status 2)


def _settle(checked: "asyncio.Future[None]", check: "asyncio.Task[None]", stop: asyncio.Event) -> None:
    """The integrity check is done: the hub may restore the tables, or the server stops."""
    if checked.done():
        return
    if check.cancelled():
        checked.cancel()
    elif check.exception() is not None:
        checked.set_exception(check.exception())  # type: ignore[arg-type]
        stop.set()
    else:
        checked.set_result(None)


def bus_options(args: argparse.Namespace) -> BusOptions:
    ttl = min(max(0.5, args.lease_ttl), 600.0)
    return BusOptions(lease_ttl=ttl, renew_every=ttl / 3, replicas=min(max(1, args.replicas), 5))


async def _serve_cluster(config: ServerConfig, args: argparse.Namespace) -> None:
    from server.cluster.node import parse_servers
    from server.cluster.serve import serve_cluster

    await serve_cluster(config, parse_servers(args.nats), bus_options(args), _say,
                        reuse_port=args.reuse_port)


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.command == "options":
        from server.options_doc import options_markdown

        _say(options_markdown().rstrip())
        return 0
    logging.basicConfig(level=args.log_level, stream=sys.__stderr__,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    config = config_from_args(args)
    try:
        from server.cluster.workers import worker_count

        workers = worker_count(args.workers)
    except ValueError as exc:
        log.error("%s", exc)
        return 2
    if workers > 1 and args.nats:
        log.error("--workers starts its own bus: it does not go with --nats")
        return 2
    try:
        if workers > 1:
            from server.cluster.workers import run_workers

            asyncio.run(run_workers(config, workers, list(sys.argv[1:] if argv is None else argv), _say))
        elif args.nats:
            asyncio.run(_serve_cluster(config, args))
        else:
            asyncio.run(serve(config))
    except StoreError as exc:
        log.error("%s", exc)
        return 2
    except OSError as exc:
        log.error("cannot start: %s", exc)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
