"""A screen repaints no sooner than its App's pace allows (a flooding session's own screen).

Textual repaints a dirty screen at up to 60 frames a second: when the screen goes idle with
something to draw it resumes its update timer. A session typing and resizing as fast as its
link lets it keeps its screen dirty, so it repainted every frame: eight such sessions filled
the shared event loop with 5-10 ms repaints (a press on another table waited behind them).
The server gives a session's App a pace (``REPAINT_PACE``, an attribute: seconds to wait
before the next repaint, 0 for at once), which is how long its input budget is in debt; a
screen whose App has a pace above 0 puts its repaint off by that long (at most
``MAX_PUT_OFF``), once, and then repaints as usual. No App has a pace but a server session's,
and no session within its budget waits.

Uses the private ``_on_idle``, ``_update_timer``, ``_batch_count`` and dirty flags of the
pinned Textual (pyproject.toml pins it exactly); tests/tui/test_paced_repaint.py checks it.

Patched: ``textual.screen.Screen._on_idle``.
Upstream would need: a per-App frame rate.
"""
from __future__ import annotations

from typing import Any, Callable, Coroutine

from textual import events
from textual.screen import Screen

REPAINT_PACE = "repaint_pace"  # on an App: a callable giving the seconds to put a repaint off
MAX_PUT_OFF = 0.25  # seconds: the longest one repaint waits
_PUT_OFF = "_truco_repaint_put_off"  # on a screen: a repaint is waiting for its timer

_original: Callable[[Screen[Any], events.Idle], Coroutine[Any, Any, None]] | None = None


def _dirty(screen: Screen[Any]) -> bool:
    return bool(screen._layout_required or screen._scroll_required or screen._repaint_required
                or screen._recompose_required or screen._dirty_widgets)


async def _on_idle(self: Screen[Any], event: events.Idle) -> None:
    assert _original is not None
    pace = getattr(self.app, REPAINT_PACE, None)
    if pace is not None and not self.app._batch_count and self.is_current and _dirty(self):
        if getattr(self, _PUT_OFF, False):
            event.prevent_default()
            return  # its timer is set
        wait = pace()
        if wait > 0:
            event.prevent_default()
            setattr(self, _PUT_OFF, True)

            def repaint() -> None:
                setattr(self, _PUT_OFF, False)
                self._update_timer.resume()

            self.set_timer(min(wait, MAX_PUT_OFF), repaint)
            return
    await _original(self, event)


def install() -> None:
    """Replace ``Screen._on_idle``; a second call changes nothing."""
    global _original
    if _original is not None:
        return
    _original = Screen._on_idle
    Screen._on_idle = _on_idle  # type: ignore[method-assign]
