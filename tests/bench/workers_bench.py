"""Cluster stage: how much load one process holds, and how much ``--workers 2`` holds, in one run.

For each mode a server of its own (``truco-ssh serve`` on 127.0.0.1; the second with
``--workers 2``: a supervisor, a local nats-server and two worker processes sharing the port)
and the same load generator (tests/bench/load_bench.py, its clients in separate processes:
4-player private tables, ``--rate`` actions a second per table (4: see RATE); by default every seat a program on
the ``truco`` subsystem, tests/bench/proto_table.py, the cheap clients; ``--screen-share``
mixes in terminal seats as the load stages do; the tables act at random moments of each
second, not all at once: a burst of every table at one instant would measure the burst). The
load is found, not fixed:

1. a ramp: tables are added (``--start`` tables, then times ``--growth`` each step) and each
   step measured for ``--seconds``, until p99 command-to-update (the worst of the two kinds'
   p99) reaches 250 ms, the tables lose their pace (fewer than 90 % of the actions a second
   they made at the first step: the clients wait for each update, so a server behind slows
   them), the table cap, or the mode's time budget;
2. a bisection between the last load that held and the first that did not, by letting only
   part of the seated tables act (``LoadRun.play_some``: no tables torn down), while the
   budget lasts and the bracket is wider than ``RESOLUTION``.

Reported per mode, at the highest load held (p99 under 250 ms): actions per second, p99 and
median, server CPU per seat-action (per action per seat, all four seats counted) in all and
for each process apart (worker 1, worker 2, nats-server, supervisor), each process's busy
percent of one core and the least busy worker's over the busiest's (the workers really
spread?), the clients' CPU (percent of one core and
their share of the CPU the run used: over 100 % means the load generator needed more than a
core, and is said so), how busy the whole machine was (all cores; the rest of it, past the
server and the clients, is other jobs: said when over 90 %, as the limit found is then the
machine's), the load average, why the ramp stopped (``p99``, ``pace``, ``budget``,
``setup``: tables not set up in the time left, ``cap``), and every step; then the ratios
workers-2 / one process. The machine's other jobs count: figures on a shared machine are noisy.
After each mode: the server's and the clients' processes still alive (must be 0).
Run: ``python tests/bench/workers_bench.py [--budget 150] [--seconds 6] [--start 8]
[--growth 1.6] [--max-tables 400] [--rate 4] [--screen-share 0]``.
"""
from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
# Bench files are run as scripts: Python puts only this folder on sys.path then.
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parents[1]))

import load_bench  # noqa: E402
from session_bench import process_tree  # noqa: E402

P99_LIMIT_MS = 250.0  # a load is "held" when p99 command-to-update stays under this
# ... and the tables keep their pace: the clients wait for each action's update before the
# next, so a server that falls behind slows them down (fewer actions, not a worse p99). The
# pace is the share of the asked rate the first, lightest step reached (the pause between
# hands and the wait for each update keep it under 1 whatever the server).
PACE_KEPT = 0.9
RESOLUTION = 1.15  # bisect until the first load not held is at most this times the last held
MODES = (("one", (), 1), ("workers2", ("--workers", "2"), 2))  # (name, serve flags, listening processes)
# A few hundred tables from one address: past the bench server's own limits (load_bench: 1,000).
MORE_SESSIONS = ("--max-sessions", "5000", "--max-connections-per-ip", "5000")
# Actions a second per table: protocol seats cost the server little (about 0.5 ms per
# seat-action), so at one a second saturating a core would take thousands of connections,
# more than the budget can set up; each action costs the server the same at any pace.
RATE = 4.0
# The bot deciding for the clients' seats: "easy" costs them less CPU than "normal" (its
# belief sampling), so the load generator takes less of the cores the server needs.
CLIENT_BOT = "easy"
STOP_COST_S = 4.0  # a mode's server and client processes stopping (nats too): kept out of the ramp


