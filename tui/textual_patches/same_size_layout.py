"""A screen already laid out at a size is not laid out again for a Resize to that size.

Textual 8.2.8 lays a screen out in full (``Screen._refresh_layout``) whenever it gets a
Resize (``Screen._screen_resized``, from ``Screen._on_resize``), and does the same to every
screen below it in the stack. A screen's first layout, when it is shown, posts a Resize to
every widget it just placed, the screen itself included, so every new screen was laid out
twice at the same size, and each screen below it once more: the lobby over the default
screen, the quick-play dialog over the lobby, the table over the lobby, each time at
connect. Nothing had changed in between (a widget that changed since asks for its own
layout, which the screen's update timer does), so the second layout computed the same
regions again. Here ``_screen_resized`` skips a screen whose compositor was last laid out at
exactly that size; a real change of size, or a screen never laid out, is laid out as before.
The Resize still reaches the screen's and its widgets' own ``on_resize`` handlers.
Uses the private ``_screen_resized`` and ``_compositor`` of the pinned Textual (pyproject.toml
pins it exactly); tests/tui/test_same_size_layout.py checks both sides.

Patched: ``textual.screen.Screen._screen_resized``.
Upstream would need: ``_screen_resized`` (or ``_on_resize``) comparing the new size with the
size of the screen's last layout.
"""
from __future__ import annotations

from typing import Any, Callable

from textual.geometry import Size
from textual.screen import Screen

_original: Callable[[Screen[Any], Size], None] | None = None


def _screen_resized(self: Screen[Any], size: Size) -> None:
    assert _original is not None
    if self._compositor.size == size and size:  # laid out at this size already
        return
    _original(self, size)


def install() -> None:
    """Replace ``Screen._screen_resized``; a second call changes nothing."""
    global _original
    if _original is not None:
        return
    _original = Screen._screen_resized
    Screen._screen_resized = _screen_resized  # type: ignore[method-assign]
