"""Fixed-size text panels that repaint only when what they show changes.

Every update of a Textual widget that may change its size costs a layout of the
whole screen (tens of milliseconds, and more bytes on the wire). These panels
have sizes fixed by the stylesheet, skip identical content, and never ask for a
layout, so a card played repaints just the lines it changes.
"""
from __future__ import annotations

from collections import deque
from typing import Callable

from rich.text import Text
from textual import events
from textual.geometry import Region
from textual.visual import visualize
from textual.widgets import Static


def _key(text: Text) -> tuple[object, ...]:
    return (text.plain, tuple(text.spans), str(text.style))


class Panel(Static):
    """A Static with a fixed size: ``show`` repaints only the lines that changed, never
    re-lays out (a card played rewrites one line of the tricks, not the panel)."""

    _shown: tuple[object, ...] | None = None
    _shown_lines: list[tuple[object, ...]] = []

    def show(self, text: Text) -> None:
        key = _key(text)
        if key == self._shown:
            return
        self._shown = key
        lines = [_key(line) for line in text.split("\n", allow_blank=True)]
        old, self._shown_lines = self._shown_lines, lines
        width, height = self.size
        if not self.is_mounted or not old or width == 0 or len(text.plain) and text.no_wrap is False:
            self.update(text, layout=False)  # wrapping text: a change may move every line
            return
        changed = [y for y in range(min(height, max(len(old), len(lines))))
                   if y >= len(old) or y >= len(lines) or old[y] != lines[y]]
        # What Static.update does, minus the refresh of the whole widget (Textual 8.2.8).
        self._Static__content = text  # type: ignore[attr-defined]
        self._Static__visual = visualize(self, text, markup=self._render_markup)  # type: ignore[attr-defined]
        if changed:
            self.refresh(*(Region(0, y, width, 1) for y in changed), layout=False)


class LogPanel(Panel):
    """The last lines of a log, as many as fit; older ones scroll away."""

    def __init__(self, *, id: str | None = None, keep: int = 100) -> None:
        super().__init__(id=id)
        self._lines: deque[Text] = deque(maxlen=keep)

    def write(self, line: Text) -> None:
        line.no_wrap = True
        line.overflow = "ellipsis"
        self._lines.append(line)
        self._draw()

    def _draw(self) -> None:
        height = self.size.height or 6
        self.show(Text("\n").join(list(self._lines)[-height:]))

    def on_resize(self, event: events.Resize) -> None:
        self._shown = None
        self._draw()


class GridPanel(Panel):
    """Cells laid out in rows and columns; a click anywhere in a cell picks it."""

    def __init__(self, *, id: str | None = None, columns: int = 2,
                 on_pick: Callable[[int], None] | None = None) -> None:
        super().__init__(id=id)
        self.columns = columns
        self._cells: list[Text] = []
        self._on_pick = on_pick

    def cell_width(self) -> int:
        return max(8, (self.size.width or 44) // self.columns)

    def set_cells(self, cells: list[Text]) -> None:
        self._cells = cells
        self._draw()

    def _draw(self) -> None:
        width = self.cell_width()
        rows: list[Text] = []
        for start in range(0, len(self._cells), self.columns):
            row = Text(no_wrap=True, overflow="ellipsis")
            for cell in self._cells[start:start + self.columns]:
                cell = cell.copy()
                cell.truncate(width - 1, overflow="ellipsis", pad=True)
                row.append_text(cell)
                row.append(" ")
            rows.append(row)
        self.show(Text("\n").join(rows))

    def on_resize(self, event: events.Resize) -> None:
        self._shown = None
        self._draw()

    def on_click(self, event: events.Click) -> None:
        index = event.y * self.columns + min(self.columns - 1, event.x // self.cell_width())
        if 0 <= index < len(self._cells) and self._on_pick is not None:
            self._on_pick(index)


class HandPanel(Panel):
    """The player's cards side by side; a click on a card picks it."""

    def __init__(self, *, id: str | None = None, card_width: int = 8,
                 on_pick: Callable[[int], None] | None = None) -> None:
        super().__init__(id=id)
        self.card_width = card_width
        self._on_pick = on_pick

    def show_cards(self, boxes: list[list[Text]]) -> None:
        """Each box is a card drawn as lines of at most ``card_width - 1`` cells."""
        height = max((len(box) for box in boxes), default=0)
        lines = [Text(no_wrap=True) for _ in range(height)]
        for box in boxes:
            for row, part in enumerate(box):
                lines[row].append_text(part)
                lines[row].append(" " * max(0, self.card_width - part.cell_len))
        self.show(Text("\n").join(lines))

    def on_click(self, event: events.Click) -> None:
        if self._on_pick is not None:
            self._on_pick(event.x // self.card_width)
