"""A widget's styles cache is not kept alive by a cache of two colours.

Textual 8.2.8's ``StylesCache.get_inner_outer`` is an ``lru_cache(1024)`` on a method (its
first parameter is named ``cls``, but it is no classmethod), so every key holds the
``StylesCache`` it was called on, and with it that widget's rendered lines (strips,
segments, styles). In a server holding many sessions' screens, up to 1024 caches of
widgets long gone stay alive: about 170 objects per closed lobby screen at first, which
every full pass of the garbage collector then walks (tests/tui/test_styles_cache_colours.py
measures it by counting what a closed app leaves). Here the two styles are cached by the
two colours alone, with Textual's size, and the result is the same.

Patched: ``textual._styles_cache.StylesCache.get_inner_outer``.
Upstream would need: a module-level (or static) cache of the two colours.
"""
from __future__ import annotations

from functools import lru_cache
from typing import Any

from textual.color import Color
from textual.style import Style

from tui.textual_private import StylesCache

_original: Any = None


@lru_cache(1024)
def inner_outer(base_background: Color, background: Color) -> tuple[Style, Style]:
    """Textual's two background styles of a widget: its own over its parent's, and the parent's."""
    return Style(background=base_background + background), Style(background=base_background)


def _get_inner_outer(self: StylesCache, base_background: Color, background: Color) -> tuple[Style, Style]:
    return inner_outer(base_background, background)


def install() -> None:
    """Replace the method; a second call changes nothing."""
    global _original
    if _original is not None:
        return
    _original = StylesCache.get_inner_outer
    _original.cache_clear()  # (anything cached before the patch is let go)
    StylesCache.get_inner_outer = _get_inner_outer  # type: ignore[method-assign,assignment]
