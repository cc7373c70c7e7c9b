"""A cleared or emptied LRUCache leaves no ring of links for the garbage collector
(tui/textual_patches/acyclic_lru.py): what it held is freed by reference counting alone,
and the cache behaves as Textual's."""
from __future__ import annotations

import gc
import weakref
from collections.abc import Iterator
from contextlib import contextmanager

from hypothesis import given, strategies as st
from textual.cache import LRUCache

from tui.textual_patches import acyclic_lru


class _Value:
    """A cached value that can say whether it is still alive."""


@contextmanager
def _no_collector() -> Iterator[None]:
    """Only reference counting frees anything meanwhile."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def _filled(size: int, count: int) -> tuple[LRUCache[int, _Value], list[weakref.ref[_Value]]]:
    cache: LRUCache[int, _Value] = LRUCache(size)
    refs = []
    for key in range(count):
        value = _Value()
        refs.append(weakref.ref(value))
        cache[key] = value
    cache.get(0)  # (a link moved in the ring, as use does)
    return cache, refs


def test_clear_frees_every_value_without_the_collector() -> None:
    with _no_collector():
        cache, refs = _filled(10, 6)
        cache.clear()
        assert [ref() for ref in refs] == [None] * 6  # Textual's ring kept them all
        assert len(cache) == 0 and cache.get(3) is None
        cache[1] = kept = _Value()
        assert cache.get(1) is kept


def test_discarding_the_last_entry_frees_it_without_the_collector() -> None:
    with _no_collector():
        cache, refs = _filled(10, 1)
        cache.discard(0)
        assert refs[0]() is None  # Textual's link pointed at itself
        cache, refs = _filled(10, 3)
        cache.discard(1)
        cache.discard(0)
        assert refs[0]() is None and refs[1]() is None and refs[2]() is not None


def test_the_methods_are_replaced() -> None:
    assert LRUCache.clear is acyclic_lru.clear and LRUCache.discard is acyclic_lru.discard


# What the cache answers is Textual's: a model of an LRU of the same size, through any mix of
# sets, gets, discards and clears.
_STEPS = st.lists(st.tuples(st.sampled_from(["set", "get", "discard", "clear"]), st.integers(0, 6)),
                  max_size=60)


@given(size=st.integers(1, 4), steps=_STEPS)
def test_behaves_as_an_lru_cache(size: int, steps: list[tuple[str, int]]) -> None:
    cache: LRUCache[int, int] = LRUCache(size)
    model: list[tuple[int, int]] = []  # most recently used last
    for n, (op, key) in enumerate(steps):
        if op == "set":
            if key not in dict(model):  # (Textual's set leaves a present key as it was)
                model.append((key, n))
                if len(model) > size:
                    model.pop(0)
            cache[key] = n
        elif op == "get":
            expected = dict(model).get(key)
            if expected is not None:
                model.remove((key, expected))
                model.append((key, expected))
            assert cache.get(key) == expected
        elif op == "discard":
            model = [(k, v) for k, v in model if k != key]
            cache.discard(key)
        else:
            model.clear()
            cache.clear()
        assert sorted(cache.keys()) == sorted(k for k, _ in model)