@dataclass
class Step:
    """One measured load."""

    tables: int  # tables acting
    how: str  # "ramp" (tables added) or "bisect" (part of the seated tables acting)
    figures: dict[str, object]
    pace: float = 1.0  # the unloaded pace (Ramp.pace): a fraction of the rate asked

    def value(self, key: str) -> float:
        raw = self.figures.get(key, float("nan"))
        return float(raw) if isinstance(raw, (int, float)) else float("nan")

    @property
    def p99_ms(self) -> float:
        """The worst p99 of the kinds playing (terminal seats: press-to-draw)."""
        found = [v for v in (self.value("press_to_draw_p99_ms"), self.value("send_to_update_p99_ms"))
                 if not math.isnan(v)]
        return max(found) if found else float("inf")

    @property
    def median_ms(self) -> float:
        found = [v for v in (self.value("press_to_draw_median_ms"), self.value("send_to_update_median_ms"))
                 if not math.isnan(v)]
        return max(found) if found else float("nan")

    @property
    def held(self) -> bool:
        missed = self.value("screens_not_redrawn_in_5s") + self.value("updates_not_received_in_5s")
        kept = self.value("actions_per_second") >= PACE_KEPT * self.pace * self.value("actions_per_second_requested")
        return self.p99_ms < P99_LIMIT_MS and not missed > 0 and kept and self.value("actions") > 0

    def line(self) -> str:
        return (f"{self.tables} tables ({self.how}): {self.value('actions_per_second'):.1f} of "
                f"{self.value('actions_per_second_requested'):.0f} actions/s, "
                f"p99 {self.p99_ms:.0f} ms, clients {self.value('clients_cpu_percent'):.0f} % "
                f"{'held' if self.held else 'NOT held'}")


@dataclass
class Ramp:
    """The ramp and the bisection of one mode, within ``deadline`` (monotonic)."""

    load: load_bench.LoadRun
    deadline: float
    start: int
    growth: float
    max_tables: int
    steps: list[Step] = field(default_factory=list)
    stopped_on: str = ""
    pace: float = 1.0

    def measured(self, step: Step) -> Step:
        """``step`` added, its pace set (the first one's sets the pace)."""
        if not self.steps:
            reached = step.value("actions_per_second") / max(1e-9, step.value("actions_per_second_requested"))
            self.pace = min(1.0, reached) if reached > 0 else 1.0
        step.pace = self.pace
        self.steps.append(step)
        return step

    def left(self) -> float:
        return self.deadline - time.monotonic()

    def window_cost(self) -> float:
        """A measurement window, its start and its last actions' answers."""
        return self.load.seconds + 2.0

    def run(self) -> None:
        tables, setup_per_table = self.start, 0.0
        while True:
            added = tables - (self.steps[-1].tables if self.steps else 0)
            setup_budget = self.left() - self.window_cost() - 1.0
            if setup_budget < max(3.0, setup_per_table * added):
                self.stopped_on = "budget"
                break
            began = time.monotonic()
            step = self.measured(Step(tables, "ramp", self.load.stage(tables, setup_budget)))
            set_up = int(step.value("tables_playing"))
            step.tables = set_up
            setup_per_table = step.value("setup_seconds") / max(1, added)
            print(f"  {step.line()} ({time.monotonic() - began:.0f} s)", file=sys.stderr, flush=True)
            if not step.held:  # the limit: p99 reached, or the tables lost their pace
                self.stopped_on = "p99" if step.p99_ms >= P99_LIMIT_MS else "pace"
                break
            if set_up < tables:  # the setup budget ran out: a smaller load than asked, held
                self.stopped_on = "setup"
                break
            if tables >= self.max_tables:
                self.stopped_on = "cap"
                break
            tables = min(self.max_tables, max(tables + 1, math.ceil(tables * self.growth)))
        self.bisect()

    def bisect(self) -> None:
        """Between the best load held and the least not held: part of the seated tables act."""
        while True:
            good = max((s.tables for s in self.steps if s.held), default=0)
            bad = min((s.tables for s in self.steps if not s.held and s.tables > good), default=None)
            if bad is None or bad - good <= 1 or bad <= good * RESOLUTION:
                return
            if self.left() < self.window_cost():
                self.stopped_on += ", bisection cut by the budget"
                return
            tables = (good + bad) // 2 if good else max(1, bad // 2)
            step = self.measured(Step(tables, "bisect", self.load.play_some(tables)))
            print(f"  {step.line()}", file=sys.stderr, flush=True)


