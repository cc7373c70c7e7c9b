"""Bot benchmark (issue 17): each level against the level below and against a random player,
2 players, per variant, over duplicate deals, with 95% intervals and time per decision.

Duplicate deals: a game is played twice with the same dealing rng (so the same cards come
out hand after hand as long as both games last) and the two bots in swapped seats; luck of
the cards then cancels within a pair. Games are one game to the shortest target each variant
offers (15 Argentine and Uruguayan, 12 Brazilian and Venezuelan), to get more of them.

Pairings: easy-random, normal-today (the issue 6 bot), normal-easy, normal-random,
hard-normal, hard-random. Targets: hard >= 60% of games against normal in every variant,
normal >= 55% against today's bot.

Each pairing and variant gets a share of a time budget and plays duplicate pairs until it is
spent (at least one pair); the figures say how many games it managed. In `make bench` the
budget is small (the whole bench stays under ten minutes) and the hard level searches with
its production limits (0.4 s of CPU time, up to 120 worlds; not the 1 s wall cap, which on a
busy machine would measure the load) so its figures are the real bot's;
each level's time per decision is reported as wall time and as CPU time (`_cpu`).

    python tests/bench/bot_bench.py [--seconds 120] [--variants argentino,paulista]
        [--pairs hard-normal,normal-today] [--jobs 1] [--games N]
"""

from __future__ import annotations

import argparse
import math
import random
import sys
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import engine  # noqa: E402
from engine.bots import hard  # noqa: E402

VARIANTS = (("argentino", {"target": 15, "match_games": 1}),
            ("uruguayo", {"target": 15, "match_games": 1}),
            ("paulista", {"target": 12, "match_games": 1}),
            ("venezolano", {"target": 12, "match_games": 1}))
# (player, opponent, share of the budget): the hard level's games are the slow ones.
PAIRS = (("easy", "random", 0.06), ("normal", "today", 0.2), ("normal", "easy", 0.08),
         ("normal", "random", 0.06), ("hard", "normal", 0.5), ("hard", "random", 0.1))
TARGETS = {"hard-normal": 0.60, "normal-today": 0.55}

Policy = Callable[[engine.View, engine.RuleSet, random.Random, engine.State, int],
                  engine.Action | None]


def _policy(name: str) -> Policy:
    if name == "random":
        return lambda v, rules, rng, state, seat: rng.choice(v.legal)
    if name == "today":
        return lambda v, rules, rng, state, seat: engine.choose_action(v, rules, rng)
    if name == "hard":
        # Its production CPU budget, without the wall cap: on a busy machine the wall cap
        # would cut the search short and measure the load instead of the bot.
        return lambda v, rules, rng, state, seat: hard.choose(
            v, rules, rng, worlds=engine.Worlds(state, seat), wall_limit=None)
    return lambda v, rules, rng, state, seat: engine.choose_for_level(
        name, v, rules, rng, worlds=engine.Worlds(state, seat))


def play_game(variant: str, options: dict[str, int], names: tuple[str, str], deal_seed: int,
              bot_seed: int, timings: dict[str, list[float]]) -> int:
    """One game between names[0] (seat 0) and names[1] (seat 1); returns the winning seat."""
    rules = engine.get_ruleset(variant, **options)
    deal_rng = random.Random(deal_seed)
    rngs = [random.Random(bot_seed * 2 + s) for s in range(2)]
    policies = [_policy(n) for n in names]
    state, _ = engine.new_match(rules, 2, deal_rng)
    for _ in range(20_000):
        if state.match_over:
            break
        chosen = None
        first: engine.View | None = None
        for seat in (0, 1):
            v = engine.view(state, seat)
            if not v.legal:
                continue
            first = first or v
            started, cpu = time.perf_counter(), time.thread_time()
            chosen = policies[seat](v, rules, rngs[seat], state, seat)
            timings.setdefault(names[seat], []).append(time.perf_counter() - started)
            # CPU time too: on a busy machine the wall time is mostly waiting for a core.
            timings.setdefault(f"{names[seat]}_cpu", []).append(time.thread_time() - cpu)
            if chosen is not None:
                break
        if chosen is None:
            assert first is not None, "nobody may act"
            chosen = next((a for a in first.legal if a.call is engine.Call.PLAY), first.legal[0])
        state, _ = engine.advance(state, chosen, deal_rng)
    assert state.winner is not None
    return state.winner  # a team; with two players team = seat


