"""The log pane: lines kept in order, wrapped to the pane's width, scrolled back on request."""
from __future__ import annotations

from collections import deque
from typing import Iterable

from rich.text import Text
from textual import events

from tui.widgets.panels import Panel, line_key, style_as_span
from tui.widgets.shared_rows import SharedLRU

Row = tuple[Text, tuple[object, ...]]  # a row of a wrapped line (no base style), its line_key

# Log lines wrapped to a width, by the line's content and the width: the players of a table
# log the same lines.
WRAPPED_ROWS: SharedLRU[tuple[object, ...], list[Row]] = SharedLRU(5_000)
HANG = 2  # columns a wrapped line's continuation is indented by


class LogPanel(Panel):
    """A log that wraps its lines and scrolls (``page``, the mouse wheel).

    Lines are kept in order with a flag: chat lines go to the chat pane, and to this one
    too when ``show_chat`` is set (a small terminal where the two share one pane). What
    is on screen is a window ``scrolled`` rows above the bottom; new lines do not move it
    while the player reads back. Each line is wrapped once per width and kept (a wrapped
    line is a few small Texts), and the rows are drawn through Panel's strip cache, so
    a page up redraws nothing that was drawn before.
    """

    def __init__(self, *, id: str | None = None, keep: int = 400,
                 classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self._lines: deque[tuple[Text, bool]] = deque(maxlen=keep)
        self._wrapped: dict[int, tuple[int, list[Row]]] = {}  # id(line) -> (width, rows)
        self.show_chat = False
        self.pane_title = ""  # shown in the top border, with how far back the pane is scrolled
        self.scrolled = 0  # rows scrolled up from the bottom
        self._max_offset = 0

    def write(self, line: Text, *, chat: bool = False) -> None:
        self.write_lines((line,), chat=chat)

    def write_lines(self, lines: Iterable[Text], *, chat: bool = False) -> None:
        """Add lines, then draw once (an update's events: one repaint, not one per line)."""
        for line in lines:
            line.no_wrap = False
            if len(self._lines) == self._lines.maxlen:
                self._wrapped.pop(id(self._lines[0][0]), None)
            self._lines.append((line, chat))
            if self.scrolled and (self.show_chat or not chat):
                self.scrolled += len(self._rows_of(line))  # keep the rows being read in place
        self._draw()

    def set_title(self, title: str) -> None:
        self.pane_title = title
        self._draw()

    def set_show_chat(self, show: bool) -> None:
        if show != self.show_chat:
            self.show_chat, self.scrolled = show, 0
            self._draw()

    @property
    def lines(self) -> list[Text]:
        """The lines this pane shows, oldest first."""
        return [line for line, chat in self._lines if self.show_chat or not chat]

    def _rows_of(self, line: Text) -> list[Row]:
        width = max(1, self._inner_size().width or 80)
        cached = self._wrapped.get(id(line))
        if cached is not None and cached[0] == width:
            return cached[1]
        if not self.is_attached:
            return [(line, line_key(line))]
        # The players of a table log the same lines: each is wrapped once per width in the
        # process, and its rows keyed once (the rows are only read: never changed once made).
        key = (line_key(line), line.justify, width)
        rows = WRAPPED_ROWS.get(key)
        if rows is None:
            rows = [(row, line_key(row)) for row in self._hanging(line, width)]
            WRAPPED_ROWS.put(key, rows)
        self._wrapped[id(line)] = (width, rows)
        return rows

    def _hanging(self, line: Text, width: int) -> list[Text]:
        """``line`` in rows of ``width``: what does not fit goes on under an indent of
        ``HANG`` columns, so a continuation is not read as a line of its own."""
        console = self.app.console
        first, *more = line.wrap(console, width, overflow="fold")
        rows = [first]
        if more and width > 2 * HANG:
            rest = line[len(first.plain):]
            rest = rest[len(rest.plain) - len(rest.plain.lstrip(" ")):]  # (the space it broke at)
            for row in rest.wrap(console, width - HANG, overflow="fold"):
                rows.append(Text(" " * HANG) + row)
        else:
            rows += more
        out = []
        for row in rows:
            row.no_wrap = True
            out.append(style_as_span(row))
        return out

    def clear(self) -> None:
        self._lines.clear()
        self._wrapped.clear()
        self.scrolled = 0
        self._draw()

    def _draw(self) -> None:
        height = self._inner_size().height or 6
        rows: list[Row] = []
        for line, chat in reversed(self._lines):  # only as far back as the window reaches
            if chat and not self.show_chat:
                continue
            rows[:0] = self._rows_of(line)
            if len(rows) >= height + self.scrolled:
                break
        total = sum(len(self._rows_of(line)) for line in self.lines) if self.scrolled else len(rows)
        self._max_offset = max(0, total - height)
        self.scrolled = min(self.scrolled, self._max_offset)
        end = len(rows) - self.scrolled
        shown = rows[max(0, end - height):end]
        self.show_keyed([row for row, _ in shown], [key for _, key in shown])
        title = self.pane_title + (f" ↓{self.scrolled}" if self.scrolled else "")
        if title != self.border_title:
            self.border_title = title
        self.set_class(bool(self.scrolled), "-scrolled")  # (where the rule hides, it shows then)

    def page(self, pages: float) -> None:
        """Scroll by ``pages`` screens (positive: back in time)."""
        height = self._inner_size().height or 6
        self.scroll_rows(int(pages * max(1, height - 1)))

    def scroll_rows(self, rows: int) -> None:
        if rows > 0:  # how far back there is to go is only counted when going back
            self.scrolled += rows
        else:
            self.scrolled = max(0, self.scrolled + rows)
        self._draw()

    def on_mouse_scroll_up(self, event: events.MouseScrollUp) -> None:
        self.scroll_rows(3)
        event.stop()

    def on_mouse_scroll_down(self, event: events.MouseScrollDown) -> None:
        self.scroll_rows(-3)
        event.stop()

    def on_resize(self, event: events.Resize) -> None:
        self._shown = None
        self._draw()
