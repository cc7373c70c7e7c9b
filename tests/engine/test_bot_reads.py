"""The hard level's worlds take the other side's pending bet for what the normal level reads
in it (engine/bots/reads.py): hands that would make the bet are drawn more often."""
from __future__ import annotations

import random

from engine import view
from engine.bots import bot, hard, infer, normal, reads
from engine.core.worlds import Worlds
from engine.testing import act, scenario

DRAWS = 300


def _plain_and_read(deal: dict[int, str], call: str):  # type: ignore[no-untyped-def]
    """Seat 0 makes `call`; the hands drawn for it from seat 1's view without the read and
    with it (DRAWS each, seeded), and the state."""
    state, _ = scenario(deal, n=2, flor=False)
    state, _ = act(state, (0, call))
    v = view(state, 1)
    read = reads.pending(v, state.rules, normal.style_for(v))
    assert read is not None and read.seat == 0
    sampler = infer.Sampler(v, state.rules)
    rng = random.Random(1)
    plain = [sampler.draw(rng)[0] for _ in range(DRAWS)]
    weighed = [read.draw(lambda: sampler.draw(rng), rng)[0] for _ in range(DRAWS)]
    return plain, weighed, state


def test_an_envido_bet_makes_the_callers_high_values_likelier() -> None:
    plain, weighed, state = _plain_and_read({0: "7o 6o 4b", 1: "4e 12c 4c"}, "envido")

    def high_share(hands) -> float:  # type: ignore[no-untyped-def]
        return sum(1 for h in hands if state.rules.envido(h, None) >= 26) / len(hands)
    assert high_share(weighed) > high_share(plain) + 0.3, (high_share(plain), high_share(weighed))


def test_a_truco_bet_makes_the_callers_strong_hands_likelier() -> None:
    plain, weighed, state = _plain_and_read({0: "4e 5c 6b", 1: "7o 4c 12b"}, "truco")
    strength = bot.card_tables(state.rules, None).strength

    def mean_strength(hands) -> float:  # type: ignore[no-untyped-def]
        return sum(strength[c.code] for h in hands for c in h) / sum(len(h) for h in hands)
    assert mean_strength(weighed) > mean_strength(plain) + 1, (mean_strength(plain), mean_strength(weighed))


def test_nothing_is_read_without_a_bet_of_the_other_side() -> None:
    state, _ = scenario({0: "7o 6o 4b", 1: "4e 12c 4c"}, n=2, flor=False)
    assert reads.pending(view(state, 0), state.rules, normal.NORMAL) is None  # nothing called
    state, _ = act(state, (0, "envido"))
    assert reads.pending(view(state, 0), state.rules, normal.NORMAL) is None  # its own bet


class _Recorded(Worlds):
    """The worlds a search asked for, kept (the proposals are the drawn hidden hands)."""

    def __init__(self, state, seat: int) -> None:  # type: ignore[no-untyped-def]
        super().__init__(state, seat)
        self.proposals: list = []  # type: ignore[type-arg]

    def make(self, hands):  # type: ignore[no-untyped-def]
        self.proposals.append(hands)
        return super().make(hands)


def test_hard_searches_worlds_where_the_envido_caller_holds_what_it_bet_on() -> None:
    """Holding 24 against an envido: in the worlds hard plays out, the caller's value is
    mostly one the normal level reads the bet as (25 or more), not any value (the plain
    draw: 32 of 60)."""
    state, _ = scenario({0: "7o 6o 4b", 1: "4e 12c 4c"}, n=2, flor=False)
    state, _ = act(state, (0, "envido"))
    worlds = _Recorded(state, 1)
    hard.choose(view(state, 1), state.rules, random.Random(2), worlds=worlds, strict=True,
                n_worlds=60, time_limit=None)
    values = [state.rules.envido(hands[0], None) for hands in worlds.proposals]  # 25: the read's threshold
    assert len(values) == 60
    assert sum(1 for x in values if x >= 25) > 0.85 * len(values), sorted(values)
