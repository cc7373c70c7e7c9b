"""Listening ports for the servers the tests start, that no other test can be given.

Binding port 0 and closing the socket hands out a port from the kernel's ephemeral range,
which the kernel may hand again at once: to another test worker's bind, or as the local
port of any outgoing connection (every SSH client the tests open takes one). With the suite
spread over workers that happened. So each worker takes ports from its own block below the
ephemeral range (``/proc/sys/net/ipv4/ip_local_port_range``), in turn, and only ports that
bind: no outgoing connection is ever given one, and no two workers share a block.
"""
from __future__ import annotations

import itertools
import os
import re
import socket
import threading

FIRST_PORT = 20_000  # below Linux's ephemeral range (32768-60999 by default)
BLOCK = 400  # ports a worker cycles through: a port comes round again after 400 servers
MAX_WORKERS = 30  # 20000 + 30 * 400 = 32000, still below the ephemeral range


def _worker_index() -> int:
    """pytest-xdist's worker number (``gw3`` -> 3); 0 without xdist."""
    match = re.fullmatch(r"gw(\d+)", os.environ.get("PYTEST_XDIST_WORKER", ""))
    return int(match[1]) if match else 0


def _ephemeral_floor() -> int:
    try:
        with open("/proc/sys/net/ipv4/ip_local_port_range", encoding="ascii") as f:
            return int(f.read().split()[0])
    except (OSError, ValueError, IndexError):
        return 32_768


_lock = threading.Lock()
_index = _worker_index()
if _index >= MAX_WORKERS:
    raise RuntimeError(f"tests/ports.py has port blocks for {MAX_WORKERS} workers, not {_index + 1}")
_start = FIRST_PORT + _index * BLOCK
if _start + BLOCK > _ephemeral_floor():
    raise RuntimeError("tests/ports.py: the ephemeral port range starts below the tests' port blocks")
# From a place of its own in the block: a process a test starts (a bench script) inherits the
# worker's block, and must not walk it in step with the worker.
_offset = os.getpid() % BLOCK
_turn = itertools.cycle([*range(_start + _offset, _start + BLOCK), *range(_start, _start + _offset)])


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
