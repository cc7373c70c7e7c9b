"""``truco-ssh serve --nats URL``: one process of a cluster, until Ctrl-C (or ``stop``)."""
from __future__ import annotations

import asyncio
import logging
from typing import Callable

from server import asyncssh_private
from server.ops import metrics
from server.cluster import nats_private
from server.cluster.options import BusOptions
from server.cluster.node import Node
from server.config import ServerConfig
from server.session.context import ServerContext
from server.ssh.hostkey import fingerprint, load_or_create_host_key
from server.lan.netinfo import connect_lines, lan_addresses
from server.ssh.server import start_ssh_server
from server.say import terminal_tr
from server.ops.logs import set_process_name
from server.ops.loop_lag import LagWatch
from server.ops.signals import catch_stop_signals, release_stop_signals
from server.table.search_pool import POOL as SEARCH_POOL
from tui import textual_patches

log = logging.getLogger("truco-ssh")
SHUTDOWN_GRACE = 3.0  # as server.cli.main: the farewell, then the sessions are cut


async def serve_cluster(config: ServerConfig, servers: list[str], options: BusOptions,
                        say: Callable[[str], None], ready: asyncio.Event | None = None,
                        stop: asyncio.Event | None = None, reuse_port: bool = False) -> None:
    textual_patches.install()
    await asyncio.to_thread(asyncssh_private.check)  # refuses an asyncssh it was not written for
    await asyncio.to_thread(nats_private.check)  # and a nats-py
    host_key = await asyncio.to_thread(load_or_create_host_key, config.host_key)
    stop = stop or asyncio.Event()
    tr = terminal_tr()
    owns_signals = catch_stop_signals(stop)
    node = await Node.join(config, servers, options, stop)
    set_process_name(node.bus.owner)  # the log and the metrics call it as the cluster does
    if not reuse_port:  # the operator's NATS, not the one `--workers` starts (it syncs every write)
        log.warning("cluster: truco-ssh cannot see whether these NATS servers write each event to "
                    "the disk before acknowledging it; unless every one runs with `jetstream { "
                    "sync_interval: always }`, a power cut can lose moves players saw "
                    "(docs/CLUSTER.md, \"What survives what\")")
    lag = LagWatch().start()
    try:
        await node.start()
        ctx = ServerContext(config, node.front, moderation=node.moderation)
        watching = metrics.start(  # the tables: the lobby host's (it changes on a failover)
            config.metrics, lambda: ctx.sessions,
            lambda: node.hosting.hub.tables.values() if node.hosting is not None else (), say, tr,
            lambda: node.bus.nc.is_connected)
        acceptor = await start_ssh_server(ctx, host_key, reuse_port=reuse_port)
        role = (tr("cli.cluster.lobby_host") if node.hosting is not None
                else tr("cli.cluster.front_end", host=node.front.host))
        say(tr("cli.listening", address=f"{config.host}:{acceptor.get_port()}") + " "
            + tr("cli.cluster.process", owner=node.bus.owner, role=role))
        if not reuse_port:  # a worker of `--workers`: the supervisor says how to connect, once
            say(tr("cli.fingerprint", fingerprint=fingerprint(host_key)))
            for line in connect_lines(lan_addresses(config.host), acceptor.get_port(), tr):
                say(line)
            say(tr("cli.press_ctrl_c"))
        if ready is not None:
            ready.set()
        try:
            await stop.wait()
        finally:
            say(tr("cli.shutting_down"))
            acceptor.close()
            await node.shutdown(SHUTDOWN_GRACE)
            await ctx.end_sessions(SHUTDOWN_GRACE)
            await acceptor.wait_closed()
            await metrics.stop(watching)
    finally:
        await lag.stop()
        SEARCH_POOL.shutdown()
        if not node.bus.nc.is_closed:
            await node.bus.nc.close()
        release_stop_signals(owns_signals)
    say(tr("cli.stopped"))
