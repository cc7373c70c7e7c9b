"""A layout does not ask for a second layout for widgets that cannot scroll.

Textual 8.2.8 lays the screen out, then tells every widget its new size through
``Widget._size_updated``, which sets the ``virtual_size`` reactive; that reactive is
declared ``layout=True``, so every widget whose virtual size changed asks for another
layout of the whole screen, done on the next refresh. The virtual size only matters for
scrollbars (whether they show, and how far one may scroll), and the layout that just ran
already computed it. At a table the bets line takes a second row at the end of a hand
(and gives it back at the deal): the log panes and the rows around them change size,
each asked for that second layout, and every hand end cost each seat four full layouts
instead of two. Here a widget whose overflow is hidden on both axes (no scrollbar can
appear, so the second layout could not change anything) takes its new virtual size
without asking for a layout, the way Textual's own scroll-only reflow already does
(``layout=False``); the value is stored all the same, and a widget whose size changed is
still repainted. Widgets that may show a scrollbar are left as they were.
Uses the private ``_size_updated`` of the pinned Textual (pyproject.toml pins it exactly);
tests/tui/test_hidden_overflow.py checks both sides.

Patched: ``textual.widget.Widget._size_updated``.
Upstream would need: ``_size_updated`` skipping the layout request when the widget's
overflow is hidden on both axes (or the layout pass setting ``virtual_size`` without
triggering its own reactive).
"""
from __future__ import annotations

from typing import Callable

from textual.geometry import Size
from textual.widget import Widget

SizeUpdated = Callable[[Widget, Size, Size, Size, bool], bool]
_original: SizeUpdated | None = None


def _size_updated(self: Widget, size: Size, virtual_size: Size, container_size: Size,
                  layout: bool = True) -> bool:
    assert _original is not None
    if layout:
        styles = self.styles
        if styles.overflow_x == "hidden" and styles.overflow_y == "hidden":
            layout = False
    return _original(self, size, virtual_size, container_size, layout)


def install() -> None:
    """Replace ``Widget._size_updated``; a second call changes nothing."""
    global _original
    if _original is not None:
        return
    _original = Widget._size_updated
    Widget._size_updated = _size_updated  # type: ignore[method-assign]
