"""The order tests are collected in, which is the order pytest-xdist hands them out.

xdist's ``worksteal`` gives each worker one contiguous share of the collection (sizes as
``_shares`` computes them) and an idle worker later steals the *tail* of the busiest one's
share. So the tests marked ``slow`` must begin every share, dealt round-robin: sorted to the
front of the whole collection they all went to the first worker, which ran them one after
another while the others ran out of work (the suite's end waited for it).
"""
from __future__ import annotations

from typing import Callable, Sequence, TypeVar

import pytest


T = TypeVar("T")


def marked(name: str) -> Callable[[pytest.Item], bool]:
    return lambda item: item.get_closest_marker(name) is not None


def worker_count(config: pytest.Config) -> int:
    """How many workers share the collection (1 without xdist)."""
    workerinput = getattr(config, "workerinput", None)
    if workerinput is not None:
        return int(workerinput["workercount"])
    return 1


def _shares(total: int, workers: int) -> list[int]:
    """The sizes of the workers' first shares, as worksteal's ``check_schedule`` cuts them."""
    sizes, left = [], total
    for i in range(workers):
        size = left // (workers - i)
        sizes.append(size)
        left -= size
    return sizes


def ordered(items: Sequence[T], workers: int, is_slow: Callable[[T], bool]) -> list[T]:
    """``items`` reordered so that each worker's share starts with its part of the slow
    tests; otherwise in collection order."""
    slow = [item for item in items if is_slow(item)]
    rest = [item for item in items if not is_slow(item)]
    workers = max(1, min(workers, len(items)))
    firsts: list[list[T]] = [slow[i::workers] for i in range(workers)]
    result: list[T] = []
    for i, size in enumerate(_shares(len(items), workers)):
        middle = size - len(firsts[i])
        taken, rest = rest[:max(0, middle)], rest[max(0, middle):]
        result += firsts[i] + taken
    return result + rest  # empty unless a share was smaller than its slow tests
