"""How much reading a partner's señas is worth to the bot: bots that read them (seats 0 and
2) against bots that ignore them (1 and 3), every bot signalling honestly at each deal.

    PYTHONPATH=. python tests/bench/senas_bench.py [matches] [first seed] [level]

Both teams play the rule-based bot of issue 6 (`choose_action`), or with a level name
(easy, normal, hard) that level, the señas read as the table reads them for it.

Not part of `make bench` (it measures play, not speed): a figure for engine/bots/senas.py.
"""
from __future__ import annotations

import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import engine  # noqa: E402
from engine.bots.senas import bot_senas, choose_with_senas  # noqa: E402


def match(seed: int, level: str | None = None) -> int | None:
    """One 4-player Argentine match to 15; the winning team."""
    rules = engine.get_ruleset("argentino", target=15, match_games=1)
    rng = random.Random(seed)
    state, _ = engine.new_match(rules, 4, rng)
    made: dict[int, tuple[str, ...]] = {}
    deal = -1
    while not state.match_over:
        if state.needs_deal:
            state, _ = engine.deal(state, rng)
            continue
        if state.deal_no != deal:
            deal = state.deal_no
            made = {s: bot_senas(engine.view(state, s), rules) for s in range(4)}
        awaiting = engine.view(state, None).awaiting
        for seat in awaiting:
            view = engine.view(state, seat)
            mates = [(m, c) for m in range(4) if m != seat and m % 2 == seat % 2 for c in made[m]]
            if level is None:
                action = choose_with_senas(view, rules, rng, mates if seat % 2 == 0 else ())
            else:
                def at_level(v: engine.View, r: engine.RuleSet, g: random.Random) -> engine.Action | None:
                    return engine.choose_for_level(level, v, r, g)
                action = choose_with_senas(view, rules, rng, mates if seat % 2 == 0 else (), at_level,
                                           level=level)
            if action is not None:
                state, _ = engine.apply(state, action)
                break
        else:  # every awaiting seat would rather wait: the first one moves
            state, _ = engine.apply(state, engine.view(state, awaiting[0]).legal[0])
    return state.winner


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 300
    first = int(sys.argv[2]) if len(sys.argv) > 2 else 0
    level = sys.argv[3] if len(sys.argv) > 3 else None
    start = time.perf_counter()
    wins = sum(1 for seed in range(first, first + n) if match(seed, level) == 0)
    sd = (0.25 / n) ** 0.5
    who = f"{level} level" if level else "rule-based bot"
    print(f"{n} matches to 15 ({who}): the team reading señas won {wins} ({wins / n:.1%}, "
          f"one standard deviation {sd:.1%}) in {time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
