"""Strips allocate their caches only when used (tui/textual_patches/lazy_strips.py)."""
from __future__ import annotations

from rich.segment import Segment
from rich.style import Style
from textual.strip import Strip

from tui.textual_patches.lazy_strips import CACHE_SIZES


def test_a_new_strip_holds_no_caches_until_one_is_used() -> None:
    strip = Strip([Segment("hola mundo")], 10)
    assert all(isinstance(Strip.__dict__[name], property) for name in CACHE_SIZES)
    cropped = strip.crop(0, 4)
    assert cropped.text == "hola"
    assert strip.crop(0, 4) is cropped  # cached, as Textual does
    assert strip._crop_cache._maxsize == CACHE_SIZES["_crop_cache"]


def test_strip_operations_behave_as_before() -> None:
    strip = Strip([Segment("ab", Style(bold=True)), Segment("cd")], 4)
    assert strip.adjust_cell_length(6).text == "abcd  "
    assert strip.apply_style(Style(italic=True)).text == "abcd"
    assert [s.text for s in strip.divide([1, 3, 4])] == ["a", "bc", "d"]
    assert strip.crop_extend(1, 6, None).text == "bcd  "
