"""Fixed-size text panels that repaint only when what they show changes.

Every update of a Textual widget that may change its size costs a layout of the
whole screen (tens of milliseconds, and more bytes on the wire). These panels
have sizes fixed by the stylesheet, skip identical content, and never ask for a
layout, so a card played repaints just the lines it changes.
"""
from __future__ import annotations

from collections import OrderedDict, deque
from functools import lru_cache
from typing import Iterable

from rich.cells import cell_len
from rich.console import Console
from rich.segment import Segment
from rich.style import Style as RichStyle
from rich.text import Span, Text
from textual import events
from textual.geometry import Region
from textual.strip import Strip
from textual.style import Style as VisualStyle
from textual.visual import Visual, visualize
from textual.widgets import Static

from tui.widgets.messages import CallPicked, CardPicked, Redraw


def _key(text: Text) -> tuple[object, ...]:
    return (text.plain, tuple(text.spans), str(text.style))


# Rendered lines, shared by every session in the process: the four players of a table
# draw the same log lines, trick rows and scores, and many tables draw the same labels,
# so a line is rendered once, not once per seat. Keyed by everything the rendering reads:
# the panel (class and id: its CSS), its width and style, and the line's content (text,
# spans, base style). A Strip is not changed once made (Textual's operations return new
# ones), and each session renders it to escapes for its own colour system when it writes
# (tui/textual_patches/colour_depth.py), so one Strip serves every session.
_SharedKey = tuple[object, ...]
_SHARED_STRIPS: "OrderedDict[_SharedKey, Strip]" = OrderedDict()
SHARED_STRIPS_MAX = 20_000  # a bound, not a working size: a few MB at most


def shared_strip_count() -> int:
    """How many rendered lines the process keeps (tests, and to see the bound hold)."""
    return len(_SHARED_STRIPS)


def _style_as_span(line: Text) -> Text:
    """The line as splitting a joined text gives it: its base style becomes a span over it
    (Textual draws a base style differently from a span: ANSI colours are not themed)."""
    if not line.style:
        return line
    out = Text(line.plain, justify=line.justify, overflow=line.overflow, no_wrap=line.no_wrap)
    if line.plain:
        out.spans.append(Span(0, len(line.plain), line.style))
    out.spans.extend(line.spans)
    return out


@lru_cache(maxsize=512)
def _at_column(x: int) -> RichStyle:
    """The mark Textual puts on each piece of a line: where it starts (a mouse selection
    starts from it)."""
    return RichStyle.from_meta({"offset": (x, 0)})


def rich_line_strip(line: Text, width: int, base: RichStyle, console: Console) -> Strip:
    """One line that fits ``width``, drawn by Rich, as Textual draws it (the widget's style
    under the line's, padded to the width, each piece marked with its column).

    Textual's own way (a Content made from the Text, formatted and turned back into
    segments) took six times as long, and a seat draws one or two new lines per action
    (a seat row, its cards). A line wider than ``width`` (cut with an ellipsis), a selected
    one, and one with a base style (Textual does not theme a base style's ANSI colours, as
    it does a span's) are drawn by Textual."""
    segments: list[Segment] = []
    x = 0
    for text, style, _control in line.render(console, end=""):
        segments.append(Segment(text, base + style + _at_column(x) if style else base + _at_column(x)))
        x += cell_len(text)
    if x < width:
        segments.append(Segment(" " * (width - x), base))
    return Strip(segments, width)


