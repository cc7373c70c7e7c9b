"""The status line (whose turn, what the table waits for, why a key did nothing) and the
turn timer beside it."""
from __future__ import annotations

import asyncio
import time

from rich.text import Text

from tui.i18n import Translator
from tui.table_model import TableModel
from tui.widgets.panels import Panel, WrapPanel
from tui.widgets.table.part import TablePart


def rematch_text(tr: Translator, model: TableModel) -> Text | None:
    """Who asked for a rematch and whom it waits for, told to this viewer (None: nobody asked).

    The asker sees who has not accepted yet; the others see who asked and the key to accept."""
    update = model.update
    if update is None or not update.rematch_votes:
        return None
    asked = [s for s in update.rematch_votes if 0 <= s < len(update.seats)]
    humans = [s for s, info in enumerate(update.seats) if not info.bot]
    names = ", ".join(model.name(s) for s in asked)
    if model.seat is None:
        return Text(tr("table.rematch_asked_watching", names=names), style="bold yellow")
    if model.seat in asked:
        missing = ", ".join(model.name(s) for s in humans if s not in asked)
        return Text(tr("table.rematch_waiting", names=missing), style="bold yellow") if missing else None
    return Text(tr("table.rematch_asked", names=names), style="bold yellow")


class StatusLine(WrapPanel, TablePart):
    """``#t-status``; ``say`` puts a one-off line there (a refusal, "pick a card") ahead of
    what the line said, so that "your turn" is not lost to a refused key (a player who read
    "No truco in the mão de onze" alone took it that the table had moved on)."""

    _state: Text | None = None  # whose turn it is, or what the table waits for

    def update_from(self, model: TableModel) -> None:
        view = model.view
        update = model.update
        assert update is not None
        if view.match_over:
            over = "table.status.match_over" if model.seat is not None else "table.status.match_over_watching"
            text = rematch_text(self.tr, model) or Text(self.tr(over), style="bold green")  # no r for spectators
        elif model.seat is not None and model.seat in update.waiting:
            text = Text(self.tr("table.status.your_turn"), style="bold yellow")
        elif update.waiting:
            names = ", ".join(model.name(s) for s in update.waiting)
            text = Text(self.tr("table.status.waiting_on", names=names))
        else:
            text = Text(self.tr("table.status.next_hand"), style="dim")
        self._state = text.copy()  # (without the resume code: a refusal is said before it)
        if update.resume_code:  # on the same row, or left for a turn with room (never half of it)
            code = Text("  ·  " + self.tr("table.resume_code", code=update.resume_code), style="dim")
            short = Text("  ·  " + update.resume_code, style="dim")
            room = self.size.width or 80
            for tail in (code, short):
                if text.cell_len + tail.cell_len <= room:
                    text.append_text(tail)
                    break
        self.show(text)

    def say(self, text: Text) -> None:
        state = self._state
        if state is not None and state.plain not in text.plain:
            # On one row if both fit, else the turn on a row of its own (not "... ·" wrapped)
            fits = text.cell_len + 5 + state.cell_len <= (self.size.width or 80)
            text = Text.assemble(text, Text("  ·  ", style="dim") if fits else "\n", state)
        self.show(text)


STEP = 5  # seconds: the countdown's steps until its last seconds
EXACT_FROM = 10  # the last seconds, counted one by one


def _step_up(left: int) -> int:
    return -(-left // STEP) * STEP


def shown_seconds(left: int, full: int) -> int:
    """What the countdown shows with ``left`` seconds to go of a decision that had ``full``
    when it was first shown: 5 s steps (30, 25 ... 15) until the last ten, then every
    second; never more than it had (a 12 s timer starts at 12)."""
    if left <= EXACT_FROM:
        return left
    return min(_step_up(left), full)


def seconds_to_change(until_deadline: float, left: int) -> float | None:
    """Seconds until the countdown, showing ``left`` (``TableModel.seconds_left``) with
    ``until_deadline`` seconds to go, shows another figure; None once it shows 0."""
    if left <= 0:
        return None
    if left <= EXACT_FROM:
        target = left - 1
    else:  # the next step down (a 12 s timer shows 12 until 10)
        target = max(EXACT_FROM, _step_up(left) - STEP)
    # seconds_left reads ``target`` once less than target + 0.001 s are left; 5 ms later,
    # so that a clock read a hair early does not find the old figure (it would only wait
    # another 5 ms if it did).
    return max(0.0, until_deadline - target - 0.001) + 0.005


class TurnTimer(Panel, TablePart):
    """``#t-timer``: the seconds left to act, repainted only when the figure changes.

    Stepped (``shown_seconds``): a countdown to the second repainted every seat's screen
    every second of every decision, bytes on a slow link and server CPU for a figure that
    matters to the second only at the end. And woken only when the figure it shows
    changes (``follow``), not by a timer every second on every table screen, timed or not
    (a Textual timer's tick, a task switch and a callback, was most of what an idle seat
    cost the server)."""

    _timer_shown = ""
    _deadline: float | None = None  # the decision the countdown was last shown for
    _full = 0
    _wake: asyncio.TimerHandle | None = None

    def follow(self, model: TableModel) -> None:
        """Show the countdown now, and again each time its figure changes, until it shows 0
        or the table has no deadline (``follow`` again after each update)."""
        self._cancel_wake()
        if not self.is_attached:
            return
        left = self.tick(model)
        if left is None or model.deadline is None:
            return
        delay = seconds_to_change(model.deadline - time.monotonic(), left)
        if delay is not None:  # (the loop's clock is time.monotonic, as the deadline's)
            self._wake = asyncio.get_running_loop().call_later(delay, self.follow, model)

    def on_unmount(self) -> None:
        self._cancel_wake()  # no wake after the screen went

    def _cancel_wake(self) -> None:
        if self._wake is not None:
            self._wake.cancel()
            self._wake = None

    def tick(self, model: TableModel) -> int | None:
        """Show the countdown as it is now; the seconds left (None: no timer running)."""
        seconds = left = model.seconds_left()
        if left is not None:
            if model.deadline != self._deadline:
                self._deadline, self._full = model.deadline, left
            left = shown_seconds(left, self._full)
        shown = "" if left is None else (f"T {left:>3}s" if self.lite else f"⏱ {left:>3}s")
        if shown != self._timer_shown:
            self._timer_shown = shown
            style = "bold red" if left is not None and left <= 5 else "bold"
            self.show(Text(shown, style=style))
        return seconds
