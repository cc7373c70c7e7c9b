"""Token buckets for per-connection and per-user limits."""
from __future__ import annotations

import time
from typing import Callable


class TokenBucket:
    """``rate`` tokens per second, at most ``burst`` saved up."""

    def __init__(self, rate: float, burst: int, clock: Callable[[], float] = time.monotonic):
        self.rate = rate
        self.burst = float(burst)
        self._tokens = float(burst)
        self._clock = clock
        self._stamp = clock()

    def full(self) -> bool:
        """True when nothing has been taken lately (the bucket refilled)."""
        self.take(0)
        return self._tokens >= self.burst

    def take(self, cost: float = 1.0) -> bool:
        now = self._clock()
        self._tokens = min(self.burst, self._tokens + (now - self._stamp) * self.rate)
        self._stamp = now
        if self._tokens >= cost:
            self._tokens -= cost
            return True
        return False
