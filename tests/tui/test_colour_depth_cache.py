"""A strip's escapes for a colour system other than truecolour are made once and kept
(tui/textual_patches/colour_depth.py): the same as made fresh, never another colour
system's, and bounded."""
from __future__ import annotations

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
    assert "\x1b[" not in by_depth[None].replace("\x1b[1m", "").replace("\x1b[0m", "")  # no colour codes
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
