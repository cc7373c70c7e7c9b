"""Short chaos runs inside `make test` (`make chaos` runs 100 faults): in the cluster, a
machine's partition and a serve process's kill; on SQLite, power cuts; each under three playing tables, every check of the harness holding (nothing
acknowledged lost, every view a replay of the log, no session dropped on a live process,
every table playing again).

A power cut of every NATS node at once is left to `make chaos`: JetStream's elections after it
take 10-15 s, and one in ten or so leaves the lease bucket's stream leaderless until the
processes make it again (server/cluster/lease_repair.py, tested in
tests/cluster/test_lease_repair.py), too long for `make test`."""
from __future__ import annotations

from pathlib import Path

import pytest

from tests.chaos.harness import run
from tests.chaos.lazyfs import fuse_missing
from tests.chaos.machines import missing as machines_missing

pytestmark = [pytest.mark.e2e, pytest.mark.slow,
              pytest.mark.skipif(bool(fuse_missing()), reason=fuse_missing() or "")]
cluster = pytest.mark.skipif(bool(machines_missing()), reason=machines_missing() or "")


def _holds(report_lines: list[str], ok: bool) -> None:
    print("\n".join(report_lines))
    assert ok, "\n".join(report_lines)


@cluster
async def test_a_partition_and_a_killed_serve_process_lose_nothing_and_drop_no_one(tmp_path: Path) -> None:
    # (NATS nodes killed and paused: tests/cluster/test_nats_node_faults.py; their power cuts
    # cost the power-cut filesystem's CPU: make chaos; power cuts here: the SQLite run below)
    kinds = ("partition", "kill-process", "pause-process")
    report = await run(faults=2, budget=240.0, seed=3, root=tmp_path, kinds=kinds, mode="cluster")
    _holds(report.lines(), report.ok)
    # (seed 3 draws a partition, then a kill, whichever node leads the lease bucket)
    assert [fault.kind for fault in report.faults] == ["partition machine", "kill process"]
    assert report.views > 100  # the replay check had views to check
    assert report.reconnects


async def test_power_cuts_and_kills_of_a_server_on_sqlite_lose_no_event_players_saw(tmp_path: Path) -> None:
    report = await run(faults=3, budget=200.0, seed=1, root=tmp_path, kinds=("power-cut", "kill-process"),
                       mode="sqlite")
    _holds(report.lines(), report.ok)
    assert sum(fault.kind == "power cut" for fault in report.faults) >= 1
    assert report.views > 100
