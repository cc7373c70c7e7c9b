"""A short chaos run inside `make test` (`make chaos` runs 100 faults): four faults, of NATS
nodes and of serve processes, under three playing tables, every check of the harness holding."""
from __future__ import annotations

from pathlib import Path

import pytest

from tests.chaos.harness import run

pytestmark = [pytest.mark.e2e, pytest.mark.slow]


async def test_four_faults_of_nats_nodes_and_serve_processes_lose_nothing_and_drop_no_one(tmp_path: Path) -> None:
    report = await run(faults=4, budget=240.0, seed=33, root=tmp_path)
    print("\n".join(report.lines()))
    assert len(report.faults) == 4
    assert report.ok, "\n".join(report.lines())
    assert report.reconnects or not any("kill process" in what for what, _ in report.faults)
