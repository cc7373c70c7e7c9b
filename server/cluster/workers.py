"""``truco-ssh serve --workers N``: every core of one machine.

Starts a local nats-server (JetStream under the data dir) and N processes of
``truco-ssh serve --nats`` on the same SSH port (SO_REUSEPORT: the kernel spreads the
connections) with the same host key and data dir. A worker that dies is started again
(another worker has taken over its part meanwhile), and so is the nats-server. Ctrl-C (or
SIGTERM) stops the workers, then the nats-server.
"""
from __future__ import annotations

import asyncio
import logging
import os
import signal
import sys
from pathlib import Path
from typing import Callable

from server.ops import metrics
from server.cluster.natsd import NatsServer, free_port
from server.config import ServerConfig
from server.ssh.hostkey import fingerprint, load_or_create_host_key
from server.lan.netinfo import connect_lines, lan_addresses
from server.ops.process_life import ending_with_this_process, lock_data_dir
from server.say import terminal_tr
from server.ops.signals import catch_stop_signals, release_stop_signals

log = logging.getLogger("truco-ssh")

WORKER_STOP_TIMEOUT = 10.0  # seconds for a worker's clean shutdown before SIGKILL
EARLY_EXIT = 5.0  # seconds: a worker failing this soon will not do better when restarted
RESTART_PAUSE = 1.0  # seconds before a dead worker is started again


def worker_count(text: str) -> int:
    """``--workers``: a number from 1 to 64, or ``auto`` (the cores of this machine)."""
    if text == "auto":
        return max(1, os.cpu_count() or 1)
    try:
        count = int(text)
    except ValueError:
        raise ValueError(f"--workers: {text!r} is neither a number nor auto") from None
    if not 1 <= count <= 64:
        raise ValueError("--workers: from 1 to 64")
    return count


def worker_argv(argv: list[str], nats_url: str, port: int) -> list[str]:
    """The serve command line of one worker: the operator's options, without ``--workers``
    and ``--port``, joined to the local nats-server, sharing the port."""
    out: list[str] = []
    skip = False
    for arg in argv:
        if skip:
            skip = False
            continue
        if arg in ("--workers", "--port", "--nats", "--metrics"):
            skip = True
            continue
        if arg.startswith(("--workers=", "--port=", "--nats=", "--metrics=")):
            continue
        out.append(arg)
    # --workers 1 over a settings file's `workers`; --metrics per worker (``worker_metrics``)
    return [*out, "--port", str(port), "--nats", nats_url, "--reuse-port", "--workers", "1"]


def worker_metrics(address: str, number: int) -> list[str]:
    return ["--metrics", metrics.worker_address(address, number)] if address else []


class WorkersFailed(RuntimeError):
    """The supervisor stopped by itself (a worker or the bus could not be started): its
    exit status says so, so that a supervisor above it (systemd) starts it again."""


async def run_workers(config: ServerConfig, count: int, argv: list[str],
                      say: Callable[[str], None], stop: asyncio.Event | None = None) -> None:
    stop = stop or asyncio.Event()
    # The data dir is ours, and stays ours until the workers and the bus have ended too: they
    # hold the locked file (server/ops/process_life.py), and end when this process dies.
    lock = await lock_data_dir(Path(config.data_dir))
    owns_signals = catch_stop_signals(stop)
    try:
        await _run_workers(config, count, argv, say, stop, lock)
    finally:
        os.close(lock)
        release_stop_signals(owns_signals)


async def _run_workers(config: ServerConfig, count: int, argv: list[str], say: Callable[[str], None],
                       stop: asyncio.Event, lock: int) -> None:
    loop = asyncio.get_running_loop()
    tr = terminal_tr()
    host_key = await asyncio.to_thread(load_or_create_host_key, config.host_key)  # before the workers race
    port = config.port or free_port(config.host or "127.0.0.1")
    nats = NatsServer(Path(config.data_dir) / "nats", host="127.0.0.1", port=config.bus_port,
                      end_with_parent=True, pass_fds=(lock,), sync_always=True)
    await nats.start()
    exe = ending_with_this_process([sys.executable, "-m", "server.cli.main"])
    args = worker_argv(argv, nats.url, port)
    workers: list[asyncio.Task[None]] = []
    failures: list[str] = []  # why it stopped by itself, if it did
    try:
        say(tr("cli.cluster.workers", n=count, address=f"{config.host}:{port}", bus=nats.url))
        say(tr("cli.fingerprint", fingerprint=fingerprint(host_key)))
        for line in connect_lines(lan_addresses(config.host), port, tr):
            say(line)
        say(tr("cli.press_ctrl_c"))
        workers = [loop.create_task(_keep_running([*exe, *args, *worker_metrics(config.metrics, n)], n, stop, lock,
                                                  failures), name=f"worker-{n}")
                   for n in range(count)]
        workers.append(loop.create_task(_keep_nats(nats, stop, failures), name="nats"))
        await stop.wait()
        say(tr("cli.cluster.stopping_workers"))
    finally:
        stop.set()
        await asyncio.gather(*workers, return_exceptions=True)
        await nats.stop()
    say(tr("cli.stopped"))
    if failures:
        raise WorkersFailed("; ".join(failures))


async def _keep_nats(nats: NatsServer, stop: asyncio.Event, failures: list[str]) -> None:
    """The bus: started again (same port, same JetStream files) if it dies; the workers
    reconnect by themselves."""
    while not stop.is_set():
        process = nats.process
        if process is None:
            return
        waiting = asyncio.ensure_future(process.wait())
        stopping = asyncio.ensure_future(stop.wait())
        await asyncio.wait([waiting, stopping], return_when=asyncio.FIRST_COMPLETED)
        stopping.cancel()
        if stop.is_set():
            waiting.cancel()
            return
        log.error("the nats-server exited with %s; starting it again", process.returncode)
        nats.process = None
        await asyncio.sleep(RESTART_PAUSE)
        try:
            await nats.start()
        except OSError as exc:
            log.exception("the nats-server cannot be started again: stopping")
            failures.append(f"the nats-server cannot be started again: {exc}")
            stop.set()


async def _keep_running(command: list[str], number: int, stop: asyncio.Event, lock: int,
                        failures: list[str]) -> None:
    while not stop.is_set():
        started = asyncio.get_running_loop().time()
        # Its own process group: the operator's Ctrl-C reaches the supervisor, which stops
        # the workers in order (the lobby host last would be nicer; any order is safe).
        process = await asyncio.create_subprocess_exec(*command, start_new_session=True, pass_fds=(lock,))
        waiting = asyncio.ensure_future(process.wait())
        stopping = asyncio.ensure_future(stop.wait())
        await asyncio.wait([waiting, stopping], return_when=asyncio.FIRST_COMPLETED)
        if process.returncode is None:
            process.send_signal(signal.SIGINT)
            try:
                await asyncio.wait_for(asyncio.shield(waiting), WORKER_STOP_TIMEOUT)
            except asyncio.TimeoutError:
                log.warning("worker %d did not stop: killed", number)
                process.kill()
                await waiting
            stopping.cancel()
            return
        stopping.cancel()
        if process.returncode != 0 and asyncio.get_running_loop().time() - started < EARLY_EXIT:
            log.error("worker %d failed at start (exit status %s): stopping", number, process.returncode)
            failures.append(f"worker {number} failed at start (exit status {process.returncode})")
            stop.set()
            return
        log.error("worker %d exited with %s; starting it again", number, process.returncode)
        await asyncio.sleep(RESTART_PAUSE)
