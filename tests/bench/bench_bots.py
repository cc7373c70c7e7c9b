"""`make bench-bots` (issue 36): every bot pairing in every game at 2, 4 and 6 players, over
duplicate deals, with 95% Wilson intervals, CPU time per decision, and the hidden-information
(never-peek) check's count of compared decisions. Bounded and parallel.

    python tests/bench/bench_bots.py [--minutes 25] [--jobs N] [--pairs normal-today,...]
        [--variants argentino,...] [--sizes 2,4] [--peek-share 0.04] [--seed 1000] [--games N]
        [--hard-cpu 0.4]

Tables: each game at each size it is played at among 2, 4 and 6 players (the teams are
seat % 2; at 4 and 6 players both or all three partners of a team play the same level).
Levels play as a table runs them (server/table/moves.py): easy, normal and hard make honest
señas at each deal and read their partners' (engine/bots/senas.py); `today` is the old
rule-based bot of issue 6 (`engine.choose_action`, which never had señas); `random` picks
a legal move at random. The hard level searches with its production CPU budget (0.4 s) and
no wall cap (on a busy machine the wall cap would measure the load).

Duplicate deals (tests/bench/bot_bench.py): a game is played twice with the same dealing rng
and the two levels' teams swapped, so the same cards come out as long as both games last;
a cell's games are always whole pairs. Games are one game to the shortest target.

The budget: a total time in minutes (default 25, BENCH_BOTS_MINUTES in the Makefile). The
main process hands duplicate pairs to a pool of `--jobs` processes (default os.cpu_count()),
always to the cell furthest below its share of the time (hard-normal gets most of it: its
decisions are the slow ones), and starts a pair only if it is expected to finish before the
deadline (from that cell's pairs so far); whatever still runs at the deadline is stopped and
dropped, so the run ends within its budget and says so. Every cell first gets one pair.

Targets (issue 36), printed next to each line:
  normal-today   >= 55% at 4 and 6 players (point estimate)
  normal-random  >= 90% at 2 players, every game (point estimate)
  hard-normal    >= 60% with the LOWER end of the 95% interval, at 2 and 4 players, and
                 at most 0.5 s of CPU per hard decision (mean)
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time
from collections import Counter
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import engine  # noqa: E402
from engine.bots import hard  # noqa: E402
from engine.bots.senas import bot_senas, choose_with_senas  # noqa: E402
from tests.bench.bot_bench import wilson  # noqa: E402
from tests.engine.test_bot import short_options  # noqa: E402  (one game to the shortest target)

SIZES = (2, 4, 6)
# (level, opponent, share of the time): the hard level's games are the slow ones.
PAIRS = (("normal", "today", 0.22), ("normal", "random", 0.08), ("hard", "normal", 0.62),
         ("easy", "random", 0.04))
PEEK_SHARE = 0.04  # of the time, for the never-peek check
SIGNALLING = frozenset({"easy", "normal", "hard"})
HARD_CPU = 0.5  # s of CPU per hard decision (issue 36)
# The hard level's search budget here (--hard-cpu; the production one by default): a smaller
# one plays a before/after comparison of the search in a quarter of the time.
hard_limit = hard.TIME_LIMIT
FIRST_GUESS = {"hard": 40.0}  # s a pair may take before any was measured (x players / 2)

Table = tuple[str, int]  # (variant, players)
Cell = tuple[str, str, str, int]  # (level, opponent, variant, players)


def tables(variants: tuple[str, ...] | None, sizes: tuple[int, ...]) -> list[Table]:
    return [(spec.name, n) for spec in engine.variant_catalog() if spec.implemented
            and (variants is None or spec.name in variants)
            for n in spec.player_counts if n in sizes]


# ---------------------------------------------------------------- one game


def _decide(level: str, state: engine.State, seat: int, rules: engine.RuleSet,
            rng: random.Random, mates: tuple[tuple[int, str], ...]) -> engine.Action | None:
    v = engine.view(state, seat)
    if level == "random":
        return rng.choice(v.legal)
    if level == "today":
        return engine.choose_action(v, rules, rng)

    def at_level(view: engine.View, r: engine.RuleSet, g: random.Random) -> engine.Action | None:
        if level == "hard":
            return hard.choose(view, r, g, worlds=engine.Worlds(state, seat), time_limit=hard_limit,
                               wall_limit=None)
        return engine.choose_for_level(level, view, r, g)

    return choose_with_senas(v, rules, rng, mates, at_level, level=level)


def play_game(variant: str, n: int, levels: tuple[str, str], deal_seed: int, bot_seed: int,
              cpu: dict[str, list[float]]) -> int:
    """One game, team 0 (even seats) at levels[0] and team 1 at levels[1]; the winning team.
    `cpu[level]` gains [CPU seconds, decisions, slowest decision]."""
    rules = engine.get_ruleset(variant, **short_options(variant))
    deal_rng = random.Random(deal_seed)
    rngs = [random.Random(bot_seed * 16 + s) for s in range(n)]
    state, _ = engine.new_match(rules, n, deal_rng)
    made: dict[int, tuple[str, ...]] = {}
    hand = -1
    for _ in range(50_000):
        if state.match_over:
            break
        if state.deal_no != hand:  # the señas of this deal, made as it is dealt
            hand = state.deal_no
            made = {s: bot_senas(engine.view(state, s), rules) if levels[s % 2] in SIGNALLING else ()
                    for s in range(n)}
        chosen = None
        first: engine.View | None = None
        for seat in engine.view(state, None).awaiting:
            level = levels[seat % 2]
            mates = tuple((m, c) for m in range(n) if m != seat and m % 2 == seat % 2 for c in made[m])
            started = time.thread_time()
            chosen = _decide(level, state, seat, rules, rngs[seat], mates)
            spent = time.thread_time() - started
            figures = cpu.setdefault(level, [0.0, 0.0, 0.0])
            figures[0] += spent
            figures[1] += 1
            figures[2] = max(figures[2], spent)
            if chosen is not None:
                break
            first = first or engine.view(state, seat)
        if chosen is None:  # everyone would rather wait: the least committal move (as the table)
            assert first is not None, "nobody may act"
            by_call = {a.call: a for a in first.legal}
            chosen = next((a for a in first.legal if a.call is engine.Call.PLAY),
                          by_call.get(engine.Call.QUIERO, first.legal[0]))
        state, _ = engine.advance(state, chosen, deal_rng)
    assert state.winner is not None
    return state.winner


def play_pair(cell: Cell, seed: int) -> tuple[Cell, int, dict[str, list[float]], float]:
    """A duplicate pair of `cell`: (cell, the level's wins 0-2, CPU figures, wall seconds)."""
    level, opponent, variant, n = cell
    started = time.monotonic()
    cpu: dict[str, list[float]] = {}
    wins = int(play_game(variant, n, (level, opponent), seed, seed, cpu) == 0)
    wins += int(play_game(variant, n, (opponent, level), seed, seed + 1, cpu) == 1)
    return cell, wins, cpu, time.monotonic() - started


# ---------------------------------------------------------------- the never-peek check


def peek_round(table: Table, level: str, seed: int) -> tuple[str, int, int, str]:
    """One match of tests/engine/test_bots_never_peek.py's property for `level` at `table`:
    (level, decisions checked, worlds compared, failure or "")."""
    from tests.engine.test_bots_never_peek import LEVELS, play, same_decisions
    variant, n = table
    seen: Counter[str] = Counter()
    decisions = Counter[str]()
    check = same_decisions(LEVELS[level], seen)

    def counted(hand: object, state: engine.State, seat: int, rng: random.Random) -> None:
        before = seen["worlds"]
        check(hand, state, seat, rng)  # type: ignore[arg-type]
        if seen["worlds"] > before:
            decisions["checked"] += 1

    try:
        play(variant, n, seed, short_options(variant), 80, counted)
    except AssertionError as exc:
        return level, decisions["checked"], seen["worlds"], f"{variant} {n}p seed {seed}: {exc}"
    return level, decisions["checked"], seen["worlds"], ""


# ---------------------------------------------------------------- the scheduler


@dataclass
class Figures:
    wins: int = 0
    games: int = 0
    busy: float = 0.0  # wall seconds of its finished pairs
    pairs: list[float] = field(default_factory=list)
    cpu: dict[str, list[float]] = field(default_factory=dict)

    def add(self, wins: int, cpu: dict[str, list[float]], seconds: float) -> None:
        self.wins += wins
        self.games += 2
        self.busy += seconds
        self.pairs.append(seconds)
        for level, (total, count, slowest) in cpu.items():
            mine = self.cpu.setdefault(level, [0.0, 0.0, 0.0])
            mine[0] += total
            mine[1] += count
            mine[2] = max(mine[2], slowest)

    def expected(self, cell: Cell) -> float:
        """Wall seconds the next pair is expected to take."""
        if self.pairs:
            return max(self.pairs[-8:]) if len(self.pairs) < 3 else sum(self.pairs) / len(self.pairs) * 1.5
        return FIRST_GUESS.get(cell[0], 6.0) * cell[3] / 2


def _set_hard_limit(seconds: float) -> None:
    global hard_limit
    hard_limit = seconds


def run(minutes: float, jobs: int, cells: list[tuple[Cell, float]], peek: list[tuple[Table, str]],
        peek_share: float, seed0: int, games: int = 0) -> tuple[dict[Cell, Figures], dict[str, list[int]], list[str], float, int]:
    """Plays until the deadline; returns the figures per cell, the peek counts per level
    ([matches, decisions, worlds]), the peek failures, the seconds it ran, pairs dropped.
    `games` > 0: a cell stops there (whole pairs; the same seeds every run: before/after)."""
    started = time.monotonic()
    deadline = started + 60 * minutes
    figures = {cell: Figures() for cell, _ in cells}
    weight = dict(cells)
    peeked: dict[str, list[int]] = {level: [0, 0, 0] for _, level in peek}
    failures: list[str] = []
    peek_busy = 0.0
    peek_next = 0
    seeds = {cell: seed0 for cell, _ in cells}
    running: dict[Future[object], tuple[str, object, float]] = {}
    pool = ProcessPoolExecutor(jobs, initializer=_set_hard_limit, initargs=(hard_limit,))
    dropped = 0
    try:
        while True:
            now = time.monotonic()
            while len(running) < jobs:
                in_flight = Counter[object]()
                for kind, key, _ in running.values():
                    in_flight[key] += 1
                choice: tuple[float, str, object] | None = None
                if peek and time.monotonic() + 10 < deadline:
                    used = peek_busy / peek_share if peek_share else float("inf")
                    choice = (used + 10 * in_flight["peek"] / max(peek_share, 1e-9), "peek", "peek")
                for cell, _ in cells:
                    f = figures[cell]
                    cost = f.expected(cell)
                    if now + cost > deadline or games and f.games + 2 * in_flight[cell] >= games:
                        continue  # it would not finish in time, or it has its games
                    # Every cell gets a first pair before any gets a third.
                    used = (f.busy + cost * in_flight[cell]) / weight[cell] + (
                        0 if f.games + 2 * in_flight[cell] else -1e9)
                    if choice is None or used < choice[0]:
                        choice = (used, "pair", cell)
                if choice is None:
                    break
                _, kind, key = choice
                if kind == "peek":
                    table, level = peek[peek_next % len(peek)]
                    fut: Future[object] = pool.submit(peek_round, table, level, seed0 + peek_next)
                    running[fut] = ("peek", "peek", time.monotonic())
                    peek_next += 1
                else:
                    assert isinstance(key, tuple)
                    fut = pool.submit(play_pair, key, seeds[key])  # type: ignore[arg-type]
                    seeds[key] += 2
                    running[fut] = ("pair", key, time.monotonic())
            if not running:
                break
            done, _ = wait(list(running), timeout=max(deadline - time.monotonic(), 0.0),
                           return_when=FIRST_COMPLETED)
            if not done:  # the deadline: whatever still runs is dropped
                dropped = len(running)
                break
            for fut in done:
                kind, key, begun = running.pop(fut)
                result = fut.result()
                if kind == "peek":
                    peek_busy += time.monotonic() - begun
                    level, decisions, worlds, failure = result  # type: ignore[misc]
                    peeked[level][0] += 1
                    peeked[level][1] += decisions
                    peeked[level][2] += worlds
                    if failure:
                        failures.append(f"{level}: {failure}")
                else:
                    cell, wins, cpu, seconds = result  # type: ignore[misc]
                    figures[cell].add(wins, cpu, seconds)
    finally:
        if running:
            # Stop the pairs that would overrun (the executor cannot cancel a running task).
            for proc in list(getattr(pool, "_processes", {}).values()):
                proc.terminate()
        pool.shutdown(wait=True, cancel_futures=True)
    return figures, peeked, failures, time.monotonic() - started, dropped


# ---------------------------------------------------------------- the report


def target_of(cell: Cell, f: Figures, lo: float, share: float) -> str:
    level, opponent, _, n = cell
    if (level, opponent) == ("normal", "today") and n in (4, 6):
        return f">=55% point: {'MET' if share >= 0.55 else 'not met'}"
    if (level, opponent) == ("normal", "random") and n == 2:
        return f">=90% point: {'MET' if share >= 0.90 else 'not met'}"
    if (level, opponent) == ("hard", "normal") and n in (2, 4):
        total, count, _ = f.cpu.get("hard", [0.0, 0.0, 0.0])
        fast = count and total / count <= HARD_CPU
        ok = lo >= 0.60 and fast
        return (f">=60% low end, <={HARD_CPU}s CPU: {'MET' if ok else 'not met'}"
                f"{'' if fast else ' (CPU)'}")
    return ""


def report(figures: dict[Cell, Figures], peeked: dict[str, list[int]], failures: list[str],
           seconds: float, minutes: float, jobs: int, dropped: int) -> None:
    print(f"{'pairing':15s} {'game':10s} {'n':>2s} {'share':>6s} {'95% interval':>15s} {'games':>5s}  "
          f"CPU ms/decision (mean, max) per level   target")
    for cell, f in figures.items():
        level, opponent, variant, n = cell
        name = f"{level}-{opponent}"
        if not f.games:
            print(f"{name:15s} {variant:10s} {n:2d}  not measured (no time left for a pair)")
            continue
        share = f.wins / f.games
        lo, hi = wilson(f.wins, f.games)
        cpu = "  ".join(f"{lv} {1000 * t / c:.2f} ({1000 * m:.0f})"
                        for lv, (t, c, m) in sorted(f.cpu.items()) if c and lv != "random")
        print(f"{name:15s} {variant:10s} {n:2d} {share:6.1%} [{lo:6.1%}, {hi:6.1%}] {f.games:5d}  "
              f"{cpu:38s}  {target_of(cell, f, lo, share)}", flush=True)
    for level, (matches, decisions, worlds) in sorted(peeked.items()):
        print(f"never-peek {level:6s}: {decisions} decisions checked in {worlds} other worlds "
              f"({matches} matches)")
    total = sum(d for _, d, _ in peeked.values())
    print(f"never-peek: {total} decisions checked, "
          f"{'no level changed its decision' if not failures else f'{len(failures)} FAILED'}")
    for failure in failures:
        print(f"  FAILED {failure}")
    within = seconds <= 60 * minutes + 30
    print(f"ran {seconds / 60:.1f} min of a {minutes:g} min budget with {jobs} processes "
          f"({'within' if within else 'OVER'} the budget; {dropped} pair(s) stopped at the deadline)")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--minutes", type=float, default=25.0)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--pairs", default=None)
    parser.add_argument("--variants", default=None)
    parser.add_argument("--sizes", default="2,4,6")
    parser.add_argument("--peek-share", type=float, default=PEEK_SHARE)
    parser.add_argument("--seed", type=int, default=1000)
    parser.add_argument("--games", type=int, default=0,
                        help="games per cell at most (same seeds: a before/after comparison)")
    parser.add_argument("--hard-cpu", type=float, default=hard.TIME_LIMIT,
                        help="the hard level's CPU seconds per decision (default: production's)")
    args = parser.parse_args()
    _set_hard_limit(args.hard_cpu)
    sizes = tuple(int(x) for x in args.sizes.split(","))
    at = tables(tuple(args.variants.split(",")) if args.variants else None, sizes)
    todo = [(p, o, share) for p, o, share in PAIRS if args.pairs is None or f"{p}-{o}" in args.pairs.split(",")]
    cells: list[tuple[Cell, float]] = []
    for level, opponent, share in todo:
        for variant, n in at:
            cells.append(((level, opponent, variant, n), share / len(at)))
    peek = [(t, level) for t in at for level in ("easy", "normal", "hard")] if args.peek_share > 0 else []
    figures, peeked, failures, seconds, dropped = run(args.minutes, args.jobs, cells, peek,
                                                      args.peek_share, args.seed, args.games)
    report(figures, peeked, failures, seconds, args.minutes, args.jobs, dropped)
    if failures:
        sys.exit(1)


if __name__ == "__main__":
    main()
