"""The collection order that spreads the slow tests over xdist's workers (tests/schedule.py)."""
from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from tests.schedule import _shares, ordered

KINDS = st.lists(st.sampled_from(["slow", "plain"]), max_size=200)


def cut(items: list[tuple[int, str]], workers: int) -> list[list[tuple[int, str]]]:
    """The first shares worksteal hands the workers, cut as its scheduler cuts them."""
    shares, start = [], 0
    for size in _shares(len(items), workers):
        shares.append(items[start:start + size])
        start += size
    return shares


@given(KINDS, st.integers(1, 30))
def test_every_test_once_and_the_slow_ones_spread_over_the_workers(kinds: list[str], workers: int) -> None:
    items = list(enumerate(kinds))
    result = ordered(items, workers, lambda i: i[1] == "slow")
    assert sorted(result) == items
    slow = kinds.count("slow")
    roomy = len(items) >= workers * (1 + slow)
    shares = cut(result, workers)
    counts = [sum(kind == "slow" for _, kind in share) for share in shares]
    if roomy:  # every share can hold its part
        assert max(counts) - min(counts) <= 1, counts
        for share in shares:
            n = sum(kind == "slow" for _, kind in share)
            assert all(kind == "slow" for _, kind in share[:n])  # they start the share
    plain = [i for i in result if i[1] == "plain"]
    assert plain == sorted(plain)  # the rest keep their collection order


def test_one_worker_runs_the_slow_tests_first() -> None:
    items = list(enumerate(["plain", "slow", "plain", "plain", "slow"]))
    result = ordered(items, 1, lambda i: i[1] == "slow")
    assert [kind for _, kind in result] == ["slow", "slow", "plain", "plain", "plain"]


def test_the_shares_are_worksteals() -> None:
    assert _shares(10, 3) == [3, 3, 4]
    assert sum(_shares(2636, 6)) == 2636