def play_pair(variant: str, options: dict[str, int], player: str, opponent: str,
              seed: int) -> tuple[int, dict[str, list[float]]]:
    """A duplicate pair: the same deals with the player in seat 0, then in seat 1; returns
    the player's wins (0, 1 or 2) and the decision times."""
    timings: dict[str, list[float]] = {}
    wins = 0
    if play_game(variant, options, (player, opponent), seed, seed, timings) == 0:
        wins += 1
    if play_game(variant, options, (opponent, player), seed, seed + 1, timings) == 1:
        wins += 1
    return wins, timings


def wilson(wins: int, n: int) -> tuple[float, float]:
    """95% Wilson score interval of a share."""
    if n == 0:
        return 0.0, 1.0
    z = 1.96
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def _measure(args: tuple[str, dict[str, int], str, str, float, int, float, int]) -> dict[str, object]:
    """Duplicate pairs until the budget is spent; at least one, unless the whole section's
    deadline has passed (then the pairing is reported as not measured). With `fixed` > 0,
    exactly that many games (rounded up to whole pairs) whatever the time they take: figures
    that do not depend on the machine's load."""
    variant, options, player, opponent, budget, seed0, deadline, fixed = args
    started = time.monotonic()
    wins = games = 0
    timings: dict[str, list[float]] = {}
    seed = seed0
    while (games < fixed if fixed else (
            time.monotonic() - started < budget
            or games == 0 and time.monotonic() < deadline)):
        w, t = play_pair(variant, options, player, opponent, seed)
        wins += w
        games += 2
        seed += 2
        for k, v in t.items():
            timings.setdefault(k, []).extend(v)
    if not games:
        return {"games": 0, "not_measured": "the section's time budget ran out"}
    lo, hi = wilson(wins, games)
    out: dict[str, object] = {"games": games, "win_share": round(wins / games, 3),
                              "ci95_low": round(lo, 3), "ci95_high": round(hi, 3),
                              "seconds": round(time.monotonic() - started, 1)}
    for name, ts in timings.items():
        if name.startswith("random"):
            continue
        ts.sort()
        out[f"{name}_ms_per_decision_mean"] = round(1000 * sum(ts) / len(ts), 3)
        out[f"{name}_ms_per_decision_p99"] = round(1000 * ts[int(0.99 * (len(ts) - 1))], 3)
        out[f"{name}_ms_per_decision_max"] = round(1000 * ts[-1], 3)
    return out


def run(seconds: float = 150.0, variants: tuple[str, ...] | None = None,
        pairs: tuple[str, ...] | None = None, jobs: int = 1,
        games: int = 0) -> dict[str, dict[str, object]]:
    chosen = [(v, o) for v, o in VARIANTS if variants is None or v in variants]
    todo = [(p, o, share) for p, o, share in PAIRS if pairs is None or f"{p}-{o}" in pairs]
    total_share = sum(share for _, _, share in todo) or 1.0
    tasks = []
    # A pairing's last duplicate pair may run past its share: the section stops starting
    # new pairings a quarter over its budget.
    deadline = time.monotonic() + 1.25 * seconds
    for variant, options in chosen:
        for player, opponent, share in todo:
            budget = seconds * share / total_share / len(chosen) * jobs
            tasks.append((variant, options, player, opponent, budget, 1000, deadline, games))
    if jobs > 1:
        with ProcessPoolExecutor(jobs) as pool:
            measured = list(pool.map(_measure, tasks))
    else:
        measured = [_measure(t) for t in tasks]
    results: dict[str, dict[str, object]] = {}
    for (variant, _, player, opponent, _, _, _, _), figures in zip(tasks, measured):
        key = f"{player}-{opponent}"
        if key in TARGETS:
            figures["target_share"] = TARGETS[key]
        results[f"{variant}.{key}"] = figures
    return results


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=150.0)
    parser.add_argument("--variants", default=None)
    parser.add_argument("--pairs", default=None)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--games", type=int, default=0,
                        help="games per pairing and variant instead of a time budget")
    args = parser.parse_args()
    results = run(args.seconds,
                  tuple(args.variants.split(",")) if args.variants else None,
                  tuple(args.pairs.split(",")) if args.pairs else None, args.jobs, args.games)
    for key, r in results.items():
        if not r["games"]:
            print(f"{key:28s} not measured: {r['not_measured']}")
            continue
        extra = "  ".join(f"{k}={v}" for k, v in r.items()
                          if k not in ("games", "win_share", "ci95_low", "ci95_high"))
        print(f"{key:28s} games={r['games']:<5} win={r['win_share']:.3f} "
              f"[{r['ci95_low']:.3f}, {r['ci95_high']:.3f}]  {extra}", flush=True)


if __name__ == "__main__":
    main()
