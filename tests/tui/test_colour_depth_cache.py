"""A strip's escapes for a colour system other than truecolour are made once and kept
(tui/textual_patches/colour_depth.py): the same as made fresh, never another colour
system's, and bounded."""
from __future__ import annotations

import pyte
from hypothesis import given
from hypothesis import strategies as st
from rich.color import ColorSystem
from rich.segment import Segment
from rich.style import Style
from textual.strip import Strip

from server.session.shell import make_console
from tui.textual_patches import colour_depth


def _strip(n: int = 0) -> Strip:
    return Strip([Segment(f"hola {n}", Style(color="#ff8800", bgcolor="#002244", bold=True)),
                  Segment(" chau", Style(color="green")), Segment(" ", None)])


def test_escapes_are_kept_per_colour_system_and_are_those_made_fresh() -> None:
    strip = _strip()
    by_depth = {}
    for depth in ("256", "standard", None):
        console = make_console(depth, "xterm")
        first = strip.render(console)
        assert strip.render(console) is first  # kept, not made again
        assert first == colour_depth._escapes(strip, console._color_system)
        by_depth[depth] = first
    assert by_depth["256"] != by_depth["standard"] != by_depth[None]
    assert "\x1b[" not in by_depth[None].replace("\x1b[0;1m", "").replace("\x1b[0m", "")  # no colour codes
    assert ColorSystem.TRUECOLOR not in {key[1] for key in colour_depth._RENDERED.keys()}  # Textual's own cache


def test_the_kept_escapes_stay_bounded_and_a_lowered_bound_holds_at_once() -> None:
    saved = colour_depth._RENDERED.limit
    console = make_console("256", "xterm")
    kept = [_strip(100 + n) for n in range(20)]  # (other tests may have kept thousands already)
    for strip in kept:
        strip.render(console)
    assert colour_depth.rendered_count() >= 20
    colour_depth._RENDERED.limit = 5
    try:
        strips = [_strip(n) for n in range(20)]
        for strip in strips:
            strip.render(console)
            assert colour_depth.rendered_count() <= 5
        assert strips[-1].render(console) == colour_depth._escapes(strips[-1], console._color_system)
    finally:
        colour_depth._RENDERED.limit = saved


styles = st.one_of(st.none(), st.builds(
    Style, color=st.sampled_from([None, "#ff8800", "green", "color(253)", "#002244"]),
    bgcolor=st.sampled_from([None, "color(233)", "#002244", "blue"]),
    bold=st.sampled_from([None, True]), italic=st.sampled_from([None, True]),
    underline=st.sampled_from([None, True]), reverse=st.sampled_from([None, True])))
segments = st.lists(st.tuples(st.text("ab ─│", min_size=1, max_size=4), styles), max_size=8)


def _cells(escapes: str) -> list[tuple[object, ...]]:
    screen = pyte.Screen(40, 2)
    pyte.Stream(screen).feed(escapes + "\x1b[2;1Hx")  # then text with whatever style is left
    return [(c.data, c.fg, c.bg, c.bold, c.italics, c.underscore, c.reverse)
            for row in range(2) for c in (screen.buffer[row][x] for x in range(40))]


@given(segments)
def test_styles_set_where_they_change_draw_what_one_per_segment_draws(parts) -> None:
    """Each style is set once where it changes, with a reset first; Textual sets and resets
    every segment's. A terminal shows the same cells either way, and nothing set is left
    over for what follows the strip."""
    strip = Strip([Segment(text, style) for text, style in parts])
    for depth in ("256", "standard", None):
        system = make_console(depth, "xterm")._color_system
        one_each = "".join(text if style is None or not (ansi := colour_depth._sgr(style, system))
                           else f"\x1b[{ansi}m{text}\x1b[0m" for text, style in parts)
        assert _cells(colour_depth._escapes(strip, system)) == _cells(one_each)
