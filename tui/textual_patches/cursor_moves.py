"""A partial screen update writes its cursor moves from a table of them.

Textual 8.2.8 writes each changed span of a row (``ChopsUpdate.render_segments``) after a
cursor move made with ``rich.control.Control.move_to(x, y).segment.text``: a ``Control``
object, its segment and a formatted escape, made again for every span of every update of
every session (a few dozen per card played, about a fiftieth of the server's CPU per
action). The escape depends only on the position, so here it comes from a bounded table
of positions; the text written is the same. Uses the pinned Textual's ``ChopsUpdate``
internals (pyproject.toml pins it exactly); tests/tui/test_cursor_moves.py compares the
output with Textual's.

Patched: ``textual._compositor.ChopsUpdate.render_segments``.
Upstream would need: the cursor-move escape looked up or formatted directly (it is
``f"\\x1b[{y + 1};{x + 1}H"``) instead of going through a ``Control`` per span.
"""
from __future__ import annotations

from functools import lru_cache

from rich.console import Console
from rich.control import Control
from textual._compositor import ChopsUpdate

TEXTUAL_RENDER_SEGMENTS = ChopsUpdate.render_segments  # (imported before install: Textual's own)


@lru_cache(maxsize=16_384)  # (positions on the largest screen a session may have: a bound all the same)
def move_to(x: int, y: int) -> str:
    """The escape that moves the cursor to column ``x``, row ``y`` (Rich's)."""
    return Control.move_to(x, y).segment.text


def render_segments(self: ChopsUpdate, console: Console) -> str:
    """Textual's, with the cursor moves from ``move_to``."""
    sequences: list[str] = []
    append = sequences.append
    chops = self.chops
    chop_ends = self.chop_ends
    last_y = self.spans[-1][0]
    for y, x1, x2 in self.spans:
        line = chops[y]
        ends = chop_ends[y]
        for end, (x, strip) in zip(ends, line.items()):
            if strip is None or x > x2 or end <= x1:
                continue
            if not (x2 > x >= x1 and end <= x2):
                strip = strip.crop(0, min(end, x2) - x)
            append(move_to(x, y))
            append(strip.render(console))
        if y != last_y:
            append("\n")
    return "".join(sequences)


def install() -> None:
    """Replace ``ChopsUpdate.render_segments``; a second call changes nothing."""
    ChopsUpdate.render_segments = render_segments  # type: ignore[method-assign]
