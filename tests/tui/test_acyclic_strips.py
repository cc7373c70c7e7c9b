"""A strip never keeps itself in its own caches (tui/textual_patches/acyclic_strips.py): a
strip divided whole, or crop-extended to itself, is freed by reference counting alone, and
every result is Textual's."""
from __future__ import annotations

import gc

import pytest
from hypothesis import given
from hypothesis import strategies as st
from rich.segment import Segment
from rich.style import Style
from textual.strip import Strip

from tui.textual_patches import acyclic_strips


def _strip(text: str = "hola mundo") -> Strip:
    return Strip([Segment(text[:4], Style(bold=True)), Segment(text[4:])], len(text))


@pytest.mark.parametrize("use", [
    lambda strip: strip.divide([strip.cell_length]),
    lambda strip: strip.divide([strip.cell_length, strip.cell_length + 5]),
    lambda strip: strip.crop_extend(0, strip.cell_length, None),
])
def test_a_strip_used_whole_is_freed_without_the_collector(use) -> None:  # type: ignore[no-untyped-def]
    gc.collect()
    gc.disable()
    try:
        strip = _strip()
        used = use(strip)
        assert (used[0] if isinstance(used, list) else used) is strip
        del strip, used
        assert gc.collect() == 0  # no cycle was left: reference counting freed it all
    finally:
        gc.enable()


@given(st.text(alphabet="abcdé ", min_size=0, max_size=12),
       st.lists(st.integers(min_value=0, max_value=16), max_size=4),
       st.integers(min_value=-2, max_value=14), st.integers(min_value=0, max_value=16))
def test_results_are_textuals(text: str, cuts: list[int], start: int, end: int) -> None:
    assert acyclic_strips._original_divide is not None and acyclic_strips._original_crop_extend is not None
    strip, plain = _strip(text), _strip(text)
    cuts = sorted(cuts)
    assert [s.text for s in strip.divide(cuts)] == [s.text for s in acyclic_strips._original_divide(plain, cuts)]
    assert strip.crop_extend(start, end, None).text == \
        acyclic_strips._original_crop_extend(plain, start, end, None).text
