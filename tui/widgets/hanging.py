"""Help text whose long lines wrap under their own description, not at the first column.

The help is written as a table of keys ("  j o Enter   sit at the chosen table") and of
indented lines. Wrapped by Rich, the rest of a long line started at column 1, under the key,
and a player read it as a new entry. Here each line that does not fit goes on under the
column where its description starts: after the first gap of two or more spaces, else under
its own indent. A line the text itself continues under a description is joined to it first.
"""
from __future__ import annotations

import re

from rich.cells import cell_len
from rich.text import Text
from textual.geometry import Size
from textual.widget import Widget

GAP = re.compile(r"\S( {2,})(?=\S)")
MIN_TEXT = 16  # columns a continuation keeps for its words: past that it hangs under the indent


def hang_column(line: str) -> int:
    """Where a wrapped line's continuation starts."""
    indent = len(line) - len(line.lstrip(" "))
    gap = GAP.search(line, indent)
    return cell_len(line[:gap.end(1)]) if gap is not None else indent


def _cut(line: str, width: int, floor: int) -> int:
    """The index to break ``line`` at: the last space that leaves at most ``width`` cells
    before it (and more than ``floor``), else exactly ``width`` cells (a long word)."""
    cells, last_space, index = 0, -1, 0
    for index, char in enumerate(line):
        cells += cell_len(char)
        if cells > width:
            break
        if char == " " and cells - 1 > floor:
            last_space = index
    else:
        return len(line)
    return last_space if last_space > 0 else max(index, 1)


def _entries(text: str) -> list[str]:
    """The text's lines, a line written as the continuation of an entry (indented exactly
    to the entry's description, with no column of its own) joined to it: it is wrapped
    again at the width the player has."""
    entries: list[str] = []
    for line in text.split("\n"):
        line = line.rstrip()
        indent = len(line) - len(line.lstrip(" "))
        if entries and line.strip() and GAP.search(line, indent) is None:
            last = entries[-1]
            column = hang_column(last)
            if column > len(last) - len(last.lstrip(" ")) and indent == column:
                entries[-1] = f"{last} {line.strip()}"
                continue
        entries.append(line)
    return entries


def hang_lines(text: str, width: int) -> list[str]:
    """``text`` wrapped to ``width`` cells, each continuation under its line's description."""
    width = max(width, 1)
    out: list[str] = []
    for line in _entries(text):
        indent = hang_column(line)
        if indent + MIN_TEXT > width:
            indent = min(len(line) - len(line.lstrip(" ")), max(0, width - MIN_TEXT))
        while cell_len(line) > width:
            at = _cut(line, width, indent)
            out.append(line[:at].rstrip())
            line = " " * indent + line[at:].lstrip(" ")
        out.append(line)
    return out


class HangingText(Widget):
    """Plain text (never markup) wrapped with hanging indents at the widget's width."""

    DEFAULT_CSS = "HangingText { height: auto; }"

    def __init__(self, text: str, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.text = text

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return len(hang_lines(self.text, width))

    def render(self) -> Text:
        return Text("\n".join(hang_lines(self.text, self.content_size.width)), no_wrap=True, overflow="crop")
