"""Each traced action's path, step by step (server/ops/action_trace.py).

Run a server with ``TRUCO_TRACE_ACTIONS=PATH`` (the benches pass their environment on to it),
then ``python tests/bench/trace_report.py PATH``: one line per action a player made that
moved a table, in milliseconds from the bytes of the key that made it (``input``), then the
median and the slowest of each step over all of them.

A step is paired with the one of the kind before it that came last, or of the kind after it
that came first: the key's bytes are the mover's last before the hub took its frame, the
frame the last before the hub routed it to the table; the table's frames are the first it
sent after the action was logged; a viewer's screen wrote its bytes after that. So a slow step shows where the time went, within
a millisecond or two (a key typed while the last move was still being drawn is paired with
that move, not its own, when it came first).
"""
from __future__ import annotations

import argparse
import bisect
import statistics
import sys
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # run as a script

from server.ops.action_trace import Step, read  # noqa: E402


@dataclass
class ActionPath:
    """One action: when each step happened (seconds), and each viewer's (sent, written)."""

    table: str
    seq: int
    mover: int
    steps: dict[str, float] = field(default_factory=dict)
    viewers: dict[int, tuple[float, float]] = field(default_factory=dict)


class Index:
    """The trace's steps by kind and key, in time order, for "the first after" and "the last before"."""

    def __init__(self, steps: list[Step]) -> None:
        self.times: dict[tuple[str, object], list[float]] = defaultdict(list)
        self.rows: dict[tuple[str, object], list[Step]] = defaultdict(list)
        for step in sorted(steps, key=lambda s: s[0]):
            t, kind, conn, table, _, _ = step
            key = (kind, table if kind in ("logged", "sent") else conn)
            self.times[key].append(t)
            self.rows[key].append(step)

    def last_before(self, kind: str, key: object, t: float) -> Step | None:
        times = self.times.get((kind, key), [])
        i = bisect.bisect_right(times, t)
        return self.rows[(kind, key)][i - 1] if i else None

    def first_after(self, kind: str, key: object, t: float) -> Step | None:
        times = self.times.get((kind, key), [])
        i = bisect.bisect_left(times, t)
        return self.rows[(kind, key)][i] if i < len(times) else None


def paths(steps: list[Step]) -> list[ActionPath]:
    """Every action that moved its table, with what the trace holds of its path."""
    index = Index(steps)
    out = []
    for t, kind, conn, table, seq, _ in sorted(steps, key=lambda s: s[0]):
        if kind != "applied" or conn is None or table is None or seq is None:
            continue
        act = index.last_before("act", conn, t)
        if act is None or act[4] == seq:  # refused: the table did not move
            continue
        path = ActionPath(table, seq, conn, {"act": act[0], "applied": t})
        if (routed := index.last_before("routed", conn, act[0])) is not None:
            path.steps["routed"] = routed[0]
        if (hub := index.last_before("hub", conn, path.steps.get("routed", act[0]))) is not None:
            path.steps["hub"] = hub[0]
            key = index.last_before("input", conn, hub[0])
            if key is not None and hub[0] - key[0] < KEY_TO_HUB:
                path.steps["input"] = key[0]
        logged = index.first_after("logged", table, t)
        after = logged[0] if logged is not None else t
        if logged is not None:
            path.steps["logged"] = logged[0]
        sends = index.rows.get(("sent", table), [])
        for sent in sends[bisect.bisect_left(index.times[("sent", table)], after):]:
            if sent[4] is not None and sent[4] >= seq and sent[2] not in path.viewers:
                written = index.first_after("written", sent[2], sent[0])
                if written is not None:
                    path.viewers[sent[2]] = (sent[0], written[0])  # type: ignore[index]
        out.append(path)
    return out


ORDER = ("input", "hub", "routed", "act", "applied", "logged")
# Older bytes than this before the hub took the frame did not make it: a program on the
# ``truco`` subsystem sends frames, not keys (its actions' paths start at the hub).
KEY_TO_HUB = 1.0


def describe(path: ActionPath) -> str:
    start = path.steps.get("input", path.steps["act"])
    parts = [f"{name} {(path.steps[name] - start) * 1000:6.1f}" for name in ORDER if name in path.steps]
    for conn, (sent, written) in sorted(path.viewers.items()):
        parts.append(f"| {conn}: sent {(sent - start) * 1000:5.1f} written {(written - start) * 1000:5.1f}")
    return f"{path.table} seq {path.seq:4d} by {path.mover}: " + " ".join(parts)


def summary(all_paths: list[ActionPath]) -> dict[str, tuple[float, float]]:
    """Each step's time from the one before it (ms): median and slowest over the actions."""
    spans: dict[str, list[float]] = defaultdict(list)
    for path in all_paths:
        present = [name for name in ORDER if name in path.steps]
        for before, after in zip(present, present[1:]):
            spans[f"{before}->{after}"].append((path.steps[after] - path.steps[before]) * 1000)
        last = path.steps.get("logged", path.steps["applied"])
        for sent, written in path.viewers.values():
            spans["->sent"].append((sent - last) * 1000)
            spans["sent->written"].append((written - sent) * 1000)
            if "input" in path.steps:
                spans["input->written"].append((written - path.steps["input"]) * 1000)
    return {name: (statistics.median(values), max(values)) for name, values in spans.items()}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("trace", type=Path)
    parser.add_argument("--quiet", action="store_true", help="the summary only")
    args = parser.parse_args(argv)
    found = paths(read(args.trace))
    if not args.quiet:
        for path in found:
            print(describe(path))
    print(f"{len(found)} actions; step: median, slowest (ms)")
    for name, (median, worst) in summary(found).items():
        print(f"  {name:16s} {median:7.1f} {worst:7.1f}")


if __name__ == "__main__":
    main()
