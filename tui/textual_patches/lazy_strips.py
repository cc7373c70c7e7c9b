"""Strips allocate their caches when first used.

Textual 8.2.8 gives every ``Strip`` (one line of a widget) seven small FIFO caches at
creation, about 1 KB per strip, whether or not the strip is ever cropped, styled or
filtered. A session keeps a few hundred strips alive, most never touched again, so the
empty caches were about a third of a lobby session's memory. Here each cache slot is
left empty until something reads it, and is then created with Textual's own size; the
strip's behaviour is unchanged. Uses the private slot names of the pinned Textual
(pyproject.toml pins it exactly); tests/tui/test_lazy_strips.py checks both sides.

Patched: ``textual.strip.Strip.__init__`` and the seven cache slots of ``Strip``.
Upstream would need: ``Strip`` creating its caches on first use (or one shared cache
object per strip instead of seven).
"""
from __future__ import annotations

from typing import Any, Callable, Iterable

from rich.segment import Segment
from textual.cache import FIFOCache
from textual.strip import Strip

# Slot name -> the size Textual gives that cache in Strip.__init__.
CACHE_SIZES = {
    "_divide_cache": 4,
    "_crop_cache": 16,
    "_style_cache": 16,
    "_filter_cache": 4,
    "_line_length_cache": 4,
    "_crop_extend_cache": 4,
    "_offsets_cache": 4,
}


def _lazy(slot: Any, size: int) -> property:
    read, write = slot.__get__, slot.__set__

    def cache(strip: Strip) -> FIFOCache[Any, Any]:
        try:
            return read(strip, Strip)  # type: ignore[no-any-return]
        except AttributeError:  # never used yet
            created: FIFOCache[Any, Any] = FIFOCache(size)
            write(strip, created)
            return created

    return property(cache)


def _init(self: Strip, segments: Iterable[Segment], cell_length: int | None = None) -> None:
    self._segments = list(segments)
    self._cell_length = cell_length
    self._render_cache = None
    self._link_ids = None
    self._cell_count = None


def install() -> None:
    """Make the cache slots lazy; a second call changes nothing (the slots are wrapped once)."""
    if getattr(Strip, "_lazy_caches", False):
        return
    for name, size in CACHE_SIZES.items():
        setattr(Strip, name, _lazy(Strip.__dict__[name], size))
    init: Callable[..., None] = _init
    Strip.__init__ = init  # type: ignore[method-assign]
    Strip._lazy_caches = True  # type: ignore[attr-defined]