def process_label(name: str, mode_processes: int) -> str:
    """"pid name" from load_bench's CPU figures, as the role it plays."""
    pid, _, program = name.partition(" ")
    if program == "nats-server":
        return f"nats-server {pid}"
    if program == "server.cli.main":  # --workers starts its workers as python -m server.cli.main
        return f"worker {pid}"
    return f"server {pid}" if mode_processes == 1 else f"supervisor {pid}"


def alive(pids: set[int]) -> list[int]:
    """The ones still running (zombies not counted: ended, waiting to be reaped)."""
    running = []
    for pid in pids:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if state != "Z":
            running.append(pid)
    return sorted(running)


def measure_mode(flags: tuple[str, ...], listeners: int, budget: float, seconds: float, start: int,
                 growth: float, max_tables: int, screen_share: float, rate: float) -> dict[str, object]:
    """One mode: its server started with ``flags``, ramped and bisected within ``budget``."""
    began = time.monotonic()
    load_avg = os.getloadavg()[0]
    pids: set[int] = set()
    with load_bench.LoadRun(seconds, server_flags=(*flags, *MORE_SESSIONS), listeners=listeners,
                            screen_share=screen_share, split_seconds=0.0, spread=True, rate=rate,
                            bot_level=CLIENT_BOT) as load:
        ramp = Ramp(load, began + budget - STOP_COST_S, start, growth, max_tables)
        try:
            ramp.run()
        finally:  # every process of this mode, to check that none outlives it
            pids.update(p for pid in load.server_pids for p in process_tree(pid))
            pids.update(proc.pid for proc in getattr(load, "procs", []))
    left_behind = alive(pids)
    return summarise(ramp, listeners) | {
        "load_average_at_start": round(load_avg, 2),
        "processes_left_after_stop": len(left_behind),
        "mode_seconds": round(time.monotonic() - began, 1),
    }


def summarise(ramp: Ramp, listeners: int) -> dict[str, object]:
    held = [s for s in ramp.steps if s.held]
    best = max(held, key=lambda s: s.value("actions_per_second"), default=None)
    shown = best or min(ramp.steps, key=lambda s: s.tables, default=None)
    out: dict[str, object] = {
        "actions_per_second_held": best.value("actions_per_second") if best else 0.0,
        "tables_held": best.tables if best else 0,
        "stopped_on": ramp.stopped_on,
        "pace_unloaded": round(ramp.pace, 3),
        "steps": "; ".join(s.line() for s in ramp.steps),
    }
    if shown is None:
        return out
    figures = shown.figures
    actions = max(1.0, shown.value("actions"))
    at = "" if best else "_lightest_load (none held)"
    out[f"p99_ms{at}"] = shown.p99_ms
    out[f"median_ms{at}"] = shown.median_ms
    out[f"cpu_per_seat_action_ms{at}"] = shown.value("server_cpu_per_action_ms") / 4
    by_process = figures.get("server_cpu_busy_percent_by_process")
    if isinstance(by_process, dict):
        seconds = ramp.load.seconds
        out["cpu_per_seat_action_ms_by_process"] = {
            process_label(name, listeners): busy / 100 * seconds / actions / 4 * 1000
            for name, busy in by_process.items()}
        out["busy_percent_of_a_core_by_process"] = {
            process_label(name, listeners): busy for name, busy in by_process.items()}
        workers = [busy for name, busy in by_process.items() if process_label(name, listeners).startswith("worker")]
        if len(workers) > 1:  # the kernel spreads connections over the workers: 1 is even, 0 idle
            out["workers_busy_least_over_most"] = min(workers) / max(workers) if max(workers) > 0 else 0.0
    clients = shown.value("clients_cpu_percent")
    server = shown.value("server_cpu_busy_percent")
    out["clients_cpu_percent_of_a_core"] = clients
    out["clients_share_of_the_cpu_used"] = clients / (clients + server) if clients + server > 0 else float("nan")
    out["server_cpu_percent_of_a_core"] = server
    cores = shown.value("machine_cores")
    machine = shown.value("machine_busy_percent")
    out["machine_busy_percent_of_all_cores"] = machine
    # The rest of the machine's busy time: other jobs (a shared machine) and the kernel's share.
    out["other_jobs_percent_of_a_core"] = max(0.0, machine * cores - server - clients)
    heaviest = max(ramp.steps, key=lambda s: s.tables)
    if heaviest.value("machine_busy_percent") > 90:
        out["machine_note"] = (f"the machine was {heaviest.value('machine_busy_percent'):.0f} % busy at the "
                               f"heaviest step ({heaviest.tables} tables): the limit found may be the "
                               f"machine's (server, clients and other jobs together), not the server's")
    # The load generator must not hide the server: say when it needed more than a core.
    worst = max((s.value("clients_cpu_percent") for s in ramp.steps), default=0.0)
    if worst > 100:
        out["note"] = (f"the clients needed {worst:.0f} % of a core at the heaviest step: on this machine "
                       f"the load generator competes with the server for the cores")
    if "setup_errors" in figures:
        out["setup_errors"] = figures["setup_errors"]
    return out


