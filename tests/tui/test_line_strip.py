"""A panel line's pieces read straight off its spans (tui/widgets/line_strip.py ``in_order``)
are the pieces Rich's own render gives, and the strip drawn from them is the same, for any
line built the way the panels build theirs; any other line is left to Rich."""
from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from rich.console import Console
from rich.style import Style
from rich.text import Text
from rich.theme import Theme

from tui.widgets import line_strip
from tui.widgets.line_strip import in_order, rich_line_strip

STYLES = [None, "", "bold", "bold yellow", "dim", "italic yellow", "reverse bold", "cyan", "green",
          "not a style at all", Style(color="red", bold=True), Style.null(), Style.parse("on blue")]
TEXTS = st.text(alphabet="ab ñ■▶😀│─…", max_size=6)
PIECES = st.lists(st.tuples(TEXTS, st.sampled_from(STYLES)), max_size=8)
CONSOLE = Console()  # Rich's default theme, as Textual's App gives every session
BASE = Style(color="#e0e0e0", bgcolor="#1e1e1e")


def _line(pieces: list[tuple[str, Any]]) -> Text:
    line = Text(no_wrap=True, overflow="ellipsis")
    for text, style in pieces:
        line.append(text, style=style)  # (an empty text or no style adds no span)
    return line


def _rich_pieces(line: Text) -> list[tuple[str, Any]]:
    return [(text, style) for text, style, _control in line.render(CONSOLE, end="")]


@settings(max_examples=300, deadline=None)
@given(PIECES)
def test_the_pieces_of_an_appended_line_are_riches(pieces: list[tuple[str, Any]]) -> None:
    line = _line(pieces)
    assert in_order(line, CONSOLE) == _rich_pieces(line)


@settings(max_examples=200, deadline=None)
@given(PIECES, st.integers(0, 40), st.integers(0, 40), st.sampled_from(STYLES[1:]))
def test_overlapping_spans_are_left_to_rich_and_the_strip_is_the_same(
        pieces: list[tuple[str, Any]], start: int, length: int, over: Any) -> None:
    line = _line(pieces)
    line.stylize(over, start, start + length)  # over the appended pieces, as a won card's "reverse"
    ours = in_order(line, CONSOLE)
    assert ours is None or ours == _rich_pieces(line)
    width = line.cell_len + 3
    drawn = rich_line_strip(line, width, BASE, CONSOLE)
    original = line_strip.in_order
    try:
        line_strip.in_order = lambda line, console: None  # type: ignore[assignment]  # Rich's render alone
        by_rich = rich_line_strip(line, width, BASE, CONSOLE)
    finally:
        line_strip.in_order = original
    assert list(drawn) == list(by_rich) and drawn.cell_length == width


def test_a_line_with_a_base_style_or_another_theme_is_left_to_rich() -> None:
    based = Text("Te toca.", style="bold")
    assert in_order(based, CONSOLE) is None
    themed = Console(theme=Theme({"cyan": "bold red"}))  # a theme that renames a colour
    line = _line([("10", "cyan")])
    assert in_order(line, themed) is None and in_order(line, CONSOLE) == [("10", Style.parse("cyan"))]
