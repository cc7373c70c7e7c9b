"""The event loop's lag (server/ops/loop_lag.py): sampled always, told to the operator when late."""
from __future__ import annotations

import asyncio
import logging
import time

import pytest
from hypothesis import given
from hypothesis import strategies as st

from server.ops import loop_lag
from server.ops.loop_lag import LagWatch, summarise


@given(st.lists(st.floats(0, 5), min_size=1, max_size=300))
def test_the_summary_is_read_from_the_samples(lags: list[float]) -> None:
    summary = summarise(lags)
    assert summary.samples == len(lags)
    assert min(lags) <= summary.p50 <= summary.p99 <= summary.max == max(lags)
    assert summary.p50 in lags and summary.p99 in lags


def test_no_samples_no_lag() -> None:
    assert summarise([]) == loop_lag.LagSummary(0, 0.0, 0.0, 0.0)


async def test_a_callback_that_holds_the_loop_is_reported_at_warning(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger=loop_lag.__name__)
    watch = LagWatch(interval=0.01, window=0.2).start()
    try:
        asyncio.get_running_loop().call_soon(time.sleep, 0.3)  # a blocking call: the subject here
        deadline = time.monotonic() + 30
        while watch.last is None:
            assert time.monotonic() < deadline, "no window summarised"
            await asyncio.sleep(0.01)
    finally:
        await watch.stop()
    assert watch.last.max >= 0.25 and watch.last.late
    late = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert late and "event loop lag" in late[0].getMessage() and "max" in late[0].getMessage()
