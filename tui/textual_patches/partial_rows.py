"""A partial screen update renders only the rows it will write.

Textual 8.2.8 updates the screen from the union of the regions that changed: every
widget overlapping that box is asked for all its visible lines (from its line cache, each
through the line filters), and then all but the changed rows are thrown away. At a
table a played card changes a few rows at the top (tricks, seats) and a few at the bottom
(status, key bar), so the box is the whole screen: each seat rendered about 80 lines and
called every widget, for the 10 to 15 rows it writes, on every action. Here each widget is
asked only for the rows from its first to its last row being written (one call, the rows
between come from its cache), and widgets with no such row are not asked at all. The rows
written, and so what the terminal shows, are the same; a full update (every row written)
renders as before. A widget line left dirty because no row of it was written stays dirty
(``StylesCache`` clears only the lines it rendered) and is rendered when next written.
Within a row, only what lies in the spans being written is sent to the terminal (Textual's
``ChopsUpdate`` skips the rest), so a widget that has no part in any span of a row is not
asked for that row either: a new log line no longer renders the chat pane beside it, nor a
card played the calls beside the hand (side-by-side panes were each rendered for the
other's changes, half of the table's rendering per action). Nor is a widget asked for a
row where the widgets in front of it already cover all of its part (a container behind
its children, the screen behind the whole table). A full render asks every row.
Uses the private compositor of the pinned Textual (pyproject.toml pins it exactly);
tests/tui/test_partial_rows.py checks the rows against a full render.

Patched: ``textual._compositor.Compositor._render_chops`` and ``render_partial_update``
(which hands ``_render_chops`` the spans, not only their rows).
Upstream would need: ``_get_renders`` told which spans are rendered (it already receives
``is_rendered_line`` in ``_render_chops``) and cropping each widget's render to them.
"""
from __future__ import annotations

from bisect import bisect_left
from typing import Callable, Mapping, Sequence

from textual._compositor import ChopsUpdate, Compositor
from textual.geometry import Region
from textual.strip import Strip


class RowSpans(dict[int, list[tuple[int, int]]]):
    """The spans a partial update writes, by row: called with a row, whether it has any."""

    def __call__(self, y: int) -> bool:
        return y in self

    def touches(self, y: int, x0: int, x1: int) -> bool:
        """Whether a span of row ``y`` covers any of the columns ``x0`` to ``x1`` (ends
        exclusive, as Textual's spans: nothing is written at a span's end column)."""
        for start, end in self.get(y, ()):  # (a loop: asked ~80 times per update)
            if start < x1 and x0 < end:
                return True
        return False


def _open(chops_line: dict[int, Strip | None], cut_set: list[int], first_cut: int, last_cut: int,
          y: int, spans: RowSpans | None) -> bool:
    """Whether a cut of row ``y`` from ``first_cut`` to ``last_cut`` is still to be filled
    (and, in a partial update, is written)."""
    for i in range(bisect_left(cut_set, first_cut), len(cut_set) - 1):
        start = cut_set[i]
        if start >= last_cut:
            break
        if chops_line.get(start, 0) is None and (spans is None or spans.touches(y, start, cut_set[i + 1])):
            return True
    return False


def render_partial_update(self: Compositor) -> ChopsUpdate | None:
    """Textual's, with the spans handed to ``_render_chops`` as a ``RowSpans``."""
    update_regions = self._dirty_regions.copy()
    self._dirty_regions.clear()
    if not update_regions:
        return None
    crop = Region.from_union(update_regions).intersection(self.size.region)
    spans = list(self._regions_to_spans(update_regions))
    rows = RowSpans()
    for y, x1, x2 in spans:
        rows.setdefault(y, []).append((x1, x2))
    chops = self._render_chops(crop, rows)
    chop_ends = [cut_set[1:] for cut_set in self.cuts]
    return ChopsUpdate(chops, spans, chop_ends)


def _render_chops(self: Compositor, crop: Region,
                  is_rendered_line: Callable[[int], bool]) -> Sequence[Mapping[int, Strip]]:
    spans = is_rendered_line if isinstance(is_rendered_line, RowSpans) else None
    span_rows = sorted(spans) if spans is not None else []  # the rows written, in order
    cuts = self.cuts
    chops: list[dict[int, Strip | None]] = [dict.fromkeys(cut_set[:-1]) for cut_set in cuts]
    crop_overlaps = crop.overlaps
    intersection = Region.intersection
    # Front to back, as Textual's _get_renders: the first strip for a cut wins.
    for widget, (region, clip) in self.visible_widgets.items():
        if not crop_overlaps(clip):
            continue
        render_region = intersection(region, clip)
        x, y0, width, height = render_region
        if not (width and height):
            continue
        first_cut, last_cut = render_region.column_span
        if spans is None:
            rows = [y for y in range(y0, y0 + height) if is_rendered_line(y)]
        else:  # only the rows where a span reaches this widget (of the few rows written)
            rows = [y for y in span_rows[bisect_left(span_rows, y0):bisect_left(span_rows, y0 + height)]
                    if spans.touches(y, x, x + width)]
        # A row whose every cut here is taken by a widget in front (a container behind its
        # children, the screen behind everything) would be rendered only to be dropped.
        rows = [y for y in rows if _open(chops[y], cuts[y], first_cut, last_cut, y, spans)]
        if not rows:
            continue
        wanted = set(rows)
        first, last = rows[0], rows[-1]
        strips = widget.render_lines(Region(x - region.x, first - region.y, width, last - first + 1))
        for y, strip in zip(range(first, last + 1), strips):
            if y not in wanted:
                continue
            chops_line = chops[y]
            final_cuts = [cut for cut in cuts[y] if last_cut >= cut >= first_cut]
            cut_strips = strip.divide([cut - x for cut in final_cuts[1:]])
            get_chops_line = chops_line.get
            for cut, cut_strip in zip(final_cuts, cut_strips):
                if get_chops_line(cut) is None:
                    chops_line[cut] = cut_strip
    return chops  # type: ignore[return-value]


def install() -> None:
    """Replace ``Compositor._render_chops`` and ``render_partial_update``; a second call
    changes nothing."""
    Compositor._render_chops = _render_chops  # type: ignore[method-assign]
    Compositor.render_partial_update = render_partial_update  # type: ignore[method-assign]
