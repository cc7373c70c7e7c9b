"""A line of text (a title, a status) that costs nothing when redrawn with the same text."""
from __future__ import annotations

from rich.text import Text
from textual.css.scalar import Unit
from textual.widgets import Static


class TextLine(Static):
    """A Static whose ``show`` does nothing for the text it already shows, and asks for a
    layout of the screen only when its size can follow its text. Static.update always asks
    for one (a full layout and repaint of the screen, for a one-line title); a line whose
    height is a fixed number of cells only needs itself repainted. The lobby redraws its
    title and status on every cursor move and every list change, mostly with the same text."""

    _shown: tuple[object, ...] | None = None

    def show(self, text: Text) -> None:
        # Text's own == compares the characters and spans only, not the base style.
        shown = (text.plain, tuple(text.spans), str(text.style), text.no_wrap, text.overflow,
                 text.justify, text.end)
        if shown == self._shown:
            return
        self._shown = shown
        height, width = self.styles.height, self.styles.width  # no width: its container's
        fixed = height is not None and height.unit == Unit.CELLS and (width is None or width.unit != Unit.AUTO)
        self.update(text, layout=not fixed)
