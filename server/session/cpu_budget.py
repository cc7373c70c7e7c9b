"""CPU budgets: seconds of CPU a session's input may cost, alone and with its address's
other sessions (server/session/input_gate.py spends them)."""
from __future__ import annotations

from typing import Callable

MAX_DEBT = 0.25  # seconds of CPU a session may owe (at 80 ms/s: paid in about 3 s)


class CpuBudget:
    """Seconds of CPU: ``rate`` per second, at most ``burst`` saved; spending may go into debt."""

    def __init__(self, rate: float, burst: float, clock: Callable[[], float]) -> None:
        self.rate, self.burst, self._clock = rate, burst, clock
        self._left, self._stamp = burst, clock()

    def left(self) -> float:
        now = self._clock()
        self._left = min(self.burst, self._left + (now - self._stamp) * self.rate)
        self._stamp = now
        return self._left

    def spend(self, seconds: float) -> None:
        # The debt is capped: one costly input (a repaint at 300x100 after a resize) pauses
        # the session a few seconds at most, not the time the whole cost takes to refill.
        self._left = max(self.left() - seconds, -MAX_DEBT)

    def wait(self) -> float:
        """Seconds until the debt is paid (0 when there is none)."""
        return max(0.0, -self.left() / self.rate) if self.rate > 0 else 1.0

    def saved_share(self) -> float:
        return self.left() / self.burst if self.burst > 0 else 1.0


class Budgets:
    """A session's own budget and its address's, which every session from that address
    shares: eight connections flooding from one address took a whole core with a budget
    each (8 % of a core apiece, and the SSH layer's work on top). Spending charges both;
    input waits for the later of the two."""

    def __init__(self, *budgets: CpuBudget) -> None:
        self.budgets = budgets

    def spend(self, seconds: float) -> None:
        for budget in self.budgets:
            budget.spend(seconds)

    def wait(self) -> float:
        return max(budget.wait() for budget in self.budgets)

    def saved_share(self) -> float:
        return min(budget.saved_share() for budget in self.budgets)
