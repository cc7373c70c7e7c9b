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
Uses the private compositor of the pinned Textual (pyproject.toml pins it exactly);
tests/tui/test_partial_rows.py checks the rows against a full render.

Patched: ``textual._compositor.Compositor._render_chops``.
Upstream would need: ``_get_renders`` told which rows are rendered (it already receives
``is_rendered_line`` in ``_render_chops``) and cropping each widget's render to them.
"""
from __future__ import annotations

from typing import Callable, Mapping, Sequence

from textual._compositor import Compositor
from textual.geometry import Region
from textual.strip import Strip


def _render_chops(self: Compositor, crop: Region,
                  is_rendered_line: Callable[[int], bool]) -> Sequence[Mapping[int, Strip]]:
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
        rows = [y for y in range(y0, y0 + height) if is_rendered_line(y)]
        if not rows:
            continue
        first, last = rows[0], rows[-1]
        strips = widget.render_lines(Region(x - region.x, first - region.y, width, last - first + 1))
        first_cut, last_cut = render_region.column_span
        for y, strip in zip(range(first, last + 1), strips):
            if not is_rendered_line(y):
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
    """Replace ``Compositor._render_chops``; a second call changes nothing."""
    Compositor._render_chops = _render_chops  # type: ignore[method-assign]
