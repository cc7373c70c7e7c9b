"""Listening ports for the servers the tests start, that no other test can be given.

Binding port 0 and closing the socket hands out a port from the kernel's ephemeral range,
which the kernel may hand again at once: to another test worker's bind, or as the local
port of any outgoing connection (every SSH client the tests open takes one). With the suite
spread over workers that happened. So each process takes ports from a block of its own below
the ephemeral range (``/proc/sys/net/ipv4/ip_local_port_range``), in turn, and only ports
that bind: no outgoing connection is ever given one.

A block is claimed with an exclusive lock on a file of its own, held while the process
lives: no two processes share one, also when two test runs (or a run and a bench) share the
machine. Numbered blocks were shared by the workers of the same number of two runs, and a
server restarted on its port after a SIGKILL found it taken by the other run's server.
"""
from __future__ import annotations

import fcntl
import itertools
import os
import re
import socket
import tempfile
import threading
from pathlib import Path

FIRST_PORT = 10_000  # 113 blocks below Linux's ephemeral range (32768-60999 by default)
BLOCK = 200  # ports a process cycles through: a port comes round again after 200 servers
LOCKS = Path(tempfile.gettempdir()) / "truco-ssh-test-ports"


def _worker_index() -> int:
    """pytest-xdist's worker number (``gw3`` -> 3); 0 without xdist: where the search starts."""
    match = re.fullmatch(r"gw(\d+)", os.environ.get("PYTEST_XDIST_WORKER", ""))
    return int(match[1]) if match else 0


def _ephemeral_floor() -> int:
    try:
        with open("/proc/sys/net/ipv4/ip_local_port_range", encoding="ascii") as f:
            return int(f.read().split()[0])
    except (OSError, ValueError, IndexError):
        return 32_768


def _claim_block() -> tuple[int, int]:
    """(first port, the lock's file descriptor) of a block no other process holds."""
    blocks = (_ephemeral_floor() - FIRST_PORT) // BLOCK
    if blocks < 1:
        raise RuntimeError("tests/ports.py: the ephemeral port range starts below the tests' port blocks")
    LOCKS.mkdir(mode=0o777, exist_ok=True)
    first = _worker_index() % blocks
    for n in (*range(first, blocks), *range(first)):
        fd = os.open(LOCKS / f"block-{n}.lock", os.O_RDWR | os.O_CREAT, 0o666)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            continue
        os.set_inheritable(fd, False)  # a process a test starts claims a block of its own
        return FIRST_PORT + n * BLOCK, fd
    raise RuntimeError(f"tests/ports.py: all {blocks} port blocks are held by other processes")


_lock = threading.Lock()
_start, _block_lock = _claim_block()  # the lock lasts as long as this process
_turn = itertools.cycle(range(_start, _start + BLOCK))


def free_port(host: str = "127.0.0.1") -> int:
    """A port of this worker's block that nothing listens on or is connected from now."""
    with _lock:
        for _ in range(BLOCK):
            port = next(_turn)
            with socket.socket() as sock:
                try:
                    sock.bind((host, port))
                except OSError:
                    continue  # in use (or in TIME_WAIT): the next one
                return port
    raise RuntimeError(f"no free port in {_start}-{_start + BLOCK - 1} on {host}")
