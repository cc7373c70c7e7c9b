"""A full layout of a screen counts as the layout asked for before it started.

Textual 8.2.8 keeps a screen's pending layout request in ``_layout_required`` and clears it
only in the update timer, after the timer's own layout; a widget's request reaches the
screen later still, as a ``Layout`` message posted when the widget is next idle. A full
layout done elsewhere, as the one a screen gets when it is shown (``_on_screen_resume``
calls ``_refresh_layout``), left the flag set and the messages queued, so requests made
before it (mounting the screen's widgets and filling them ask for several) gave a second
full layout and repaint of the same screen right after: once for each screen shown at
connect (the lobby, the quick-play dialog, the table). Here a full layout (not the
scroll-only reflow) clears the flag as it starts and notes the time, and a ``Layout``
message posted before that time is dropped: the layout read every widget as it was then,
later than the request. A request made while it runs, or after, still gets its layout; the
timer's path is as before.
Uses the private ``_refresh_layout``, ``_on_layout`` and ``_layout_required`` of the pinned
Textual (pyproject.toml pins it exactly); tests/tui/test_layout_done.py checks both sides.

Patched: ``textual.screen.Screen._refresh_layout`` and ``Screen._on_layout``.
Upstream would need: ``_refresh_layout`` resetting ``_layout_required`` for a full reflow,
and ``_on_layout`` ignoring requests older than the last full reflow.
"""
from __future__ import annotations

from typing import Any, Callable, Coroutine

from textual import _time, messages
from textual.geometry import Size
from textual.screen import Screen

_LAID_OUT_AT = "_truco_laid_out_at"  # on a screen: when its last full layout started
_original_layout: Callable[[Screen[Any], Size | None, bool], None] | None = None
_original_on_layout: Callable[[Screen[Any], messages.Layout], Coroutine[Any, Any, None]] | None = None


def _refresh_layout(self: Screen[Any], size: Size | None = None, scroll: bool = False) -> None:
    assert _original_layout is not None
    if not scroll or self._layout_widgets:  # a full reflow: everything asked so far is in it
        self._layout_required = False
        setattr(self, _LAID_OUT_AT, _time.get_time())
    _original_layout(self, size, scroll)


async def _on_layout(self: Screen[Any], message: messages.Layout) -> None:
    assert _original_on_layout is not None
    if message.time < getattr(self, _LAID_OUT_AT, float("-inf")):
        message.stop()
        message.prevent_default()
        return  # asked for before the last full layout began: that layout saw it
    await _original_on_layout(self, message)


def install() -> None:
    """Replace the two methods; a second call changes nothing."""
    global _original_layout, _original_on_layout
    if _original_layout is not None:
        return
    _original_layout = Screen._refresh_layout
    _original_on_layout = Screen._on_layout
    Screen._refresh_layout = _refresh_layout  # type: ignore[method-assign]
    Screen._on_layout = _on_layout  # type: ignore[method-assign]
