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
        if self.has(cost):
            self._tokens -= cost
            return True
        return False

    def has(self, cost: float = 1.0) -> bool:
        """Whether ``cost`` could be taken now (nothing is)."""
        now = self._clock()
        self._tokens = min(self.burst, self._tokens + (now - self._stamp) * self.rate)
        self._stamp = now
        return self._tokens >= cost


class Buckets:
    """A connection's own bucket and its address's, which every connection from that address
    shares: a token is taken from both, or from neither (more connections buy a flooder
    nothing)."""

    def __init__(self, own: TokenBucket, shared: TokenBucket) -> None:
        self.own, self.shared = own, shared

    def has(self, cost: float = 1.0) -> bool:
        return self.own.has(cost) and self.shared.has(cost)

    def take(self, cost: float = 1.0) -> bool:
        if not self.has(cost):
            return False
        self.own.take(cost)
        self.shared.take(cost)
        return True
