"""What each viewer is sent: the state and the events projected for its seat, as frames.

A seat sees its own cards; a spectator (``seat`` None) sees none. Pure functions of the
table's data: the actor decides who gets which frame and when.
"""
from __future__ import annotations

from collections.abc import Iterable

import engine
import protocol as p
from server.table.log_events import log_event, log_events
from server.table.occupant import Occupant
from server.table.table_view import table_view

EVENTS_PER_UPDATE = 64  # the newest events of one step a frame carries


class ViewsOf:
    """The views of a table's latest state, each viewer's worked out once and the parts
    they share once for all of them (``engine.views``): a move is shown to every viewer."""

    def __init__(self) -> None:
        self._state: engine.State | None = None
        self._views: dict[int | None, engine.View] = {}

    def of(self, state: engine.State, seat: int | None, viewers: Iterable[int | None]) -> engine.View:
        """``engine.view(state, seat)``; the first one asked of a state makes every viewer's."""
        if state is not self._state:
            self._state, self._views = state, engine.views(state, {*viewers, seat})
        found = self._views.get(seat)
        if found is None:
            found = self._views[seat] = engine.view(state, seat)
        return found


def table_update(table_id: str, seq: int, seat: int | None, seats: list[Occupant],
                 view: engine.View, events: list[engine.Event], *, waiting: tuple[int, ...],
                 timer: float | None, rematch_votes: Iterable[int],
                 history: list[p.LogEvent] | None = None) -> bytes:
    """One viewer's encoded TableUpdate, ``view`` being its view of the table's state
    (ProtocolError if over the frame cap)."""
    projected = log_events(events, seat)
    return p.encode(
        p.TableUpdate(
            table_id=table_id, seq=seq, seat=seat,
            seats=tuple(o.info() for o in seats),
            view=table_view(view),
            events=tuple(projected[-EVENTS_PER_UPDATE:]),
            waiting=waiting, timer=timer,
            rematch_votes=tuple(sorted(rematch_votes)),
            resume_code=seats[seat].resume if seat is not None else "",
            history=tuple(history or ()),
        )
    )


def history(events: list[engine.Event], seat: int | None) -> list[list[p.LogEvent]]:
    """The current match's events as ``seat`` may see them, cut into hands (the match
    start joins the first hand): the latest whole hands within ``HISTORY_MAX`` events,
    or the end of the current hand if that alone is longer. Oldest first."""
    hands: list[list[p.LogEvent]] = []  # newest first
    current: list[p.LogEvent] = []  # newest first
    count = 0
    for event in reversed(events):  # a long match costs only what is sent
        visible = engine.project_event(event, seat)
        if visible is None:
            continue
        current.append(log_event(visible))
        if isinstance(event, engine.HandDealt):
            hands.append(current[::-1])
            count += len(current)
            current = []
            if count >= p.HISTORY_MAX:
                break
    if current:  # what came before the first deal (the match start) opens hand 1
        if hands:
            hands[-1] = current[::-1] + hands[-1]
        else:
            hands.append(current[::-1])
    kept: list[list[p.LogEvent]] = []
    total = 0
    for hand in hands:
        if kept and total + len(hand) > p.HISTORY_MAX:
            break
        kept.append(hand)
        total += len(hand)
    if total > p.HISTORY_MAX:
        kept = [kept[0][-p.HISTORY_MAX:]]
    return kept[::-1]
