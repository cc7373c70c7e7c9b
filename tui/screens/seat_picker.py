"""Choosing a seat, and so a partner, from a list: joining a table with partners (``j`` in the
lobby) and moving in its waiting room (``m``).

Each row shows the seat's number, who sits there (or that it is free) and its team:
partners sit on alternate seats (1 and 3 against 2 and 4; 1, 3 and 5 against 2, 4 and 6).
The seats that cannot be chosen are shown dimmed and skipped by the cursor; Enter picks the
highlighted seat, its number key picks it at once, Esc goes back.
"""
from __future__ import annotations

from typing import Callable, Iterable

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

import protocol as p
from tui.screens.base import TrucoModalScreen, unless_popped
from tui.widgets.keybar import KeyBar
from tui.widgets.table.levels import BOT_LEVEL_KEYS


def seat_row(tr: Callable[..., str], info: p.TableInfo, index: int, mine: int | None) -> Text:
    """"3. beto  Team 1" (a name is never markup: Text)."""
    name = info.seats[index]
    row = Text(f"{index + 1}. ")
    row.append(name or tr("table.free_seat"), style="bold" if name else "dim italic")
    if name is not None and index < len(info.bots) and info.bots[index]:
        level = BOT_LEVEL_KEYS.get(info.bot_levels[index] if index < len(info.bot_levels) else "")
        row.append(" (" + (tr("table.bot_with_level", level=tr(level)) if level else "bot") + ")", style="dim")
    if index == mine:
        row.append(" " + tr("table.seat_picker.you"), style="bold green")
    if len(info.seats) >= 4:
        row.append("  " + tr("table.team_n", n=index % 2 + 1), style="cyan")
    return row


def free_seats(info: p.TableInfo) -> list[int]:
    """The seats one may sit down in: the free ones, while the table waits for players."""
    return [i for i, name in enumerate(info.seats) if name is None] if info.status == "waiting" else []


class SeatPickerScreen(TrucoModalScreen[int | None]):
    """The seats of ``info``, ``allowed`` ones choosable; dismissed with the 0-based seat."""

    BINDINGS = [Binding("escape", "cancel", "", show=False),
                *(Binding(str(n), f"pick({n - 1})", "", show=False) for n in range(1, 9))]
    DEFAULT_CSS = "SeatPickerScreen OptionList { height: auto; max-height: 8; }"

    def __init__(self, title: str, info: p.TableInfo, allowed: Iterable[int], mine: int | None = None,
                 classes: str | None = None, follow: Callable[[p.TableInfo], Iterable[int]] | None = None) -> None:
        """``follow``: the list follows the table while it is open (others sit, bots are added):
        given its new state it says which seats may be chosen now; none, or the table
        gone, closes the list with a word why."""
        super().__init__(classes=classes)
        self._title = title
        self._info = info
        self._allowed = set(allowed)
        self._mine = mine
        self._follow = follow


    def _options(self) -> list[Option]:
        return [Option(seat_row(self.tr, self._info, i, self._mine), id=str(i), disabled=i not in self._allowed)
                for i in range(len(self._info.seats))]

    def compose(self) -> ComposeResult:
        tr = self.tr
        with Vertical(classes="dialog small"):
            yield Static(Text(self._title, style="bold"))
            yield OptionList(*self._options(), id="seat-choices")
            bar = KeyBar()
            bar.show([("↑↓ Enter", tr("key.pick")), (f"1-{len(self._info.seats)}", tr("key.pick")),
                      ("Esc", tr("key.cancel"))])
            yield bar

    @unless_popped
    def on_mount(self) -> None:
        choices = self.query_one("#seat-choices", OptionList)
        first = min(self._allowed, default=None)
        if first is not None:
            choices.highlighted = first
        choices.focus()

    def server_changed(self, msg: p.Message) -> None:
        """The table changed under the list: who sits where now, and what may be chosen."""
        if self._follow is None or not self.is_mounted:
            return
        if isinstance(msg, p.TableUpdated) and msg.table.table_id == self._info.table_id:
            info: p.TableInfo | None = msg.table
        elif isinstance(msg, p.TableRemoved) and msg.table_id == self._info.table_id:
            info = None
        else:
            return
        allowed = set(self._follow(info)) if info is not None else set()
        if not allowed:
            self.app.notify_text(self.tr("table.seat_picker.taken", title=self._info.title))
            self.dismiss(None)
            return
        assert info is not None
        choices = self.query_one("#seat-choices", OptionList)
        was = choices.highlighted
        self._info, self._allowed = info, allowed
        choices.clear_options()
        choices.add_options(self._options())
        choices.highlighted = was if was in allowed else min(allowed)

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.action_pick(int(event.option.id or 0))

    def action_pick(self, seat: int) -> None:
        if seat in self._allowed:
            self.dismiss(seat)

    def action_cancel(self) -> None:
        self.dismiss(None)
