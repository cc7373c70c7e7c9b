"""docs/OPERATING.md and contrib/grafana name exactly what the server has: every metric,
every setting; the dashboard only asks for metrics that exist."""
from __future__ import annotations

import json
import re
from pathlib import Path

from prometheus_client import REGISTRY, Counter, Gauge, Histogram, Info

from server.ops import metrics
from server.cli.main import build_parser
from server.cli.settings_file import settable

ROOT = Path(__file__).resolve().parents[2]
DOC = (ROOT / "docs" / "OPERATING.md").read_text(encoding="utf-8")


def ours() -> set[str]:
    """The metric names server/ops/metrics.py registers (counters with their _total)."""
    names = set()
    for collector in vars(metrics).values():
        if isinstance(collector, (Counter, Gauge, Histogram, Info)):
            for family in collector.describe():
                kind = family.type
                names.add(family.name + ("_total" if kind == "counter" else "_info" if kind == "info" else ""))
    return names


def test_the_doc_lists_every_metric_and_nothing_else() -> None:
    documented = set(re.findall(r"^\| `(truco_\w+)", DOC, re.M))
    assert documented == ours()


def test_the_dashboard_asks_only_for_metrics_that_exist() -> None:
    dashboard = json.loads((ROOT / "contrib" / "grafana" / "truco-ssh.json").read_text())
    exprs = [t["expr"] for panel in dashboard["panels"] for t in panel["targets"]]
    used = {re.sub(r"_(bucket|sum|count)$", "", name) for e in exprs for name in re.findall(r"truco_\w+", e)}
    assert used == ours()  # one page with every figure
    assert REGISTRY.get_sample_value("truco_restores_total") is not None  # registered where Prometheus looks


def test_the_doc_names_every_setting() -> None:
    listed = DOC.split("The settings:", 1)[1].split("What each does", 1)[0]
    assert set(re.findall(r"`(\w+)`", listed)) == set(settable(build_parser().commands["serve"]))
