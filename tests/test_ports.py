"""Port blocks (tests/ports.py): no two processes share one, whatever their worker numbers."""
from __future__ import annotations

import os
import socket
import subprocess
import sys

from tests import ports

SHOW_BLOCK = "from tests import ports; print(ports._start)"


def claimed_by_a_process(worker: str) -> int:
    env = dict(os.environ, PYTEST_XDIST_WORKER=worker)
    out = subprocess.run([sys.executable, "-c", SHOW_BLOCK], env=env, check=True, capture_output=True,
                         text=True, cwd=os.path.dirname(os.path.dirname(__file__)))
    return int(out.stdout)


def test_a_process_with_this_workers_number_gets_another_block() -> None:
    """Another run's worker of the same number (here: a child process, which does not inherit
    the lock) is given a block of its own while this process holds its block."""
    worker = os.environ.get("PYTEST_XDIST_WORKER", "gw0")
    assert claimed_by_a_process(worker) != ports._start


def test_free_ports_come_from_the_block_and_bind() -> None:
    port = ports.free_port()
    assert ports._start <= port < ports._start + ports.BLOCK
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", port))
