"""How late the event loop runs what is due: the delay every player feels on top of the work.

A timer is asked for every ``INTERVAL``; how much later than asked it fires is the lag: a
callback that held the loop (a screen's layout, a blocking call) or more ready work than a
core can do. Each window the figures are logged: at INFO always (``make bench`` reads them),
at WARNING when the window's p99 passes ``WARN_P99`` or one wait passed ``WARN_MAX``, so an
operator at the default log level hears of it once a window, not once a timer. Every sample
also goes to the ``truco_event_loop_lag_seconds`` histogram of ``--metrics``.
"""
from __future__ import annotations

import asyncio
import logging
import os
from dataclasses import dataclass

from server.ops import metrics

log = logging.getLogger(__name__)

INTERVAL = 0.05  # seconds between samples: 20 wake-ups a second, nothing next to a session
# Seconds a summary covers (TRUCO_LOOP_LAG_WINDOW: the benchmarks ask for short windows).
WINDOW = float(os.environ.get("TRUCO_LOOP_LAG_WINDOW", "") or 10.0)
WARN_P99 = 0.010
WARN_MAX = 0.100
# TRUCO_LOOP_LAG_SAMPLES=1 (the benchmarks): each window's line also lists its samples, so a
# bench can take the p99 of a whole run. A window of a few seconds holds a few dozen samples,
# whose p99 is their largest: the worst window's p99 was the run's worst single wait.
WITH_SAMPLES = os.environ.get("TRUCO_LOOP_LAG_SAMPLES") == "1"


@dataclass(frozen=True)
class LagSummary:
    samples: int
    p50: float
    p99: float
    max: float

    @property
    def late(self) -> bool:
        return self.p99 > WARN_P99 or self.max > WARN_MAX

    def line(self) -> str:
        return (f"event loop lag over the last {WINDOW:g} s: p50 {self.p50 * 1000:.1f} ms, "
                f"p99 {self.p99 * 1000:.1f} ms, max {self.max * 1000:.1f} ms ({self.samples} samples)")


def summarise(lags: list[float]) -> LagSummary:
    ordered = sorted(lags)
    if not ordered:
        return LagSummary(0, 0.0, 0.0, 0.0)

    def pct(q: float) -> float:
        return ordered[min(len(ordered) - 1, int(q * len(ordered)))]

    return LagSummary(len(ordered), pct(0.5), pct(0.99), ordered[-1])


class LagWatch:
    """Samples the loop it runs on until ``stop``; ``last`` is the latest window's summary."""

    def __init__(self, interval: float = INTERVAL, window: float = WINDOW) -> None:
        self.interval, self.window = interval, window
        self.last: LagSummary | None = None
        self._task: asyncio.Task[None] | None = None

    def start(self) -> "LagWatch":
        self._task = asyncio.get_running_loop().create_task(self._run(), name="loop-lag")
        return self

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)

    async def _run(self) -> None:
        loop = asyncio.get_running_loop()
        lags: list[float] = []
        window_ends = loop.time() + self.window
        while True:
            due = loop.time() + self.interval
            await asyncio.sleep(self.interval)
            now = loop.time()
            lag = max(0.0, now - due)
            lags.append(lag)
            metrics.LOOP_LAG.observe(lag)
            if now >= window_ends:
                self.last = summary = summarise(lags)
                line = summary.line()
                if WITH_SAMPLES:
                    line += " samples ms: " + " ".join(f"{x * 1000:.1f}" for x in lags)
                log.log(logging.WARNING if summary.late else logging.INFO, line)
                lags.clear()
                window_ends = now + self.window
