"""A table's waiting room: choosing seats, and so partners (``m``), and its start (Enter).

A player moves to a free seat, picked from the list of seats (``seat_picker``); the
table's creator may also swap any two seats, bots included: first the seat to move, then
the one to swap it with. The server checks every move (``SwapSeats``); partners sit on
alternate seats (1 and 3 against 2 and 4; 1, 3 and 5 against 2, 4 and 6). At a table whose
creator starts it (``TableInfo.owner_starts``) the creator's Enter starts the game once
every seat is taken (``StartTable``).
"""
from __future__ import annotations


import protocol as p
from tui.screens.table_dialogs import over_table
from tui.screens.table_mixin import TableMixin


class SeatChoice(TableMixin):
    """Mixed into the table screen: the waiting room's ``m`` and Enter keys and its line."""

    _room_owner: str | None = None  # the waiting room's owner when last drawn (a handover is said)

    def _owner(self) -> bool:
        info = self._info()
        return info is not None and info.owner == self.app.model.me

    def start_usable(self) -> bool:
        """Enter starts a waiting room's game: its owner's key, once every seat is taken."""
        info = self._info()
        return self.seats_usable() and info is not None and info.owner_starts and None not in info.seats and self._owner()

    def action_start(self) -> None:
        self.app.send(p.StartTable(table_id=self.table_id))

    def waiting_line(self, info: p.TableInfo | None, free: int) -> str:
        """What a waiting room waits for: players, then its owner's start (Enter)."""
        if info is None or not info.owner_starts:
            return ""  # the table starts when every seat is taken
        mine = self._owner()
        before = self._room_owner
        self._room_owner = info.owner
        if mine and before not in (None, info.owner):  # the creator left: the room is mine now
            self.app.notify_text(self.tr("table.waiting_room.yours", before=before))
        if free:
            key = "table.waiting_room.free_mine" if mine else "table.waiting_room.free"
            return str(self.tr(key, n=free, owner=info.owner))
        key = "table.waiting_room.full_mine" if mine else "table.waiting_room.full"
        return str(self.tr(key, owner=info.owner))

    def seats_usable(self) -> bool:
        """Before the game, at a table with partners, for a player seated at it: the creator
        always (any two seats swap), the others while there is a free seat to move to."""
        info = self._info()
        seat = self.app.model.seat
        return (self.table.update is None and info is not None and info.status == "waiting"
                and len(info.seats) >= 4 and seat is not None and self.app.model.table_id == self.table_id
                and (None in info.seats or info.owner == self.app.model.me))

    def action_seats(self) -> None:
        from tui.screens.seat_picker import SeatPickerScreen

        info = self._info()
        mine = self.app.model.seat
        if info is None or mine is None:
            return
        count = len(info.seats)
        if not self._owner():  # to a free seat
            free = [i for i, name in enumerate(info.seats) if name is None]
            self.app.push_screen(over_table(SeatPickerScreen(
                self.tr("table.seat_picker.move"), info, free, mine)), lambda b: self._swap(mine, b))
            return

        def first(a: int | None) -> None:
            if a is None:
                return
            who = info.seats[a] or self.tr("table.free_seat")
            self.app.push_screen(over_table(SeatPickerScreen(
                self.tr("table.seat_picker.swap_with", n=a + 1, who=who), info,
                [i for i in range(count) if i != a], mine)), lambda b: self._swap(a, b))

        self.app.push_screen(over_table(SeatPickerScreen(
            self.tr("table.seat_picker.which"), info, range(count), mine)), first)

    def _swap(self, a: int, b: int | None) -> None:
        if b is not None and a != b:
            self.app.send(p.SwapSeats(table_id=self.table_id, a=a, b=b))
