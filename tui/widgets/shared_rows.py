"""Rows that every session in the process draws once: bounded caches of rendered lines,
and a panel's styled rows (its borders, padding, background and line filters applied).

Textual styles each row of a widget for the widget alone (``StylesCache``: one per widget,
so one per session), after the widget has drawn the row's content. Four players at a table
see the same log line, the same trick row, the same score: the panels already share the
content they draw (``Panel.render_line``), but each session then styled it again, about a
tenth of the server's CPU per action. A panel's content row is styled from two things: the
line it shows, and its *frame*, everything ``StylesCache`` reads to style a content row
(size, padding, borders, outline, backgrounds, opacity, tint, hatch, the widget's style,
the line filters and ANSI theme). So a styled row is kept once per process, keyed by an
id for the frame and the line's content key, and a session whose panel has the same frame
takes it as it is.

The frame is worked out again whenever Textual clears the widget's ``StylesCache`` (it does
so on every change of the widget's styles, size or theme: exactly when its own cached rows
go stale), and whenever the widget's size or the app's line filters differ from when it
was worked out. The line filters take part only as objects: sessions share them
(``tui/shared_filters.py``) so that their rows can be shared. Uses the private parts of the
pinned Textual's ``StylesCache`` (its line cache, ``render_widget``); tests/tui/
test_shared_rows.py checks a shared screen against the same screen drawn alone.
"""
from __future__ import annotations

import itertools
from typing import TYPE_CHECKING, Callable, Generic, Hashable, Literal, NamedTuple, Sequence, TypeVar

from rich.segment import Segment
from rich.style import Style as RichStyle
from textual.color import Color
from textual.filter import ANSIToTruecolor, DimFilter, LineFilter, Monochrome, NoColor
from textual.geometry import Offset, Region, Size
from textual.strip import Strip

from tui import textual_private
from tui.textual_private import StylesCache, Title

