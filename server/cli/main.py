"""``truco-ssh serve``: start the server, print how to connect, stop cleanly on Ctrl-C;
``truco-ssh host``: the same server with a private table whose host plays in this terminal."""
from __future__ import annotations

import argparse
import asyncio
import dataclasses
import logging
import os
import socket
import sys
from pathlib import Path
from typing import Any, Callable, Coroutine

from server.cluster.options import BusOptions
from server.config import NEW_PLAYER_MINUTES, ServerConfig
from server import asyncssh_private
from server.session import input_gate
from server.ssh.hostkey import fingerprint, load_or_create_host_key
from server.ops.loop_lag import LagWatch
from server.table.search_pool import POOL as SEARCH_POOL
from server.lan.host import HostError, add_table_arguments, plan_from_args, play_host
from server.lobby import Hub
from server.moderation.operators import OperatorKeyError, fingerprint_of_key
from server.moderation.start import load_moderation
from server.lan.mdns import Advertiser, find_servers, found_lines, loopback_only
from server.lan.netinfo import connect_lines, lan_addresses
from server.ops.process_life import lock_data_dir
from server.session.context import ServerContext
from server.ssh.server import start_ssh_server
from server.table import Pace
from server.store import Store, StoreError
from server.variants import validate_options, variant_infos
from server.say import ENGLISH, Said, speaking, terminal_tr
from tui.i18n import Translator
from server.ops.signals import catch_stop_signals, release_stop_signals
from server.ops import action_trace, gc_tuning, logs, metrics
from server.cli.paths import default_paths, version
from server.cli.settings_file import SettingsError, SettingsParser, example, load_settings
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


def _server_arguments(serve: argparse.ArgumentParser, defaults: ServerConfig, tr: Translator) -> None:
    """What ``serve`` and ``host`` share: where to listen and keep data."""
    serve.add_argument("--host", default=defaults.host, help=tr("cli.help.server.host"))
    serve.add_argument("--port", type=int, default=defaults.port, help=tr("cli.help.server.port"))
    serve.add_argument("--data-dir", type=Path, default=defaults.data_dir,
                       help=tr("cli.help.server.data_dir"))
    serve.add_argument("--host-key", type=Path, default=defaults.host_key,
                       help=tr("cli.help.server.host_key"))
    serve.add_argument("--no-mdns", dest="mdns", action="store_false",
                       help=tr("cli.help.server.no_mdns"))
    serve.add_argument("--bot-delay", type=float, default=defaults.bot_delay,
                       help=tr("cli.help.server.bot_delay"))
    serve.add_argument("--hand-pause", type=float, default=defaults.hand_pause,
                       help=tr("cli.help.server.hand_pause"))


