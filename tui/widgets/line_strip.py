"""One line of a panel drawn into a Strip by Rich, as Textual draws it: the widget's style
under the line's, padded to the width, each piece marked with its column."""
from __future__ import annotations

from functools import lru_cache

from rich import themes
from rich.cells import cell_len
from rich.console import Console
from rich.segment import Segment
from rich.style import Style as RichStyle
from rich.text import Text
from textual.strip import Strip

from tui.widgets.shared_rows import SharedLRU

Piece = tuple[str, "RichStyle | None"]


@lru_cache(maxsize=512)
def _at_column(x: int) -> RichStyle:
    """The mark Textual puts on each piece of a line: where it starts (a mouse selection
    starts from it)."""
    return RichStyle.from_meta({"offset": (x, 0)})


# A piece's style is the widget's, the span's and the column mark added up: three Style
# additions (each a new Style when Rich's own small cache of them misses, as it does with
# a column in the key) for every piece of every new line. The panels draw a few dozen
# span styles at a few widget styles, so the sums are kept, shared by every session.
_PIECE_STYLES: SharedLRU[tuple[RichStyle, RichStyle | None, int], RichStyle] = SharedLRU(20_000)
# Span styles by name ("bold yellow"), parsed as a console with Rich's default theme does
# (Textual's App gives every session's console that theme).
_NAMED_STYLES: SharedLRU[str, RichStyle] = SharedLRU(2_000)
_NULL = RichStyle.null()


def rich_line_strip(line: Text, width: int, base: RichStyle, console: Console) -> Strip:
    """One line that fits ``width``, drawn by Rich, as Textual draws it.

    Textual's own way (a Content made from the Text, formatted and turned back into
    segments) took six times as long, and a seat draws one or two new lines per action
    (a seat row, its cards). A line wider than ``width`` (cut with an ellipsis), a selected
    one, and one with a base style (Textual does not theme a base style's ANSI colours, as
    it does a span's) are drawn by Textual (``Panel._render_one``)."""
    pieces = in_order(line, console)
    if pieces is None:  # spans that overlap (a card stylized over its colours): Rich's own
        pieces = [(text, style) for text, style, _control in line.render(console, end="")]
    segments: list[Segment] = []
    x = 0
    for text, style in pieces:
        key = (base, style or None, x)
        piece_style = _PIECE_STYLES.get(key)
        if piece_style is None:
            piece_style = base + style + _at_column(x) if style else base + _at_column(x)
            _PIECE_STYLES.put(key, piece_style)
        segments.append(Segment(text, piece_style))
        x += cell_len(text)
    if x < width:
        segments.append(Segment(" " * (width - x), base))
    return Strip(segments, width)


def in_order(line: Text, console: Console) -> list[Piece] | None:
    """The pieces ``line.render`` gives (text, style), for a line whose spans follow each
    other without overlapping, inside the text, each non-empty, and that has no base style
    (how the panels build their lines: one ``append`` after another); None for any other.

    Rich's render handles any spans (a stack of styles at each boundary, combined), and
    was most of the time spent drawing a new line: about a twelfth of the server's CPU per
    action at tables played on terminals."""
    text = line.plain
    spans = line.spans
    if line.style or not _default_theme(console):
        return None
    if not spans:
        return [(text, None)]
    end_of_text = len(text)
    pieces: list[Piece] = []
    at = 0
    for start, end, style in spans:
        if start < at or end > end_of_text or start >= end:
            return None
        if start > at:
            pieces.append((text[at:start], _NULL))
        pieces.append((text[start:end], _named(style, console) if isinstance(style, str) else style))
        at = end
    if at < end_of_text:
        pieces.append((text[at:], _NULL))
    return pieces


def _named(name: str, console: Console) -> RichStyle:
    return _NAMED_STYLES.get_or_make(name, lambda: console.get_style(name, default=_NULL))


def _default_theme(console: Console) -> bool:
    """Whether ``console`` looks style names up in Rich's default theme (no theme pushed)."""
    get = getattr(getattr(console, "_theme_stack", None), "get", None)
    return getattr(get, "__self__", None) is themes.DEFAULT.styles
