"""Fixed-size text panels that repaint only when what they show changes.

Every update of a Textual widget that may change its size costs a layout of the
whole screen (tens of milliseconds, and more bytes on the wire). These panels
have sizes fixed by the stylesheet, skip identical content, and never ask for a
layout, so a card played repaints just the lines it changes.
"""
from __future__ import annotations

from collections import OrderedDict, deque
from typing import Callable

from rich.text import Text
from textual import events
from textual.geometry import Region
from textual.strip import Strip
from textual.visual import Visual, visualize
from textual.widgets import Static


def _key(text: Text) -> tuple[object, ...]:
    return (text.plain, tuple(text.spans), str(text.style))


class Panel(Static):
    """A Static with a fixed size: ``show`` repaints only the lines that changed, never
    re-lays out (a card played rewrites one line of the tricks, not the panel).

    Unwrapped text is drawn line by line from a cache of rendered lines: Textual's own
    Static re-renders every line of the widget whenever any line is refreshed, which was
    about a quarter of the server's CPU per action."""

    _shown: tuple[object, ...] | None = None
    _shown_lines: list[tuple[object, ...]] = []
    _line_texts: list[Text] | None = None
    _line_strips: "OrderedDict[tuple[object, ...], Strip]" = OrderedDict()
    _strips_for: tuple[object, ...] = ()

    def show(self, text: Text) -> None:
        key = _key(text)
        if key == self._shown:
            return
        self._shown = key
        if len(text.plain) and text.no_wrap is False:  # wrapping text: a change may move every line
            self._line_texts, self._shown_lines = None, []
            self.update(text, layout=False)
            return
        lines = text.split("\n", allow_blank=True)
        keys = [_key(line) for line in lines]
        old, self._shown_lines, self._line_texts = self._shown_lines, keys, lines
        self._Static__content = text  # type: ignore[attr-defined]
        self._Static__visual = None  # type: ignore[attr-defined]
        width, height = self.size
        if not self.is_mounted or not old or width == 0:
            self.refresh(layout=False)
            return
        changed = [y for y in range(min(height, max(len(old), len(keys))))
                   if y >= len(old) or y >= len(keys) or old[y] != keys[y]]
        if changed:
            self.refresh(*(Region(0, y, width, 1) for y in changed), layout=False)

    def render_line(self, y: int) -> Strip:
        texts = self._line_texts
        if texts is None:
            return super().render_line(y)
        width, style = self.size.width, self.visual_style
        if y >= len(texts):
            return Strip.blank(width, style.rich_style)
        if (width, style) != self._strips_for:
            self._line_strips, self._strips_for = OrderedDict(), (width, style)
        # Keyed by content, not position: a log line that scrolls up, or a card that moves
        # along the hand, is drawn once.
        key = self._shown_lines[y]
        strip = self._line_strips.get(key)
        if strip is None:
            line = texts[y]
            line.no_wrap = True
            strips = Visual.to_strips(self, visualize(self, line), width, 1, style, pad=True)
            strip = strips[0] if strips else Strip.blank(width, style.rich_style)
            self._line_strips[key] = strip
            if len(self._line_strips) > 2 * self.size.height + 4:
                self._line_strips.popitem(last=False)
        else:
            self._line_strips.move_to_end(key)
        return strip


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

    def clear(self) -> None:
        self._lines.clear()
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