def build_parser(tr: Translator = ENGLISH) -> SettingsParser:
    """The command line, its help in ``tr``'s language (argparse's own words: ``speaking``)."""
    data_dir, host_key = default_paths()
    defaults = ServerConfig(data_dir=data_dir, host_key=host_key)
    parser = SettingsParser(prog="truco-ssh", description=tr("cli.help.description"))
    parser.add_argument("--version", action="version", version=f"truco-ssh {version()}",
                        help=tr("cli.help.version"))
    sub = parser.add_subparsers(dest="command", required=True, parser_class=SettingsParser)
    serve = sub.add_parser("serve", help=tr("cli.help.serve"))
    serve.add_argument("--config", type=Path, metavar="PATH", help=tr("cli.help.serve.config"))
    _server_arguments(serve, defaults, tr)
    serve.add_argument("--max-connections-per-ip", type=int, default=defaults.max_connections_per_ip,
                       help=tr("cli.help.serve.max_connections_per_ip"))
    serve.add_argument("--max-sessions", type=int, default=defaults.max_sessions,
                       help=tr("cli.help.serve.max_sessions"))
    serve.add_argument("--connections-per-minute-per-ip", type=float,
                       default=defaults.connections_per_minute_per_ip,
                       help=tr("cli.help.serve.connections_per_minute_per_ip"))
    serve.add_argument("--chat-per-second", type=float, default=defaults.chat_per_second,
                       help=tr("cli.help.serve.chat_per_second"))
    serve.add_argument("--input-cpu-per-address-per-second", type=float,
                       default=defaults.input_cpu_per_address_per_second, metavar="SECONDS",
                       help=tr("cli.help.serve.input_cpu_per_address_per_second"))
    serve.add_argument("--chat-max-len", type=int, default=defaults.chat_max_len,
                       help=tr("cli.help.serve.chat_max_len"))
    serve.add_argument("--lite", action="store_true",
                       help=tr("cli.help.serve.lite"))
    serve.add_argument("--no-compression", dest="compression", action="store_false",
                       help=tr("cli.help.serve.no_compression"))
    serve.add_argument("--seat-hold", type=float, default=defaults.seat_hold,
                       help=tr("cli.help.serve.seat_hold"))
    serve.add_argument("--away-grace", type=float, default=defaults.away_grace,
                       help=tr("cli.help.serve.away_grace"))
    serve.add_argument("--quick-fill-wait", type=float, default=defaults.quick_fill_wait,
                       help=tr("cli.help.serve.quick_fill_wait"))
    serve.add_argument("--new-player-minutes", type=float, default=NEW_PLAYER_MINUTES,
                       help=tr("cli.help.serve.new_player_minutes"))
    serve.add_argument("--operator-key", dest="operator_keys", action="append", default=[], metavar="KEY",
                       help=tr("cli.help.serve.operator_key"))
    # Operators and tests: bot-only tables that play on for ever (e.g. the crash test).
    serve.add_argument("--demo-bot-tables", type=int, default=0, help=argparse.SUPPRESS)
    # Tests: each restored table's state digest in the log, to compare with their own replay.
    serve.add_argument("--log-digests", action="store_true", help=argparse.SUPPRESS)
    cluster = serve.add_argument_group(tr("cli.help.cluster"))
    cluster.add_argument("--nats", metavar="URL[,URL...]",
                         help=tr("cli.help.cluster.nats"))
    cluster.add_argument("--workers", default="1", metavar="N",
                         help=tr("cli.help.cluster.workers"))
    cluster.add_argument("--bus-port", type=int, default=None, metavar="PORT",
                         help=tr("cli.help.cluster.bus_port"))
    # Set by --workers for its workers: several processes listen on the one port.
    cluster.add_argument("--reuse-port", action="store_true", help=argparse.SUPPRESS)
    cluster.add_argument("--lease-ttl", type=float, default=None,
                         help=tr("cli.help.cluster.lease_ttl"))
    cluster.add_argument("--replicas", type=int, default=None,
                         help=tr("cli.help.cluster.replicas"))
    serve.add_argument("--log-level", default="WARNING", choices=["DEBUG", "INFO", "WARNING", "ERROR"],
                       help=tr("cli.help.log_level"))
    serve.add_argument("--log-format", default="text", choices=["text", "json"],
                       help=tr("cli.help.log_format"))
    serve.add_argument("--metrics", metavar="ADDR:PORT", type=metrics.checked_address,
                       help=tr("cli.help.serve.metrics"))
    from server.cli.admin import add_admin_parser  # `truco-ssh admin`: an operator's commands
    from server.cli.remote_bot import add_bot_parser  # `truco-ssh bot`: a program at a table
    from server.cli.verify import add_verify_parser  # `truco-ssh verify`: anyone's check of the deals

    add_bot_parser(sub, defaults.port, tr)
    add_admin_parser(sub, defaults.port, tr)
    add_verify_parser(sub, defaults.port, tr)
    sub.add_parser("options", help=tr("cli.help.options"))
    find = sub.add_parser("find", help=tr("cli.help.find"))
    find.add_argument("--seconds", type=float, default=3.0, help=tr("cli.help.find.seconds"))
    find.add_argument("--interface", action="append", default=None, metavar="ADDRESS",
                      help=tr("cli.help.find.interface"))
    host = sub.add_parser("host", help=tr("cli.help.host"))
    _server_arguments(host, defaults, tr)
    add_table_arguments(host, tr)
    host.add_argument("--log-file", type=Path, default=None,
                      help=tr("cli.help.host.log_file"))
    # Errors name the commands, not the English word "command" (the dest): the help is the same,
    # argparse shows {serve,...} there anyway.
    config = sub.add_parser("config", help=tr("cli.help.config"))
    config.add_subparsers(dest="config_command", required=True).add_parser(
        "example", help=tr("cli.help.config.example"))
    sub.metavar = "{" + ",".join(sub.choices) + "}"
    parser.commands = sub.choices
    return parser