class Panel(Static):
    """A Static with a fixed size: ``show`` repaints only the lines that changed, never
    re-lays out (a card played rewrites one line of the tricks, not the panel).

    Unwrapped text is drawn line by line from a cache of rendered lines: Textual's own
    Static re-renders every line of the widget whenever any line is refreshed, which was
    about a quarter of the server's CPU per action."""

    _shown: tuple[object, ...] | None = None
    _shown_lines: list[tuple[object, ...]] = []
    _line_texts: list[Text] | None = None

    def show(self, text: Text) -> None:
        key = _key(text)
        if key == self._shown:
            return
        self._shown = key
        if len(text.plain) and text.no_wrap is False:  # wrapping text: a change may move every line
            self._line_texts, self._shown_lines = None, []
            self.update(text, layout=False)
            return
        self._show_split(text.split("\n", allow_blank=True), text)

    def show_lines(self, lines: list[Text]) -> None:
        """``show`` of these lines joined by newlines (unwrapped), without joining them
        only for ``show`` to split them again (Rich's split is costly with many styles)."""
        # The cheap comparison first: most updates leave most panels as they were, and
        # re-making every line's spans only to find that was a sixth of an action's CPU.
        shown = tuple(_key(line) for line in lines)
        if shown == self._shown:
            return
        self._shown = shown
        spanned = [_style_as_span(line) for line in lines]
        keys = [key if new is line else _key(new)  # a line without a base style is kept as is
                for line, new, key in zip(lines, spanned, shown)]
        lines = spanned
        text = Text("\n").join(lines)  # what Static's content says (tests, a fallback render)
        text.no_wrap = True
        self._show_split(lines, text, keys)

    def _show_split(self, lines: list[Text], text: Text, keys: list[tuple[object, ...]] | None = None) -> None:
        keys = [_key(line) for line in lines] if keys is None else keys
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
        width, style = self._content_width(), self.visual_style
        if y >= len(texts):
            return Strip.blank(width, style.rich_style)
        if self.text_selection is not None:  # a selection is this session's alone
            return self._render_one(texts[y], width, style)
        # Keyed by content, not position: a log line that scrolls up, or a card that moves
        # along the hand, is drawn once (and once for every session that shows it).
        key = (type(self), self.id, width, style, self._shown_lines[y])
        strip = _SHARED_STRIPS.get(key)
        if strip is None:
            strip = _SHARED_STRIPS[key] = self._render_one(texts[y], width, style)
            while len(_SHARED_STRIPS) > SHARED_STRIPS_MAX:  # the least recently drawn go
                _SHARED_STRIPS.popitem(last=False)
        else:
            _SHARED_STRIPS.move_to_end(key)
        return strip

    def _content_width(self) -> int:
        """``self.size.width`` without looking the widget up in its screen's map, once for
        every line drawn (the outer size the last layout gave it, less its borders and
        padding)."""
        return max(0, self.outer_size.width - self.styles.gutter.width)

    def _render_one(self, line: Text, width: int, style: VisualStyle) -> Strip:
        line.no_wrap = True
        if self.text_selection is None and not line.style and line.cell_len <= width:
            return rich_line_strip(line, width, style.rich_style, self.app.console)
        strips = Visual.to_strips(self, visualize(self, line), width, 1, style, pad=True)
        return strips[0] if strips else Strip.blank(width, style.rich_style)


class DrawnPanel(Panel):
    """A Panel whose content depends on its width: asks to be drawn again (a ``Redraw``
    message up to its screen) on a resize."""

    def on_resize(self, event: events.Resize) -> None:
        self.post_message(Redraw())


class WrapPanel(Panel):
    """A Panel whose text wraps at word boundaries and whose height follows it (CSS
    ``height: auto``): a long status or bet line takes a second line instead of losing
    its end. The screen is laid out again only when the number of lines changes."""

    _rows = 1

    def show(self, text: Text) -> None:
        text.no_wrap = False
        if _key(text) == self._shown:  # as shown, at this width (a resize forgets it): no wrapping to count
            return
        width = self.size.width
        rows = len(text.wrap(self.app.console, width)) if width else 1
        super().show(text)
        if rows != self._rows:
            self._rows = rows
            self.refresh(layout=True)

    def on_resize(self, event: events.Resize) -> None:
        if self._shown is not None and self._Static__content is not None:  # type: ignore[attr-defined]
            content = self._Static__content  # type: ignore[attr-defined]
            if isinstance(content, Text):
                self._shown = None
                self.show(content)


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
        self._wrapped: dict[int, tuple[int, list[Text]]] = {}  # id(line) -> (width, rows)
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

    def _rows_of(self, line: Text) -> list[Text]:
        width = max(1, self.size.width or 80)
        cached = self._wrapped.get(id(line))
        if cached is not None and cached[0] == width:
            return cached[1]
        rows = list(line.wrap(self.app.console, width, overflow="fold")) if self.is_attached else [line]
        for row in rows:
            row.no_wrap = True
        self._wrapped[id(line)] = (width, rows)
        return rows

    def clear(self) -> None:
        self._lines.clear()
        self._wrapped.clear()
        self.scrolled = 0
        self._draw()

    def _draw(self) -> None:
        height = self.size.height or 6
        rows: list[Text] = []
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
        self.show_lines(rows[max(0, end - height):end])
        title = self.pane_title + (f" ↓{self.scrolled}" if self.scrolled else "")
        if title != self.border_title:
            self.border_title = title

    def page(self, pages: float) -> None:
        """Scroll by ``pages`` screens (positive: back in time)."""
        height = self.size.height or 6
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


