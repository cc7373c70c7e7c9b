"""Fixed-size text panels that repaint only when what they show changes.

Every update of a Textual widget that may change its size costs a layout of the
whole screen (tens of milliseconds, and more bytes on the wire). These panels
have sizes fixed by the stylesheet, skip identical content, and never ask for a
layout, so a card played repaints just the lines it changes.
"""
from __future__ import annotations

from rich.text import Span, Text
from textual import events
from textual.dom import NoScreen
from textual.geometry import Region, Size
from textual.screen import Screen
from textual.selection import Selection
from textual.strip import Strip
from textual.style import Style as VisualStyle
from textual.visual import Visual, VisualType, visualize
from textual.widgets import Static

from tui import textual_private
from tui.widgets.line_strip import rich_line_strip
from tui.widgets.messages import CallPicked, CardPicked, Redraw
from tui.widgets.shared_rows import FramedStylesCache, SharedLRU, kept_frame, shared_rows


def line_key(text: Text) -> tuple[object, ...]:
    """What a line shows: equal keys draw the same."""
    return (text.plain, tuple(text.spans), str(text.style))


# Rendered lines, shared by every session in the process: the four players of a table
# draw the same log lines, trick rows and scores, and many tables draw the same labels,
# so a line is rendered once, not once per seat. Keyed by everything the rendering reads:
# the panel (class and id: its CSS), its width and style, and the line's content (text,
# spans, base style). A Strip is not changed once made (Textual's operations return new
# ones), and each session renders it to escapes for its own colour system when it writes
# (tui/textual_patches/colour_depth.py), so one Strip serves every session.
# (The styled rows made from them, borders and background added, are shared as well:
# tui/widgets/shared_rows.py.)
SHARED_STRIPS: SharedLRU[tuple[object, ...], Strip] = SharedLRU(20_000)  # a few MB at most


def shared_strip_count() -> int:
    """How many rendered lines the process keeps (tests, and to see the bound hold)."""
    return len(SHARED_STRIPS)


def style_as_span(line: Text) -> Text:
    """The line as splitting a joined text gives it: its base style becomes a span over it
    (Textual draws a base style differently from a span: ANSI colours are not themed)."""
    if not line.style:
        return line
    out = Text(line.plain, justify=line.justify, overflow=line.overflow, no_wrap=line.no_wrap)
    if line.plain:
        out.spans.append(Span(0, len(line.plain), line.style))
    out.spans.extend(line.spans)
    return out


