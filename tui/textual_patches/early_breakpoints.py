"""A screen with breakpoints gets its breakpoint classes before it is first styled.

Textual 8.2.8 sets a screen's breakpoint classes (``HORIZONTAL_BREAKPOINTS`` and
``VERTICAL_BREAKPOINTS``: ``-narrow``, ``-wide``, ``-short``...) only in
``Screen._on_resize``, which runs after the screen and all its widgets were mounted and
styled. The first Resize then adds the classes, and ``update_classes`` styles the whole
screen again, every widget of it: for the table screen (the one screen here with breakpoints)
a second full pass of the stylesheet each time a player sits down or watches. Here the
classes for the app's size are set when the screen is registered, before the stylesheet is
applied to it and, later, to its widgets; the first Resize finds them in place and changes
nothing, and a later change of size moves them as before.
Uses the private ``_post_register`` and ``_get_breakpoint_classes`` of the pinned Textual
(pyproject.toml pins it exactly); tests/tui/test_early_breakpoints.py checks both sides.

Patched: ``textual.screen.Screen._post_register``.
Upstream would need: the breakpoint classes set from ``App.size`` when a screen is
registered (``App._register``), not only on Resize.
"""
from __future__ import annotations

from typing import Any, Callable

from textual.app import App
from textual.geometry import Size
from textual.screen import Screen

_original: Callable[[Screen[Any], App[Any]], None] | None = None


def breakpoint_classes(screen: Screen[Any], app: App[Any], size: Size) -> dict[str, bool]:
    """Each breakpoint class of the screen, and whether ``size`` has it (as
    ``Screen._on_resize`` decides)."""
    horizontal = (app.HORIZONTAL_BREAKPOINTS if screen.HORIZONTAL_BREAKPOINTS is None
                  else screen.HORIZONTAL_BREAKPOINTS) or []
    vertical = (app.VERTICAL_BREAKPOINTS if screen.VERTICAL_BREAKPOINTS is None
                else screen.VERTICAL_BREAKPOINTS) or []
    classes = {name: False for _, name in (horizontal + vertical)}
    for name in screen._get_breakpoint_classes(size.width, horizontal):
        classes[name] = True
    for name in screen._get_breakpoint_classes(size.height, vertical):
        classes[name] = True
    return classes


def _post_register(self: Screen[Any], app: App[Any]) -> None:
    assert _original is not None
    _original(self, app)
    classes = breakpoint_classes(self, app, app.size)
    if classes:
        self.update_classes(classes, update=False)  # not styled yet: the styling reads them


def install() -> None:
    """Replace ``Screen._post_register``; a second call changes nothing."""
    global _original
    if _original is not None:
        return
    _original = Screen._post_register
    Screen._post_register = _post_register  # type: ignore[method-assign,assignment]