class GridPanel(Panel):
    """Cells laid out in rows; a click anywhere in a cell picks it.

    Cells go in even columns when they fit whole in the panel's rows; otherwise each
    row takes as many as fit at their own width; only when even that is too many rows
    are labels shortened (with an ellipsis)."""

    GAP = 2

    def __init__(self, *, id: str | None = None, columns: int = 2) -> None:
        super().__init__(id=id)
        self.columns = columns  # at most this many even columns
        self._cells: list[Text] = []
        self._spans: list[list[tuple[int, int, int]]] = []  # per row: (x0, x1, cell index)

    def set_cells(self, cells: list[Text]) -> None:
        self._cells = cells
        self._draw()

    def _layout(self, width: int, height: int) -> list[list[tuple[int, int]]]:
        """Rows of (cell index, width given to it)."""
        n = len(self._cells)
        if not n:
            return []
        longest = max(cell.cell_len for cell in self._cells)
        columns = max(1, min(self.columns, (width + self.GAP) // (longest + self.GAP)))
        if -(-n // columns) <= height or columns == n:
            column = longest if columns > 1 else width
            return [[(i, column) for i in range(start, min(n, start + columns))]
                    for start in range(0, n, columns)]
        rows: list[list[tuple[int, int]]] = [[]]
        used = 0
        for i, cell in enumerate(self._cells):  # each cell at its own width
            need = cell.cell_len + (self.GAP if rows[-1] else 0)
            if rows[-1] and used + need > width:
                rows.append([])
                used, need = 0, cell.cell_len
            rows[-1].append((i, cell.cell_len))
            used += need
        if len(rows) <= height:
            return rows
        columns = -(-n // max(1, height))  # too many: even columns, labels shortened
        column = max(4, (width + self.GAP) // columns - self.GAP)
        return [[(i, column) for i in range(start, min(n, start + columns))]
                for start in range(0, n, columns)]

    def _draw(self) -> None:
        width = self.size.width or 44
        height = self.size.height or 5
        rows: list[Text] = []
        self._spans = []
        for row_cells in self._layout(width, height):
            row = Text(no_wrap=True, overflow="ellipsis")
            spans = []
            for index, cell_width in row_cells:
                if row.cell_len:
                    row.append(" " * self.GAP)
                cell = self._cells[index].copy()
                cell.truncate(cell_width, overflow="ellipsis", pad=True)
                spans.append((row.cell_len, row.cell_len + cell_width, index))
                row.append_text(cell)
            rows.append(row)
            self._spans.append(spans)
        self.show_lines(rows)

    def on_resize(self, event: events.Resize) -> None:
        self._shown = None
        self._draw()

    def on_click(self, event: events.Click) -> None:
        if not 0 <= event.y < len(self._spans):
            return
        for x0, x1, index in self._spans[event.y]:
            if x0 <= event.x < x1 + self.GAP:
                self.post_message(CallPicked(index))
                return


class HandPanel(Panel):
    """The player's cards side by side; a click on a card picks it."""

    def __init__(self, *, id: str | None = None, card_width: int = 8) -> None:
        super().__init__(id=id)
        self.card_width = card_width

    def show_cards(self, boxes: list[list[Text]]) -> None:
        """Each box is a card drawn as lines of at most ``card_width - 1`` cells."""
        height = max((len(box) for box in boxes), default=0)
        # Three cards fit the stylesheet's width; a fourth (the 3-player Uruguayan mano's,
        # before the discard) widens the panel rather than being cut off.
        self.styles.width = max(3, len(boxes)) * self.card_width
        lines = [Text(no_wrap=True) for _ in range(height)]
        for box in boxes:
            for row, part in enumerate(box):
                lines[row].append_text(part)
                lines[row].append(" " * max(0, self.card_width - part.cell_len))
        self.show_lines(lines)

    def on_click(self, event: events.Click) -> None:
        self.post_message(CardPicked(event.x // self.card_width))
