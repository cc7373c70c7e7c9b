"""Instructions per seat-update, counted by valgrind (callgrind): the seat bench's game
(tests/bench/seat_bench.py: four apps at a 4-player table, headless, 80x24) played for
``--steps`` moves and for 15, the difference divided by the seat-updates between them. A
count, not a time: the same on a busy machine as on an idle one, so a change of a few per
cent to the screens shows where the load bench's timings (minutes apart, on shared cores)
cannot. It counts what the process does for those updates: the frames built and decoded,
the widgets' updates, the drawing (not the SSH write: the apps are headless).
``--without`` leaves a part out to see its share: ``draw`` (no screen is drawn), ``widgets``
(the table's parts are not updated, so nothing is drawn either), ``log``.
Needs valgrind (``apt-get install valgrind``); not part of `make bench` (a run takes a few
minutes). Run: ``python tests/bench/seat_instructions.py [--steps 115] [--without draw]``.
"""
from __future__ import annotations

import argparse
import asyncio
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))  # run as a script: the checkout's packages and tests

BASE_STEPS = 15  # what setting up the apps and the first moves cost is counted at both lengths
PARTS = ("draw", "widgets", "log")


def _leave_out(parts: list[str]) -> None:
    """Make the parts named do nothing (measuring what they cost)."""
    if "draw" in parts or "widgets" in parts:
        from textual.screen import Screen
        Screen._on_timer_update = lambda self: None  # type: ignore[method-assign]
    if "widgets" in parts:
        from tui.screens.table import TableScreen
        TableScreen.redraw = lambda self: None  # type: ignore[method-assign]
    if "log" in parts:
        from tui.widgets.table.talk import TableLog
        TableLog.write_events = lambda self, *args, **kwargs: None  # type: ignore[method-assign]


def play(steps: int, without: list[str]) -> None:
    """One run of the seat bench's game (what valgrind counts)."""
    from tests.bench import seat_bench
    from tui import textual_patches

    textual_patches.install()
    _leave_out(without)
    seat_bench.GAP = 0.02  # (valgrind is slow: the gap only has to let each seat draw)
    asyncio.run(seat_bench.per_update(steps, subtract_building=False))


def _counted(steps: int, without: list[str]) -> subprocess.Popen[str]:
    """valgrind counting one run of ``steps`` moves (started, not waited for)."""
    command = ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", sys.executable,
               __file__, "--play", str(steps)] + [a for part in without for a in ("--without", part)]
    return subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                            cwd=ROOT, env={**os.environ, "PYTHONHASHSEED": "0"})


def _count(run: subprocess.Popen[str]) -> int:
    _, err = run.communicate()
    found = re.search(r"Collected : (\d+)", err)
    if run.returncode != 0 or found is None:
        raise RuntimeError(f"valgrind's run failed: {err[-400:]}")
    return int(found.group(1))


def run(steps: int = 115, without: list[str] | None = None) -> dict[str, float]:
    if shutil.which("valgrind") is None:
        raise SystemExit("valgrind is not installed (apt-get install valgrind)")
    if steps <= BASE_STEPS:
        raise SystemExit(f"--steps must be over {BASE_STEPS}")
    parts = without or []
    long, short = _counted(steps, parts), _counted(BASE_STEPS, parts)  # (both at once: two cores)
    updates = 4 * (steps - BASE_STEPS)  # four seats, one update each per move
    return {"seat_updates": float(updates),
            "instructions_per_seat_update_millions": (_count(long) - _count(short)) / updates / 1e6}


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=115)
    parser.add_argument("--without", action="append", choices=PARTS, default=[])
    parser.add_argument("--play", type=int, help=argparse.SUPPRESS)  # (the run valgrind counts)
    args = parser.parse_args()
    if args.play is not None:
        play(args.play, args.without)
    else:
        for key, value in run(args.steps, args.without).items():
            print(f"{key:40s} {value:10.3f}")
