"""One table as a session knows it: the last update from the server, and a log."""
from __future__ import annotations

import time
from collections import deque
from dataclasses import dataclass, field
import protocol as p

NO_VIEW = p.TableView()  # before the first update: an empty table

@dataclass
class TableModel:
    table_id: str
    update: p.TableUpdate | None = None
    deadline: float | None = None  # local monotonic time the turn timer runs out
    log: deque[p.LogEvent] = field(default_factory=lambda: deque(maxlen=p.HISTORY_MAX))
    chat: deque[p.ChatLine] = field(default_factory=lambda: deque(maxlen=100))
    senas: deque[p.SenaSeen] = field(default_factory=lambda: deque(maxlen=50))  # seen at this table
    last_hand_events: list[p.LogEvent] = field(default_factory=list)
    seal: p.DealSeal | None = None  # the match's commitment (its secret too once it is over)

    def apply(self, update: p.TableUpdate) -> None:
        self.update = update
        self.deadline = None if update.timer is None else time.monotonic() + update.timer
        if update.history:
            # Sent on (re)joining: the match so far. It replaces what this session had, so
            # events that come again are never logged twice.
            self.log.clear()
            self.last_hand_events = []
            self._fold(update.history)
        self._fold(update.events)

    def _fold(self, events: tuple[p.LogEvent, ...]) -> None:
        for event in events:
            self.log.append(event)
            if isinstance(event, p.HandDealt):
                self.last_hand_events = []
            self.last_hand_events.append(event)

    @property
    def view(self) -> p.TableView:
        return self.update.view if self.update is not None else NO_VIEW

    @property
    def seat(self) -> int | None:
        return self.update.seat if self.update is not None else None

    def seconds_left(self) -> int | None:
        if self.deadline is None:
            return None
        return max(0, int(self.deadline - time.monotonic() + 0.999))

    def name(self, seat: int | None) -> str:
        if seat is None or self.update is None or not 0 <= seat < len(self.update.seats):
            return "?"
        return self.update.seats[seat].name

    def team_of(self, seat: int) -> int | None:
        teams = self.view.teams
        return teams[seat] if 0 <= seat < len(teams) else None

    def my_team(self) -> int | None:
        return None if self.seat is None else self.team_of(self.seat)
