"""SharedLRU (tui/widgets/shared_rows.py), the bounded maps every session's drawing shares:
the bound always holds, what is found is what was last put, and what is used stays."""
from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from tui.widgets.shared_rows import SharedLRU

_OPS = st.lists(st.tuples(st.sampled_from(["get", "put", "limit"]), st.integers(0, 30), st.integers(1, 12)),
                max_size=200)


@settings(max_examples=300, deadline=None)
@given(st.integers(1, 12), _OPS)
def test_the_bound_holds_and_a_hit_is_the_last_value_put(limit: int, ops: list[tuple[str, int, int]]) -> None:
    cache: SharedLRU[int, tuple[int, int]] = SharedLRU(limit)
    last: dict[int, tuple[int, int]] = {}
    for n, (op, key, new_limit) in enumerate(ops):
        if op == "put":
            cache.put(key, (key, n))
            last[key] = (key, n)
            assert cache.get(key) == (key, n)  # just put: always found
        elif op == "get":
            found = cache.get(key)
            assert found is None or found == last[key]
        else:
            cache.limit = new_limit
            cache.put(key, (key, n))  # a lowered bound holds from the next put
            last[key] = (key, n)
        assert len(cache) <= cache.limit
        assert len(cache.keys()) == len(set(cache.keys())) == len(cache)


def test_what_is_used_stays_and_what_is_not_goes() -> None:
    cache: SharedLRU[str, int] = SharedLRU(10)
    cache.put("kept", 0)
    for n in range(100):  # many others come and go; "kept" is asked for in between
        cache.put(f"other {n}", n)
        if n % 4 == 0:
            assert cache.get("kept") == 0
    assert cache.get("other 0") is None  # long unused: dropped
    assert cache.get("other 99") == 99
    cache.clear()
    assert len(cache) == 0 and cache.get("kept") is None