class Panel(Static):
    """A Static with a fixed size: ``show`` repaints only the lines that changed, never
    re-lays out (a card played rewrites one line of the tricks, not the panel).

    Unwrapped text is drawn line by line from a cache of rendered lines: Textual's own
    Static re-renders every line of the widget whenever any line is refreshed, which was
    about a quarter of the server's CPU per action."""

    _shown: tuple[object, ...] | None = None
    # None: never drawn line by line (or drawn by Static's update since): the whole panel is
    # refreshed, not the rows that changed. An empty list is a panel drawn with no lines.
    _shown_lines: list[tuple[object, ...]] | None = None
    _line_texts: list[Text] | None = None
    # (parent, screen) when the screen was last looked up: ``self.screen`` walks up the DOM,
    # and drawing asked it for every row (Textual's ``text_selection``): 2% of a seat's
    # instructions per update. A widget is never moved to another screen, only removed (its parent
    # is then None) and perhaps mounted again (a new parent): the parent says if it holds.
    _kept_screen: tuple[object, Screen[object]] | None = None

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self._framed = FramedStylesCache()  # its rows shared with other sessions
        textual_private.set_styles_cache(self, self._framed)

    def show(self, text: Text) -> None:
        key = line_key(text)
        if key == self._shown:
            return
        self._shown = key
        self._show_split(list(text.split("\n", allow_blank=True)), text)

    def show_lines(self, lines: list[Text]) -> None:
        """``show`` of these lines joined by newlines (unwrapped), without joining them
        only for ``show`` to split them again (Rich's split is costly with many styles)."""
        # The cheap comparison first: most updates leave most panels as they were, and
        # re-making every line's spans only to find that was a sixth of an action's CPU.
        shown = tuple(line_key(line) for line in lines)
        if shown == self._shown:
            return
        self._shown = shown
        spanned = [style_as_span(line) for line in lines]
        keys = [key if new is line else line_key(new)  # a line without a base style is kept as is
                for line, new, key in zip(lines, spanned, shown)]
        self._show_split(spanned, None, keys)

    def show_keyed(self, lines: list[Text], keys: list[tuple[object, ...]]) -> None:
        """``show_lines`` of lines that have no base style and whose keys (``line_key``) are
        known already: a log's rows, kept with their keys, are not keyed again per draw."""
        shown = tuple(keys)
        if shown == self._shown:
            return
        self._shown = shown
        self._show_split(lines, None, keys)

    def _show_split(self, lines: list[Text], text: Text | None,
                    keys: list[tuple[object, ...]] | None = None) -> None:
        """Show ``lines``; ``text`` is what they were split from (None: made from them when
        the Static's content is read, which the panel's own drawing never does)."""
        keys = [line_key(line) for line in lines] if keys is None else keys
        old, self._shown_lines, self._line_texts = self._shown_lines, keys, lines
        textual_private.set_static_content(self, text, forget_visual=True)
        width, height = self._inner_size()
        if not self.is_mounted or old is None or width == 0:
            self.refresh(layout=False)
            return
        changed = [y for y in range(min(height, max(len(old), len(keys))))
                   if y >= len(old) or y >= len(keys) or old[y] != keys[y]]
        if changed:
            self._repaint_rows([Region(0, y, width, 1) for y in changed])

    def _repaint_rows(self, regions: list[Region]) -> None:
        """``refresh(*regions)``, with the screen told at once. Textual's refresh wakes the
        panel's own message loop (a Prompt), which on going idle posts an Update to the screen,
        which then marks the panel dirty: two messages and two task switches for each panel
        changed, on every action of every seat. Here the panel marks itself dirty in its
        screen directly, as the screen's Update handler does (private parts of the pinned
        Textual, through tui/textual_private.py; tests/tui/test_partial_rows.py checks the
        terminal shows what a full render does). The rows are moved to the content's place by the offset
        kept with the panel's frame (``shared_rows.Frame``), not worked out from its styles
        and scrollbars each time; and while the app handles frames it draws them itself, so
        the screen is not prompted then (tui/draw_now.py)."""
        try:
            screen = self._own_screen() if self.display else None
        except NoScreen:
            screen = None
        if screen is None or not textual_private.in_compositor(screen, self):
            self.refresh(*regions, layout=False)
            return
        frame = kept_frame(self, self._framed)  # (its content offset as kept)
        textual_private.set_rows_dirty(self, screen, regions, None if frame is None else frame.content_offset)
        app = self.app
        if not getattr(app, "draw_follows", False) or screen is not app.screen:
            screen.check_idle()

    def _own_screen(self) -> Screen[object]:
        """``self.screen`` (NoScreen if not mounted), looked up again only when the panel
        has a new parent."""
        kept = self._kept_screen
        if kept is None or kept[0] is not self.parent:
            kept = self._kept_screen = (self.parent, self.screen)
        return kept[1]

    def _selection(self) -> Selection | None:
        """``text_selection``, without a walk up to the screen."""
        return self._own_screen().selections.get(self)

    @property
    def content(self) -> VisualType:
        """What the panel shows, as one text (Static's content)."""
        content = textual_private.static_content(self)
        if content is None:  # shown by lines (``_show_split``): made from them when asked for
            content = Text("\n").join(self._line_texts or ())
            content.no_wrap = True
            textual_private.set_static_content(self, content, forget_visual=False)
        return content

    @content.setter
    def content(self, content: VisualType) -> None:
        Static.content.fset(self, content)  # type: ignore[attr-defined]

    def update(self, content: VisualType = "", *, layout: bool = True) -> None:
        """Static's: shows ``content`` as Textual draws it (wrapped, with markup), not by lines."""
        self._shown, self._shown_lines, self._line_texts = None, None, None
        super().update(content, layout=layout)

    @property
    def visual(self) -> Visual:
        self.content  # (made first: Static's visual reads it)
        return super().visual

    def render_lines(self, crop: Region) -> list[Strip]:
        hover = self.hover_style  # a hovered link is styled for this session alone
        keys = self._shown_lines  # (None exactly when _line_texts is)
        if self._line_texts is None or keys is None or self._selection() is not None \
                or hover._link_id and hover._meta and self.auto_links:
            return super().render_lines(crop)
        return shared_rows(self, self._framed, crop, keys)

    def render_line(self, y: int) -> Strip:
        texts, keys = self._line_texts, self._shown_lines  # (None together)
        if texts is None or keys is None:
            return super().render_line(y)
        width, style = self._inner_size().width, self.visual_style
        if y >= len(texts):
            return Strip.blank(width, style.rich_style)
        if self._selection() is not None:  # a selection is this session's alone
            return self._render_one(texts[y], width, style)
        # Keyed by content, not position: a log line that scrolls up, or a card that moves
        # along the hand, is drawn once (and once for every session that shows it).
        key = (type(self), self.id, width, style, keys[y])
        strip = SHARED_STRIPS.get(key)
        if strip is None:
            strip = self._render_one(texts[y], width, style)
            SHARED_STRIPS.put(key, strip)
        return strip

    def _inner_size(self) -> Size:
        """``self.size`` without looking the widget up in its screen's map (a walk up to the
        screen and a lookup, for every line drawn and every line shown): the outer size the
        last layout gave it, less its borders and padding."""
        frame = kept_frame(self, self._framed)
        if frame is not None:  # (worked out when the styles last changed)
            return frame.inner
        outer, gutter = self.outer_size, self.styles.gutter
        return Size(max(0, outer.width - gutter.width), max(0, outer.height - gutter.height))

    def _render_one(self, line: Text, width: int, style: VisualStyle) -> Strip:
        line.no_wrap = True
        if self._selection() is None and not line.style and line.cell_len <= width:
            return rich_line_strip(line, width, style.rich_style, self.app.console)
        strips = Visual.to_strips(self, visualize(self, line), width, 1, style, pad=True)
        return strips[0] if strips else Strip.blank(width, style.rich_style)


