"""A text field of a fixed size does not ask for a layout of the screen at every key.

Textual 8.2.8's ``Input._watch_value`` sets the field's ``virtual_size`` (how wide its text
is, for its own horizontal scrolling) whenever the value changes, and ``virtual_size`` is a
reactive declared ``layout=True``: every key typed into a field laid out the whole screen
again (5-9 ms a key in the lobby's chat, where a typed line and its Enter cost 47 ms of
CPU). A field whose size the screen gives it (no ``auto`` width or height: every field in
this project) keeps its place whatever its text, and its scrolling reads the virtual size
when it scrolls; so here such a field takes its new virtual size quietly (``set_reactive``)
and asks for a repaint. A field sized by its content is left as it was.
Uses the private ``_watch_value`` of the pinned Textual (pyproject.toml pins it exactly);
tests/tui/test_quiet_input_size.py checks both sides.

Patched: ``textual.widgets.Input._watch_value``.
Upstream would need: ``Input`` setting its virtual size with ``layout`` only for auto
dimensions (as it already does for its own ``refresh(layout=True)`` just after).
"""
from __future__ import annotations

from typing import Callable

from textual.geometry import Size
from textual.widget import Widget
from textual.widgets import Input

_original: Callable[[Input, str], None] | None = None


def _watch_value(self: Input, value: str) -> None:
    assert _original is not None
    if not self.styles.auto_dimensions:
        # What the original sets next, set first without a layout: its own set then changes nothing.
        self.set_reactive(Widget.virtual_size, Size(self.content_width, 1))
        self.refresh()
    _original(self, value)


def install() -> None:
    """Replace ``Input._watch_value``; a second call changes nothing."""
    global _original
    if _original is not None:
        return
    _original = Input._watch_value
    Input._watch_value = _watch_value  # type: ignore[method-assign]
