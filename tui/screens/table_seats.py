"""Choosing seats, and so partners, in a table's waiting room (``m``).

A player moves to a free seat by its number; the table's creator may also swap any two
seats ("2 3"), bots included. The server checks every move (``SwapSeats``); partners sit
on alternate seats (1 and 3 against 2 and 4; 1, 3 and 5 against 2, 4 and 6).
"""
from __future__ import annotations

from typing import Any

from rich.text import Text

import protocol as p
from tui.screens.table_dialogs import over_table


def parse_seats(text: str, mine: int, seats: int) -> tuple[int, int] | None:
    """"3" -> (mine, 2); "2 4" -> (1, 3): the 0-based seats to swap, or None if unreadable."""
    numbers = text.replace(",", " ").split()
    if not 1 <= len(numbers) <= 2 or not all(n.isdigit() for n in numbers):
        return None
    picked = [int(n) - 1 for n in numbers]
    a, b = (mine, picked[0]) if len(picked) == 1 else (picked[0], picked[1])
    if a == b or not (0 <= a < seats and 0 <= b < seats):
        return None
    return a, b


class SeatChoice:
    """Mixed into the table screen: the waiting room's ``m`` key."""

    app: Any
    table_id: str
    table: Any
    tr: Any
    _info: Any
    _say: Any

    def seats_usable(self) -> bool:
        """Before the game, at a table with partners, for a player seated at it."""
        info = self._info()
        seat = self.app.model.seat
        return (self.table.update is None and info is not None and info.status == "waiting"
                and len(info.seats) >= 4 and seat is not None and self.app.model.table_id == self.table_id)

    def action_seats(self) -> None:
        from tui.screens.prompt import PromptScreen

        info = self._info()
        mine = self.app.model.seat
        if info is None or mine is None:
            return
        owner = info.owner == self.app.model.me
        free = ", ".join(str(i + 1) for i, name in enumerate(info.seats) if name is None) or "-"
        title = self.tr("table.seats_prompt_owner" if owner else "table.seats_prompt", free=free)

        def chosen(text: str | None) -> None:
            if not text:
                return
            pair = parse_seats(text, mine, len(info.seats))
            if pair is None:
                self._say(Text(self.tr("table.seats_bad", n=len(info.seats)), style="bold red"))
                return
            self.app.send(p.SwapSeats(table_id=self.table_id, a=pair[0], b=pair[1]))

        self.app.push_screen(over_table(PromptScreen(
            title, "3" if not owner else "2 3", 5, [("Enter", self.tr("key.accept")), ("Esc", self.tr("key.cancel"))])),
            chosen)