if TYPE_CHECKING:
    from textual.widget import Widget

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class SharedLRU(Generic[K, V]):
    """A bounded map that drops what was not used lately first: ``limit`` is a bound
    (memory), not a working size. Two generations: what is put goes into the young one,
    and when that holds half the limit it becomes the old one (the old one before it is
    dropped); a key found only in the old one moves to the young one. So a hit is one
    dict lookup: an OrderedDict kept in exact order moved the key to the end on every
    hit, and the hottest of these maps is asked for every row drawn by every session."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._young: dict[K, V] = {}
        self._old: dict[K, V] = {}

    def get(self, key: K) -> V | None:
        value = self._young.get(key)
        if value is None:
            value = self._old.get(key)
            if value is not None:
                self.put(key, value)
        return value

    def get_or_make(self, key: K, make: Callable[[], V]) -> V:
        """The value kept for ``key``, or ``make()`` kept for it. (The hottest callers, a row
        per repaint, inline this: a closure per call costs there.)"""
        value = self.get(key)
        if value is None:
            value = make()
            self.put(key, value)
        return value

    def put(self, key: K, value: V) -> None:
        self._old.pop(key, None)
        young = self._young
        young[key] = value
        if 2 * len(young) >= self.limit:  # the young generation is full: it is the old one now
            self._old, self._young = young, {}
        if len(self._old) + len(self._young) > self.limit:  # (a limit lowered since)
            self._old = {}

    def keys(self) -> list[K]:
        return [*self._old, *self._young]

    def __len__(self) -> int:
        return len(self._young) + len(self._old)

    def clear(self) -> None:
        self._young.clear()
        self._old.clear()


#: Styled content rows of panels: (frame id, the line's content key) -> the row, filtered.
STYLED_ROWS: SharedLRU[tuple[int, object], Strip] = SharedLRU(20_000)

# Frames are few (a handful of panels, times the sizes and themes in use), but a client
# can resize to many sizes: the map from a frame to its id is bounded too, and ids are
# never reused (a frame seen again after the map was cleared gets a new id).
_FRAME_IDS: dict[tuple[object, ...], int] = {}
FRAME_IDS_MAX = 4096
_next_id = itertools.count(1)

_BLANK = ("blank-row",)  # the content key of a row below the panel's last line


class Frame(NamedTuple):
    """What a widget's frame id was worked out for, where its content rows are, and what
    ``StylesCache.render`` is given besides the rows asked for (``render_widget`` worked
    all of it out again for every row no session had styled yet: the background colours
    alone are a walk up every ancestor's styles)."""

    size: Size  # the widget's region size
    filters: tuple[LineFilter, ...]  # the app's line filters
    id: int
    top: int  # the first content row
    content_height: int
    backgrounds: tuple[Color, Color]  # the widget's base background and background
    titles: tuple[Title | None, Title | None]  # the border title and subtitle, as render_widget styles them
    content_size: Size
    opacity: float
    inner: Size  # the region's size less borders and padding (``Panel._inner_size``)
    content_offset: Offset  # where the content starts (a panel has no scrollbar above or left of it)
    shared: range  # the rows styled from their content alone: content rows, less any an outline covers


class FramedStylesCache(StylesCache):
    """A widget's ``StylesCache`` that also keeps the widget's frame id until Textual clears
    it (on a change of the widget's styles, size or theme). The size kept with it is the
    widget's region size when the frame was worked out: a widget whose outer size is not
    that (never seen) has its frame worked out on every render, which is slower, not wrong."""

    def __init__(self) -> None:
        super().__init__()
        self.frame: Frame | None = None

    def clear(self) -> None:
        super().clear()
        self.frame = None


def _frame_id(widget: Widget, filters: tuple[LineFilter, ...], backgrounds: tuple[Color, Color],
              content_size: Size, opacity: float) -> int:
    """The id of what styling a content row of ``widget`` reads besides the row's content."""
    styles = widget.styles
    base_background, background = backgrounds
    app = widget.app
    frame = (
        type(widget), widget.id, widget.region.size, content_size,
        styles.padding, styles.gutter, styles.border, styles.outline,
        base_background, background, opacity, styles.text_opacity, styles.tint,
        styles.hatch if styles.has_rule("hatch") else None,
        widget.visual_style, app.ansi_theme, app.native_ansi_color, filters,
    )
    found = _FRAME_IDS.get(frame)
    if found is None:
        if len(_FRAME_IDS) >= FRAME_IDS_MAX:
            _FRAME_IDS.clear()
            _CAPS.clear()
        found = _FRAME_IDS[frame] = next(_next_id)
    return found


def kept_frame(widget: Widget, cache: FramedStylesCache) -> Frame | None:
    """The frame ``cache`` keeps, if it was worked out at the widget's size (its styles
    unchanged since: Textual clears the cache on a change of them)."""
    known = cache.frame
    return known if known is not None and known.size == widget.outer_size else None


def frame_of(widget: Widget, cache: FramedStylesCache) -> Frame:
    """``widget``'s frame, worked out again only when it may have changed."""
    filters = tuple(widget.get_line_filters())
    known = kept_frame(widget, cache)
    if known is not None and known.filters == filters:
        return known
    size, gutter = widget.region.size, widget.styles.gutter
    backgrounds, content_size, opacity = widget.background_colors, widget.content_region.size, widget.opacity
    content_height = max(0, size.height - gutter.height)
    (outline_top, _), _, (outline_bottom, _), _ = widget.styles.outline  # (drawn over the first and last rows)
    shared = range(max(gutter.top, 1 if outline_top else 0),
                   min(gutter.top + content_height, size.height - 1 if outline_bottom else size.height))
    known = cache.frame = Frame(size, filters, _frame_id(widget, filters, backgrounds, content_size, opacity),
                                gutter.top, content_height, backgrounds,
                                textual_private.border_titles(widget, backgrounds[0]), content_size, opacity,
                                Size(max(0, size.width - gutter.width), content_height),
                                Offset(gutter.left, gutter.top), shared)
    return known


def _styled(widget: Widget, cache: FramedStylesCache, frame: Frame, region: Region) -> list[Strip]:
    """``cache.render_widget(widget, region)`` from what ``frame`` holds. (Panels draw
    shared rows only without a hovered link: render_widget's restyling of those is not here.)
    Content rows of a frame whose ``Caps`` are known are put together from them."""
    caps = _CAPS.get(frame.id)
    lines = range(region.y, region.y + region.height)
    if caps and frame.top <= region.y and region.y + region.height <= frame.top + frame.content_height:
        return [_capped(widget, caps, y - frame.top, frame) for y in lines]
    textual_private.forget_simple_strip(cache)
    styles, app = widget.styles, widget.app
    rows = cache.render(styles, frame.size, *frame.backgrounds, widget.render_line,
                        frame.filters, *frame.titles,
                        content_size=frame.content_size, padding=styles.padding, crop=region,
                        opacity=frame.opacity, ansi_theme=app.ansi_theme, native_ansi=app.native_ansi_color)
    if caps is None:
        content = [y for y in lines if frame.top <= y < frame.top + frame.content_height]
        if content:
            _CAPS[frame.id] = _caps_of(widget, cache, frame, content[0])
    return rows


class Caps(NamedTuple):
    """What Textual puts either side of a content row of one frame (borders, padding), and
    the style it pads the content with: a content row is then ``left + content + right``,
    filtered. Textual's ``StylesCache.render_line`` works all of that out again for every
    row (colours added, styles made, boxes looked up): most of the cost of a row no session
    had styled yet, and a card played makes a few on every seat."""

    left: tuple[Segment, ...]
    right: tuple[Segment, ...]
    inner: RichStyle  # the content's background (``adjust_cell_length`` pads with it)
    content_width: int
    # The caps through the frame's line filters, where each filter maps segment by segment
    # (Textual's all do): a row is then the filtered caps around the content filtered on its
    # own, and the content's filtering is kept on the content's strip, which the sessions
    # share (SHARED_STRIPS), instead of being done again on each new row. None: filter rows.
    filtered: tuple[tuple[Segment, ...], tuple[Segment, ...]] | None


# frame id -> its Caps, or False for a frame whose content rows are more than that (a tint,
# an opacity, a hatch, an outline): those are styled by Textual. Cleared with the frame ids.
_CAPS: dict[int, Caps | Literal[False]] = {}


def _caps_of(widget: Widget, cache: FramedStylesCache, frame: Frame, y: int) -> Caps | Literal[False]:
    """The frame's Caps, taken from content row ``y`` as Textual has just styled it (before the
    line filters), and only if that row is exactly them around its content."""
    styles = widget.styles
    if (frame.opacity != 1.0 or styles.text_opacity != 1.0 or styles.tint.a
            or styles.has_rule("hatch") or any(edge for edge, _ in styles.outline)):
        return False
    styled, width = textual_private.cached_row(cache, y), frame.content_size.width
    if styled is None or width <= 0:
        return False
    inner = cache.get_inner_outer(*frame.backgrounds)[0].rich_style
    content = list(widget.render_line(y - frame.top).adjust_cell_length(width, inner))
    _, pad_right, _, pad_left = styles.padding
    before = bool(styles.border_left[0]) + bool(pad_left)
    after = bool(styles.border_right[0]) + bool(pad_right)
    segments = list(styled)
    if segments[before:len(segments) - after] != content:
        return False
    left, right = segments[:before], segments[len(segments) - after:]
    filtered = None
    if all(type(line_filter) in SEGMENT_FILTERS for line_filter in frame.filters):
        background = frame.backgrounds[1]
        for line_filter in frame.filters:
            left, right = line_filter.apply(left, background), line_filter.apply(right, background)
        filtered = (tuple(left), tuple(right))
    return Caps(tuple(segments[:before]), tuple(segments[len(segments) - after:]), inner, width, filtered)


# Line filters that map each segment on its own, so that a row may be filtered in parts.
SEGMENT_FILTERS = (ANSIToTruecolor, Monochrome, NoColor, DimFilter)


def _capped(widget: Widget, caps: Caps, line: int, frame: Frame) -> Strip:
    """Content row ``line`` of ``widget`` in ``frame``, as Textual styles it (Caps)."""
    content = widget.render_line(line).adjust_cell_length(caps.content_width, caps.inner)
    background = frame.backgrounds[1]
    if caps.filtered is not None:
        for line_filter in frame.filters:
            content = content.apply_filter(line_filter, background)
        left, right = caps.filtered
        return Strip([*left, *content, *right], frame.size.width)
    row = Strip([*caps.left, *content, *caps.right], frame.size.width)
    for line_filter in frame.filters:
        row = row.apply_filter(line_filter, background)
    return row


def shared_rows(widget: Widget, cache: FramedStylesCache, crop: Region,
                line_keys: Sequence[object]) -> list[Strip]:
    """``widget.render_lines(crop)``: the content rows from ``STYLED_ROWS`` where another
    session (or this one, earlier) styled them in the same frame; the rest, and the border
    and padding rows, styled by the widget's own ``StylesCache`` (and kept for the others).
    ``line_keys`` are the content keys of the panel's lines, top to bottom."""
    known = frame_of(widget, cache)
    size, frame, top, shared = known.size, known.id, known.top, known.shared
    rows: list[Strip | None] = []
    missing: list[int] = []
    for y in crop.line_range:
        if y in shared:
            line = y - top
            row = STYLED_ROWS.get((frame, line_keys[line] if line < len(line_keys) else _BLANK))
        else:
            row = None
        if row is None:
            missing.append(y)
        rows.append(row)
    for first, last in _runs(missing):  # (a border row between shared rows: two runs)
        styled = _styled(widget, cache, known, Region(0, first, size.width, last - first + 1))
        for y, row in zip(range(first, last + 1), styled):
            rows[y - crop.y] = row
            if y in shared:
                line = y - top
                STYLED_ROWS.put((frame, line_keys[line] if line < len(line_keys) else _BLANK), row)
    x1, x2 = crop.column_span
    full = [row for row in rows if row is not None]
    if (x1, x2) != (0, size.width):
        return [row.crop(x1, x2) for row in full]
    return full


def _runs(rows: list[int]) -> list[tuple[int, int]]:
    """Sorted row numbers as (first, last) runs of consecutive rows."""
    runs: list[tuple[int, int]] = []
    for y in rows:
        if runs and runs[-1][1] == y - 1:
            runs[-1] = (runs[-1][0], y)
        else:
            runs.append((y, y))
    return runs