class DrawnPanel(Panel):
    """A Panel whose content depends on its width: asks to be drawn again (a ``Redraw``
    message up to its screen) on a resize."""

    def on_resize(self, event: events.Resize) -> None:
        self.post_message(Redraw())


# Wrapped lines, shared: (the text's key, width, justify, overflow) -> (rows, their keys).
# Not to be changed (a row's base style is already a span: ``show_keyed``).
_WRAPPED: SharedLRU[tuple[object, ...], tuple[list[Text], list[tuple[object, ...]]]] = SharedLRU(5_000)


class WrapPanel(Panel):
    """A Panel whose text wraps at word boundaries and whose height follows it (CSS
    ``height: auto``): a long status or bet line takes a second line instead of losing
    its end. The screen is laid out again only when the number of lines changes. The text
    is wrapped here (Rich), and its rows drawn as any panel's: shared between sessions."""

    _rows = 1
    _wrap_text: Text | None = None
    _wrap_key: tuple[object, ...] | None = None

    def show(self, text: Text) -> None:
        text.no_wrap = False
        key = line_key(text)
        if key == self._wrap_key:  # as shown, at this width (a resize forgets it): no wrapping
            return
        self._wrap_text, self._wrap_key = text, key
        width = self._inner_size().width
        # Wrapped once in the process: the seats of a table are shown the same few lines
        # ("Te toca.", whose turn it is, the hand's worth), at the same width.
        rows, keys = _WRAPPED.get_or_make((key, width, text.justify, text.overflow),
                                          lambda: self._wrap(text, width))
        self.show_keyed(rows, keys)
        if width and len(rows) != self._rows:
            self._rows = len(rows)
            self.refresh(layout=True)

    def _wrap(self, text: Text, width: int) -> tuple[list[Text], list[tuple[object, ...]]]:
        """``text``'s rows at ``width`` (a base style made a span) and their keys."""
        rows = list(text.wrap(self.app.console, width)) if width else text.split("\n", allow_blank=True)
        rows = [style_as_span(row) for row in rows]
        return rows, [line_key(row) for row in rows]

    def on_resize(self, event: events.Resize) -> None:
        if self._wrap_text is not None:
            self._wrap_key = None
            self.show(self._wrap_text)


_GRIDS: SharedLRU[tuple[object, ...], tuple[list[Text], list[tuple[object, ...]],
                                            list[list[tuple[int, int, int]]]]] = SharedLRU(2_000)


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
        width, height = self._inner_size()
        width, height = width or 44, height or 5
        # Laid out once in the process for these cells at this size: the seats of a table
        # are shown the same few sets of calls, and the set changes with every turn.
        key = (type(self), self.columns, width, height, tuple(line_key(cell) for cell in self._cells))
        rows, row_keys, self._spans = _GRIDS.get_or_make(key, lambda: self._lay_out(width, height))
        self.show_keyed(rows, row_keys)

    def _lay_out(self, width: int, height: int) -> tuple[list[Text], list[tuple[object, ...]],
                                                         list[list[tuple[int, int, int]]]]:
        """The rows, their keys, and where each cell is in them. Shared: not to be changed."""
        rows: list[Text] = []
        all_spans = []
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
            all_spans.append(spans)
        return rows, [line_key(row) for row in rows], all_spans

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