def ratio(a: object, b: object) -> float:
    if not isinstance(a, (int, float)) or not isinstance(b, (int, float)) or not b:
        return float("nan")
    return float(a) / float(b)


def run(budget: float = 150.0, seconds: float = 6.0, start: int = 8, growth: float = 1.6,
        max_tables: int = 400, screen_share: float = 0.0, rate: float = RATE) -> dict[str, object]:
    """Both modes, half the budget each (the same chance to ramp); their figures and the ratios."""
    out: dict[str, object] = {"budget_s": budget, "seconds_per_step": seconds, "screen_share": screen_share,
                              "actions_per_table_second": rate, "clients_bot": CLIENT_BOT,
                              "p99_limit_ms": P99_LIMIT_MS}
    modes = {}
    for name, flags, listeners in MODES:
        modes[name] = measure_mode(flags, listeners, budget / len(MODES), seconds, start, growth, max_tables,
                                   screen_share, rate)
        # make bench prints a dict's numbers on one line: the rest (why it stopped, the steps,
        # the notes, each process's figures) on lines of their own.
        out[name] = {k: v for k, v in modes[name].items() if isinstance(v, (int, float))}
        out.update({f"{name}.{k}": v for k, v in modes[name].items() if not isinstance(v, (int, float))})
    one, workers = modes["one"], modes["workers2"]
    out["ratio_actions_per_second_held"] = ratio(workers["actions_per_second_held"],
                                                 one["actions_per_second_held"])
    out["ratio_cpu_per_seat_action"] = ratio(workers.get("cpu_per_seat_action_ms"),
                                             one.get("cpu_per_seat_action_ms"))
    unsure = [name for name, mode in modes.items() if str(mode["stopped_on"]).split(",")[0] not in ("p99", "pace")]
    if unsure:  # it held all it was given: its figure is a floor, and so is (or skews) the ratio
        out["ratio_note"] = (f"{' and '.join(unsure)} did not reach p99 {P99_LIMIT_MS:.0f} ms (stopped on "
                             f"{'; '.join(str(modes[n]['stopped_on']) for n in unsure)}): what it held is a "
                             f"lower bound, not its limit")
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--budget", type=float, default=150.0, help="seconds for both modes (default %(default)s)")
    parser.add_argument("--seconds", type=float, default=6.0, help="seconds measured per step")
    parser.add_argument("--start", type=int, default=8, help="tables at the first step")
    parser.add_argument("--growth", type=float, default=1.6, help="tables times this at each step")
    parser.add_argument("--max-tables", type=int, default=400)
    parser.add_argument("--rate", type=float, default=RATE, help="actions a second per table")
    parser.add_argument("--screen-share", type=float, default=0.0,
                        help="share of the tables played by terminal sessions (default %(default)s)")
    args = parser.parse_args()
    print(json.dumps(run(args.budget, args.seconds, args.start, args.growth, args.max_tables,
                         args.screen_share, args.rate), indent=2))


if __name__ == "__main__":
    main()
