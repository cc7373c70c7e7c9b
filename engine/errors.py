"""The typed error every rejected action raises."""

from __future__ import annotations


class IllegalAction(Exception):
    """An action the rules do not allow now; `reason` is a sentence for a player."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason
