"""Protocol benchmark: encoding and decoding the message a table sends most, a table update
for one seat of a 4-player game (its view, events and seats), over 200 real game states.

The server does both for every watching seat on every action (the table actor encodes,
each session's app decodes), so this is part of the CPU per action per seat.
Run: `python tests/bench/codec_bench.py`.
"""
from __future__ import annotations

import random
import sys
import time
from pathlib import Path

# Bench files are run as scripts (`python tests/bench/run.py`, the Makefile's bench target;
# load_bench also starts itself as a worker script, restart_bench can time another checkout):
# Python puts only this folder on sys.path then, so the lines below add what it imports.
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import engine  # noqa: E402
import protocol as p  # noqa: E402
from server.table.log_events import log_events  # noqa: E402
from server.table.table_view import table_view  # noqa: E402


def table_updates(count: int = 200, seed: int = 1) -> list[p.TableUpdate]:
    rules = engine.get_ruleset("argentino")
    rng = random.Random(seed)
    state, events = engine.new_match(rules, 4, rng)
    updates = []
    for seq in range(count):
        view = engine.view(state, 0)
        updates.append(p.TableUpdate(
            table_id="t1", seq=seq, seat=0,
            seats=tuple(p.SeatInfo(name=f"player {i}") for i in range(4)),
            view=table_view(view), events=tuple(log_events(events, 0)),
            waiting=tuple(view.awaiting),
        ))
        if state.match_over:
            state, events = engine.new_match(rules, 4, rng)
        else:
            state, events = engine.advance(state, rng.choice(engine.all_legal_actions(state)), rng)
    return updates


def run(rounds: int = 10) -> dict[str, float]:
    updates = table_updates()
    started = time.perf_counter()
    for _ in range(rounds):
        frames = [p.encode(u) for u in updates]
    encode = (time.perf_counter() - started) / (rounds * len(updates))
    started = time.perf_counter()
    for _ in range(rounds):
        for frame in frames:
            p.decode(frame)
    decode = (time.perf_counter() - started) / (rounds * len(updates))
    hands = sum(1 for u in updates for e in u.events if isinstance(e, p.HandDealt))
    return {
        "table_update_encode_ms": encode * 1000,
        "table_update_decode_ms": decode * 1000,
        "table_update_bytes_mean": sum(map(len, frames)) / len(frames),
        # What one seat is sent per hand dealt in these 200 states (every update it gets).
        "table_update_bytes_per_hand": sum(map(len, frames)) / max(1, hands),
    }


if __name__ == "__main__":
    for key, value in run().items():
        print(f"{key:32s} {value:10.3f}")
