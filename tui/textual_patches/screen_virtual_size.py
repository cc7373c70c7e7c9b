"""A screen's new virtual size does not ask for a second layout of the screen.

Textual 8.2.8 tells every widget its size after a layout (``Widget._size_updated``), and
sets its ``virtual_size``, a reactive declared ``layout=True``: a widget whose virtual size
changed asks for another layout of the screen. For a screen's own first layout (its virtual
size goes from nothing to the terminal's) that was a second full layout and repaint of every
new screen (the lobby, the quick-play dialog, the table). What a screen's virtual size
changes is whether it shows a scrollbar and how far it may scroll; ``_size_updated`` works
both out itself right there (``_scroll_update``), and a scrollbar that appears or goes sets
its own reactives, which ask for their layout. So here a screen takes its new virtual size
without asking (as ``hidden_overflow`` does for widgets that cannot scroll); its widgets
are left as they were.
Uses the private ``_size_updated`` of the pinned Textual (pyproject.toml pins it exactly);
tests/tui/test_screen_virtual_size.py checks both sides.

Patched: ``textual.screen.Screen._size_updated`` (Screen inherits Widget's; this one calls it).
Upstream would need: the layout pass setting a screen's ``virtual_size`` without triggering
its own reactive (``layout=False``, as the scroll-only reflow does).
"""
from __future__ import annotations

from typing import Any

from textual.geometry import Size
from textual.screen import Screen
from textual.widget import Widget

_installed = False


def _size_updated(self: Screen[Any], size: Size, virtual_size: Size, container_size: Size,
                  layout: bool = True) -> bool:
    return Widget._size_updated(self, size, virtual_size, container_size, False)


def install() -> None:
    """Give ``Screen`` its own ``_size_updated``; a second call changes nothing."""
    global _installed
    if _installed:
        return
    Screen._size_updated = _size_updated  # type: ignore[method-assign,assignment]
    _installed = True
