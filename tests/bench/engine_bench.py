"""Engine benchmark: random legal hands per second for 2, 4 and 6 players, on one core,
for the Argentine game and (keys "uruguayo-2p", "venezolano-2p" ...) the other variants.

Each step asks `all_legal_actions` and applies one of them (mostly card plays, so hands
reach their tricks), dealing with a seeded rng whenever a hand ends: the same calls a table
actor makes, validation included. Run: `python tests/bench/engine_bench.py [--profile]`.
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

from engine import Call, HandEnded, advance, all_legal_actions, get_ruleset, new_match  # noqa: E402


def play_hands(
    n_players: int, hands: int, seed: int = 1, variant: str = "argentino"
) -> tuple[int, int]:
    """Play at least `hands` hands; returns (hands played, actions applied)."""
    rules = get_ruleset(variant)
    rng = random.Random(seed)
    state, _ = new_match(rules, n_players, rng)
    played = actions = 0
    while played < hands:
        if state.match_over:
            state, _ = new_match(rules, n_players, rng)
        legal = all_legal_actions(state)
        plays = [a for a in legal if a.call in (Call.PLAY, Call.PLAY_BLIND)]
        action = rng.choice(plays) if plays and rng.random() < 0.75 else rng.choice(legal)
        state, events = advance(state, action, rng)
        actions += 1
        played += sum(1 for e in events if isinstance(e, HandEnded))
    return played, actions


# Argentine sizes keep their historical keys ("2p"); other variants are "<variant>-<n>p".
VARIANT_SIZES = (("uruguayo", (2, 3, 4, 6)), ("paulista", (2, 4)), ("venezolano", (2, 4)))


def run(seconds_per_size: float = 2.0) -> dict[str, dict[str, float]]:
    results: dict[str, dict[str, float]] = {}
    cases = [("argentino", n, f"{n}p") for n in (2, 4, 6)] + [
        (variant, n, f"{variant}-{n}p") for variant, sizes in VARIANT_SIZES for n in sizes
    ]
    for variant, n, key in cases:
        play_hands(n, 200, variant=variant)  # warm-up
        hands = actions = 0
        start = time.perf_counter()
        elapsed = 0.0
        while elapsed < seconds_per_size:
            h, a = play_hands(n, 500, seed=hands + 7, variant=variant)
            hands += h
            actions += a
            elapsed = time.perf_counter() - start
        results[key] = {
            "hands": hands,
            "seconds": round(elapsed, 3),
            "hands_per_second": round(hands / elapsed),
            "actions_per_second": round(actions / elapsed),
        }
    return results


def main() -> None:
    if "--profile" in sys.argv:
        import cProfile
        import pstats

        cProfile.run("play_hands(2, 5000)", "/tmp/engine_bench.prof")
        pstats.Stats("/tmp/engine_bench.prof").sort_stats("tottime").print_stats(15)
        return
    results = run()
    print(f"{'players':>14} {'hands':>8} {'seconds':>8} {'hands/s':>10} {'actions/s':>10}")
    for name, r in results.items():
        print(f"{name:>14} {r['hands']:>8} {r['seconds']:>8} {r['hands_per_second']:>10} "
              f"{r['actions_per_second']:>10}")


if __name__ == "__main__":
    main()
