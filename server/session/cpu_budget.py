"""CPU budgets: seconds of CPU a session's input may cost, alone and with its address's
other sessions (server/session/input_gate.py spends them)."""
from __future__ import annotations

from typing import Callable

from server.config import ServerConfig

MAX_DEBT = 0.25  # seconds of CPU a session may owe (at 80 ms/s: paid in about 3 s)
PACE_DEBT = 0.05  # seconds an address may owe its pace: its input waits at most 0.2 s for it
FIRST_ESTIMATE = 0.05  # seconds a session's first input is assumed to cost (see Prepaid)
ESTIMATE_WEIGHT = 0.3  # of the last input's cost in the running average


class CpuBudget:
    """Seconds of CPU: ``rate`` per second, at most ``burst`` saved; spending may go into debt
    (at most ``max_debt``). A ``pace`` says how fast, not how much: input waits for it but
    is never dropped for it, and a screen's repaints do not wait for it."""

    def __init__(self, rate: float, burst: float, clock: Callable[[], float],
                 max_debt: float = MAX_DEBT, pace: bool = False) -> None:
        self.rate, self.burst, self._clock, self.max_debt = rate, burst, clock, max_debt
        self.pace = pace
        self._left, self._stamp = burst, clock()

    def left(self) -> float:
        now = self._clock()
        self._left = min(self.burst, self._left + (now - self._stamp) * self.rate)
        self._stamp = now
        return self._left

    def spend(self, seconds: float) -> None:
        # The debt is capped: one costly input (a repaint at 300x100 after a resize) pauses
        # the session a few seconds at most, not the time the whole cost takes to refill.
        self._left = max(self.left() - seconds, -self.max_debt)

    def refund(self, seconds: float) -> None:
        self._left = min(self.burst, self.left() + seconds)

    def wait(self, pace: bool = True) -> float:
        """Seconds until the debt is paid (0 when there is none, or this is a pace and
        ``pace`` is False)."""
        if self.pace and not pace:
            return 0.0
        return max(0.0, -self.left() / self.rate) if self.rate > 0 else 1.0

    def saved_share(self) -> float:
        if self.pace:
            return 1.0
        return self.left() / self.burst if self.burst > 0 else 1.0


class Budgets:
    """A session's own budget and its address's, which every session from that address
    shares: eight connections flooding from one address took a whole core with a budget
    each (8 % of a core apiece, and the SSH layer's work on top). Spending charges both;
    input waits for the later of the two."""

    def __init__(self, *budgets: CpuBudget | Budgets) -> None:
        self.budgets = budgets

    def spend(self, seconds: float) -> None:
        for budget in self.budgets:
            budget.spend(seconds)

    def refund(self, seconds: float) -> None:
        for budget in self.budgets:
            budget.refund(seconds)

    def wait(self, pace: bool = True) -> float:
        return max(budget.wait(pace) for budget in self.budgets)

    def saved_share(self) -> float:
        return min(budget.saved_share() for budget in self.budgets)


class Prepaid:
    """Inputs paid for as each is let in, as much as the last ones cost (a running average),
    their charges set against that, and what was not used paid back once the App is done
    with them (``refund``). Charges come only as the App works: eight sessions of one
    address given their first keys and sizes in one turn of the loop, each budget still
    whole, spent half a second of the loop before the first of them was charged."""

    def __init__(self, budgets: Budgets) -> None:
        self.budgets = budgets
        self.estimate = FIRST_ESTIMATE
        self.ahead = 0.0  # spent on inputs let in and not charged yet
        self.admissions = 0
        self._since = 0.0  # charged since the last input was let in

    def admit(self) -> None:
        if self.admissions:
            self.estimate += ESTIMATE_WEIGHT * (self._since - self.estimate)
        self.admissions += 1
        self._since = 0.0
        top_up = self.estimate - self.ahead
        if top_up > 0:
            self.budgets.spend(top_up)
            self.ahead += top_up

    def charge(self, seconds: float) -> None:
        covered = min(self.ahead, seconds)
        self.ahead -= covered
        self.budgets.spend(seconds - covered)
        self._since += seconds

    def refund(self) -> None:
        if self.ahead > 0:
            self.budgets.refund(self.ahead)
            self.ahead = 0.0


def address_budget(config: ServerConfig, clock: Callable[[], float]) -> Budgets:
    """What the sessions of one address may spend together: ``input_cpu_per_address_per_second``
    (``input_cpu_burst`` saved up), and at most ``input_cpu_peak_per_second`` of the loop
    however much is saved. Without the second, eight connections spent a burst of 1.5 s in
    the flood's first second, and everyone else's moves waited 0.6-0.9 s."""
    return Budgets(
        CpuBudget(config.input_cpu_per_address_per_second, config.input_cpu_burst, clock),
        CpuBudget(config.input_cpu_peak_per_second, config.input_cpu_peak_burst, clock,
                  max_debt=PACE_DEBT, pace=True))
