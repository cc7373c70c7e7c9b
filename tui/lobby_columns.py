"""How the lobby's table list shares its width among its columns.

Every column but the title's is as wide as its widest cell (header included), so a game,
a seat count or a status is never cut; the title takes what is left, up to its own widest
cell (on a wide terminal the columns stay together, the room left over after them), and
where that is too little ends in an ellipsis (the selected table's full line is shown
above the lists). When that leaves the
title too little room, the padding around cells shrinks to a one-space gap, then the
columns that matter least are dropped: the points first (the selected table's line names
them).
"""
from __future__ import annotations

from dataclasses import dataclass

TITLE_MIN = 10  # room for a title to stay recognisable


@dataclass(frozen=True)
class ColumnFit:
    padding: int  # cells on each side of each column (Textual's DataTable cell_padding)
    widths: dict[str, int]  # each shown column's width, in order; a missing column is dropped

    def text_width(self, column: str) -> int:
        """Room for a cell's text: without padding, every column but the last keeps its
        last cell free as the gap to the next one."""
        last = next(reversed(self.widths))
        gap = 1 if self.padding == 0 and column != last else 0
        return self.widths[column] - gap


def fit_columns(natural: dict[str, int], available: int, droppable: tuple[str, ...] = ("points",)) -> ColumnFit:
    """``natural``: the widest cell of each column, the title's first; ``available``: the
    list's inner width."""
    title, *others = natural
    shown = list(others)
    while True:
        can_drop = any(c in shown for c in droppable)
        for padding, gap in ((1, 0), (0, 1)):
            rest = sum(natural[c] + gap for c in shown[:-1]) + natural[shown[-1]]
            room = available - rest - 2 * padding * (len(shown) + 1)
            if room >= TITLE_MIN + gap or (padding == 0 and not can_drop):
                widths = {title: max(min(room, natural[title] + gap), 1 + gap)}
                widths.update({c: natural[c] + gap for c in shown[:-1]})
                widths[shown[-1]] = natural[shown[-1]]
                return ColumnFit(padding, widths)
        shown.remove(next(c for c in droppable if c in shown))
