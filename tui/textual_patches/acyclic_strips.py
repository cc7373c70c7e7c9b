"""A strip never keeps itself in its own caches, so a dropped strip is freed at once.

Textual 8.2.8's ``Strip.divide`` caches its result on the strip, and when the cuts leave
the strip whole (one cut at its end: every row the compositor writes of a widget that has
the row's span to itself) the result is ``[self]``; ``crop_extend`` likewise caches the
strip itself when it neither extends nor crops it. A strip in its own cache is a reference
cycle: reference counting never frees it, nor its segments and styles, so they waited for
the garbage collector (strips, their caches and segments were most of what its passes freed
while sessions set up their screens, ``gc.DEBUG_SAVEALL`` under tests/bench/load_bench.py;
its middle passes then took 100-300 ms, a pause for every player on the server). Here those
two return the strip itself without caching it (there is nothing to save: it is the strip);
every other result is cached as before.
Uses the private ``_divide_cache`` and ``_crop_extend_cache`` of the pinned Textual;
tests/tui/test_acyclic_strips.py checks that a divided strip is freed by reference
counting alone and that the results are Textual's.

Patched: ``textual.strip.Strip.divide`` and ``Strip.crop_extend``.
Upstream would need: not caching ``self`` in ``divide`` and ``crop_extend``.
"""
from __future__ import annotations

from typing import Callable, Iterable, Sequence

from rich.style import Style
from textual.strip import Strip

_original_divide: Callable[[Strip, Iterable[int]], Sequence[Strip]] | None = None
_original_crop_extend: Callable[[Strip, int, int, Style | None], Strip] | None = None


def _divide(self: Strip, cuts: Iterable[int]) -> Sequence[Strip]:
    assert _original_divide is not None
    cuts = list(cuts)
    length = self.cell_length
    if [cut for cut in cuts if cut <= length] == [length]:  # (Textual drops cuts past the end)
        return [self]  # whole: Textual's result, not kept in the strip's own cache
    return _original_divide(self, cuts)


def _crop_extend(self: Strip, start: int, end: int, style: Style | None) -> Strip:
    assert _original_crop_extend is not None
    if start <= 0 and end == self.cell_length:
        return self  # neither extended nor cropped: the strip itself, not cached
    return _original_crop_extend(self, start, end, style)


def install() -> None:
    """Replace the two methods; a second call changes nothing."""
    global _original_divide, _original_crop_extend
    if _original_divide is not None:
        return
    _original_divide = Strip.divide
    _original_crop_extend = Strip.crop_extend
    Strip.divide = _divide  # type: ignore[method-assign]
    Strip.crop_extend = _crop_extend  # type: ignore[method-assign]