def config_from_args(args: argparse.Namespace) -> ServerConfig:
    d = ServerConfig()
    more = {name: getattr(args, name, getattr(d, name)) for name in (
        "max_connections_per_ip", "max_sessions", "chat_per_second", "chat_max_len", "lite",
        "compression", "connections_per_minute_per_ip", "seat_hold", "away_grace",
        "quick_fill_wait", "demo_bot_tables", "log_digests", "metrics", "bus_port", "operator_keys",
        "new_player_minutes", "input_cpu_per_address_per_second")}
    return dataclasses.replace(
        d,
        host=args.host, port=args.port, data_dir=args.data_dir, host_key=args.host_key,
        max_connections_per_ip=more["max_connections_per_ip"], max_sessions=more["max_sessions"],
        chat_per_second=more["chat_per_second"], chat_max_len=min(more["chat_max_len"], 200),
        bot_delay=max(0.0, args.bot_delay), hand_pause=max(0.0, args.hand_pause), mdns=args.mdns,
        lite=more["lite"], compression=more["compression"],
        connections_per_minute_per_ip=max(1.0, more["connections_per_minute_per_ip"]),
        seat_hold=max(0.0, more["seat_hold"]), away_grace=max(0.0, more["away_grace"]),
        quick_fill_wait=max(0.0, more["quick_fill_wait"]), bus_port=more["bus_port"] or 0,
        demo_bot_tables=max(0, min(50, more["demo_bot_tables"])), log_digests=more["log_digests"],
        metrics=more["metrics"] or "", operator_keys=tuple(more["operator_keys"] or ()),
        new_player_minutes=max(0.0, more["new_player_minutes"]),
        input_cpu_per_address_per_second=max(0.01, more["input_cpu_per_address_per_second"]),
    )


# What ``host`` runs once the server listens (the hub, the port, the host key's fingerprint);
# the server stops when it ends.
Hosting = Callable[[Hub, int, str], Coroutine[Any, Any, None]]


async def serve(config: ServerConfig, ready: asyncio.Event | None = None,
                stop: asyncio.Event | None = None, hosting: Hosting | None = None) -> None:
    """Run until ``stop`` is set (or SIGINT/SIGTERM, or ``hosting`` ends), then shut down cleanly.
    One server a data directory: another one there is refused (server/ops/process_life.py)."""
    lock = await lock_data_dir(config.data_dir)
    lag = LagWatch().start()
    try:
        await _serve(config, ready, stop, hosting)
    finally:
        await lag.stop()
        SEARCH_POOL.shutdown()
        os.close(lock)


