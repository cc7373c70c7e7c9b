"""Cluster stage: the same load against one process and against ``--workers 2``, in one run.

Each mode gets its own server (``truco-ssh serve`` on 127.0.0.1; the second with
``--workers 2``: a supervisor, a local nats-server and two worker processes sharing the
port) and the same load generator (tests/bench/load_bench.py: bot-driven SSH clients at
private 4-player tables, one action per second per table, cheap clients once playing).
Tables are added in stages (each stage adds tables to the last, as in load_bench); every
stage is measured for ``seconds``. Reported per mode and stage: actions per second, p99
press-to-draw, server CPU per action per watching seat (all the server's processes, and
each process's share), the clients' own CPU. Then, per mode:

- ``actions_per_second_held``: the most actions per second of a stage whose p99
  press-to-draw stayed under 250 ms (0 when none did);
- ``cpu_per_seat_action_ms``: server CPU per action per watching seat at the largest stage;

and the ratios workers / one process. The load generator's own CPU is reported beside
(``clients_cpu_percent``, of one core) so it cannot hide the server's.

The load runs through ``measure_mode`` alone: to drive the players another way (the
protocol subsystem), change that one function. Run:
``python tests/bench/workers_bench.py [--tables 4 10] [--seconds 15] [--setup-budget 60]``.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
# Bench files are run as scripts: Python puts only this folder on sys.path then.
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parents[1]))

import load_bench  # noqa: E402

P99_LIMIT_MS = 250.0  # a stage "holds" its actions per second when p99 press-to-draw is under this
MODES = (("one", (), 1), ("workers2", ("--workers", "2"), 2))  # (name, serve flags, processes)
KEPT = ("tables_playing", "actions_per_second", "press_to_draw_median_ms", "press_to_draw_p99_ms",
        "server_cpu_per_action_per_watching_seat_ms", "server_cpu_busy_percent", "clients_cpu_percent",
        "screens_not_redrawn_in_5s", "setup_connect_median_s", "setup_server_cpu_per_player_ms")


def measure_mode(flags: tuple[str, ...], listeners: int, stages: tuple[int, ...], seconds: float,
                 setup_budget: float) -> list[dict[str, object]]:
    """One server started with ``flags``, loaded in ``stages``: each stage's figures."""
    with load_bench.LoadRun(seconds, server_flags=flags, listeners=listeners) as load:
        return [load.stage(tables, setup_budget) for tables in stages]


def held(stages: list[dict[str, object]]) -> float:
    """The most actions per second of a stage with p99 press-to-draw under the limit."""
    ok = [float(s["actions_per_second"]) for s in stages  # type: ignore[arg-type]
          if float(s["press_to_draw_p99_ms"]) < P99_LIMIT_MS]  # type: ignore[arg-type]
    return max(ok, default=0.0)


def ratio(a: float, b: float) -> float:
    return a / b if b else float("nan")


def run(stages: tuple[int, ...] = (4, 10), seconds: float = 15.0,
        setup_budget: float = 60.0) -> dict[str, object]:
    out: dict[str, object] = {"stages_tables": " ".join(map(str, stages)), "seconds_per_stage": seconds}
    summary: dict[str, dict[str, float]] = {}
    for name, flags, listeners in MODES:
        started = time.monotonic()
        figures = measure_mode(flags, listeners, stages, seconds, setup_budget)
        for tables, stage in zip(stages, figures):
            out[f"{name}.t{tables}"] = {k: stage[k] for k in KEPT if isinstance(stage.get(k), (int, float))}
            per_process = stage.get("server_cpu_per_action_per_watching_seat_ms_by_process")
            if isinstance(per_process, dict):
                out[f"{name}.t{tables}.cpu_per_seat_action_ms_by_process"] = per_process
            if "setup_errors" in stage:
                out[f"{name}.t{tables}.setup_errors"] = stage["setup_errors"]
        last = figures[-1]
        summary[name] = {
            "actions_per_second_held": held(figures),
            "cpu_per_seat_action_ms": float(last["server_cpu_per_action_per_watching_seat_ms"]),  # type: ignore[arg-type]
            "p99_ms_largest_stage": float(last["press_to_draw_p99_ms"]),  # type: ignore[arg-type]
            "clients_cpu_percent_largest_stage": float(last["clients_cpu_percent"]),  # type: ignore[arg-type]
            "mode_seconds": time.monotonic() - started,
        }
        out[name] = summary[name]
    one, workers = summary["one"], summary["workers2"]
    out["ratio_actions_per_second_held"] = ratio(workers["actions_per_second_held"], one["actions_per_second_held"])
    out["ratio_cpu_per_seat_action"] = ratio(workers["cpu_per_seat_action_ms"], one["cpu_per_seat_action_ms"])
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tables", type=int, nargs="+", default=[4, 10])
    parser.add_argument("--seconds", type=float, default=15.0)
    parser.add_argument("--setup-budget", type=float, default=60.0)
    args = parser.parse_args()
    print(json.dumps(run(tuple(args.tables), args.seconds, args.setup_budget), indent=2))


if __name__ == "__main__":
    main()
