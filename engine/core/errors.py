"""The typed error every rejected action raises, and the reason it carries."""

from __future__ import annotations


class Reason(str):
    """Why an action is refused: an English sentence (for logs and any client) that also
    carries a stable `code`, so that a UI can say it in the player's language."""

    code: str

    def __new__(cls, code: str, text: str) -> Reason:
        reason = super().__new__(cls, text)
        reason.code = code
        return reason


class IllegalAction(Exception):
    """An action the rules do not allow now; `reason` is a sentence for a player and `code`
    names it ("illegal" when the reason has no code of its own)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason
        self.code = reason.code if isinstance(reason, Reason) else "illegal"