async def _serve(config: ServerConfig, ready: asyncio.Event | None,
                 stop: asyncio.Event | None, hosting: Hosting | None) -> None:
    textual_patches.install()  # before any session's App: refuses another Textual version
    await asyncio.to_thread(asyncssh_private.check)  # refuses an asyncssh it was not written for
    input_gate.install()  # meters what each session's input costs (server/session/input_gate.py)
    host_key = await asyncio.to_thread(load_or_create_host_key, config.host_key)
    store = Store(config.data_dir / "truco.sqlite3")
    # Start-up order: the server listens as soon as it knows its open tables; the integrity
    # check (it reads the whole file) and the tables' games run meanwhile (server/lobby/restore.py).
    await store.open(check=False)
    loop = asyncio.get_running_loop()
    stop = stop or asyncio.Event()
    checked: asyncio.Future[None] = loop.create_future()
    moderation = await load_moderation(config, await store.restrictions(), store)
    hub = Hub(config, variant_infos(), validate_options, store,
              pace=Pace(bot_delay=config.bot_delay, hand_pause=config.hand_pause,
                        away_grace=config.away_grace), moderation=moderation)
    await hub.load(checked, restore=False)
    hub_task = loop.create_task(hub.run(), name="hub")
    ctx = ServerContext(config, hub, moderation=moderation)
    acceptor = await start_ssh_server(ctx, host_key)
    port = acceptor.get_port()
    # Listening: now the check and the restore, which share the two cores with the sessions.
    check = loop.create_task(store.check(), name="check")
    check.add_done_callback(lambda task: _settle(checked, task, stop))
    hub.restore_tables()
    owns_signals = catch_stop_signals(stop)
    tr = terminal_tr()
    watching = metrics.start(config.metrics, lambda: ctx.sessions, lambda: hub.tables.values(), _say, tr)
    _say(tr("cli.listening", address=f"{config.host}:{port}"))
    _say(tr("cli.fingerprint", fingerprint=fingerprint(host_key)))
    host_task: asyncio.Task[None] | None = None
    advertiser = None
    if config.mdns and not loopback_only(config.host):
        advertiser = Advertiser(config.mdns_name or f"truco-ssh on {socket.gethostname()}", port,
                                fingerprint(host_key), lan_addresses(config.host),
                                interfaces=None if config.host in ("0.0.0.0", "::", "") else [config.host])
        advertiser.start()
        _say(tr("cli.announced", name=repr(advertiser.name)))
    if hosting is None:
        for line in connect_lines(lan_addresses(config.host), port, tr):
            _say(line)
        _say(tr("cli.press_ctrl_c"))
    else:
        host_task = loop.create_task(hosting(hub, port, fingerprint(host_key)), name="host")
        host_task.add_done_callback(lambda _task: stop.set())
    if ready is not None:
        ready.set()
    try:
        await stop.wait()
    finally:
        if host_task is not None:
            host_task.cancel()
            await asyncio.gather(host_task, return_exceptions=True)
        _say(tr("cli.shutting_down"))
        acceptor.close()
        if advertiser is not None:
            await advertiser.close()
        hub.request_shutdown("shutdown")
        await asyncio.wait_for(hub_task, timeout=SHUTDOWN_GRACE)
        await hub.stop_tables()  # their last events reach the log; they resume at the next start
        await ctx.end_sessions(SHUTDOWN_GRACE)
        await acceptor.wait_closed()
        await hub.drain_writes()
        check.cancel()
        await asyncio.gather(check, return_exceptions=True)
        await store.close()
        await metrics.stop(watching)
        release_stop_signals(owns_signals)
        _say(tr("cli.stopped"))
    if checked.done() and not checked.cancelled() and checked.exception() is not None:
        raise checked.exception()  # type: ignore[misc]  # main() reports it (exit status 2)
    if host_task is not None and not host_task.cancelled() and host_task.exception() is not None:
        raise host_task.exception()  # type: ignore[misc]  # main() reports it


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
    default = BusOptions()
    ttl = min(max(0.5, args.lease_ttl), 600.0) if args.lease_ttl is not None else default.lease_ttl
    replicas = min(max(1, args.replicas), 5) if args.replicas is not None else default.replicas
    asked = frozenset(name for name in ("lease_ttl", "replicas") if getattr(args, name) is not None)
    return BusOptions(lease_ttl=ttl, renew_every=ttl / 3, replicas=replicas, asked=asked)


async def _serve_cluster(config: ServerConfig, args: argparse.Namespace) -> None:
    from server.cluster.node import parse_servers
    from server.cluster.serve import serve_cluster

    await serve_cluster(config, parse_servers(args.nats), bus_options(args), _say,
                        reuse_port=args.reuse_port)


def _complain(text: str) -> None:
    """A line on the process's own standard error (not a test's or a TUI's replacement)."""
    (sys.__stderr__ or sys.stderr).write(text + "\n")


def main(argv: list[str] | None = None) -> int:
    from server.cli.remote_bot import bot_main

    # The terminal's language, chosen before the parser is built: --help, usage and errors.
    tr = terminal_tr()
    with speaking(tr):
        parser = build_parser(tr)
        args = parser.parse_args(argv)
        if args.command == "serve" and args.config is not None:
            try:  # the file's settings become the defaults: flags given still win
                parser.commands["serve"].set_defaults(**load_settings(args.config, parser.commands["serve"]))
            except SettingsError as exc:
                _complain(f"truco-ssh: {exc}")
                return 2
            args = parser.parse_args(argv)
    if args.command == "bot":
        return bot_main(args)
    if args.command == "admin":
        from server.cli.admin import admin_main

        return admin_main(args)
    if args.command == "verify":
        from server.cli.verify import verify_main

        return verify_main(args, terminal_tr())
    if args.command == "config":
        _say(example(parser.commands["serve"]).rstrip())
        return 0
    if args.command == "options":
        from server.cli.options_doc import options_markdown

        _say(options_markdown().rstrip())
        return 0
    if args.command == "find":
        found = asyncio.run(find_servers(max(0.5, min(30.0, args.seconds)), args.interface))
        for line in found_lines(found, terminal_tr()):
            _say(line)
        return 0
    config = config_from_args(args)
    hosting: Hosting | None = None
    if args.command == "host":
        if not (sys.stdin.isatty() and sys.stdout.isatty()):
            _complain(terminal_tr()("cli.host.needs_terminal"))
            return 2
        try:
            plan = plan_from_args(args)
        except ValueError as exc:
            _say(terminal_tr()("cli.host.error", error=exc.said(terminal_tr()) if isinstance(exc, Said) else exc))
            return 2
        # The host's game owns this terminal: the server logs to a file meanwhile.
        log_file = args.log_file or config.data_dir / "truco-ssh.log"
        log_file.parent.mkdir(parents=True, exist_ok=True)
        config = dataclasses.replace(config, mdns_name=plan.title or f"{plan.name}'s table")
        logs.setup(logging.WARNING, filename=log_file)

        async def play(hub: Hub, port: int, server_fingerprint: str) -> None:
            await play_host(hub, port, config.host, plan, _say, server_fingerprint)
        hosting = play
    else:
        logs.setup(args.log_level, args.log_format)
    workers, nats = 1, None
    if args.command == "serve":
        try:
            from server.cluster.workers import worker_count

            workers = worker_count(args.workers)
        except ValueError as exc:
            log.error("%s", exc)
            return 2
        if workers > 1 and args.nats:
            log.error("--workers starts its own bus: it does not go with --nats")
            return 2
        nats = args.nats
        try:
            for key in config.operator_keys:
                fingerprint_of_key(key)
        except OperatorKeyError as exc:
            log.error("--operator-key: %s", exc)
            return 2
    gc_tuning.tune()  # a server process from here on (server/ops/gc_tuning.py)
    action_trace.start_from_env()  # TRUCO_TRACE_ACTIONS=PATH (server/ops/action_trace.py)
    try:
        if hosting is not None:
            asyncio.run(serve(config, hosting=hosting))
        elif workers > 1:
            from server.cluster.workers import WorkersFailed, run_workers

            try:
                asyncio.run(run_workers(config, workers, list(sys.argv[1:] if argv is None else argv), _say))
            except WorkersFailed as exc:  # a failure status: a supervisor above starts it again
                log.error("stopped: %s", exc)
                return 1
        elif nats:
            asyncio.run(_serve_cluster(config, args))
        else:
            asyncio.run(serve(config))
    except HostError as exc:
        log.error("%s", exc)
        _say(terminal_tr()("cli.host.error", error=exc.said(terminal_tr())))
        return 2
    except StoreError as exc:
        log.error("%s", exc)
        return 2

    except OSError as exc:
        log.error("cannot start: %s", exc)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
