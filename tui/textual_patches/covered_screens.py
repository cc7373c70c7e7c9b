"""A change to a screen that an opaque screen covers does not repaint the screen on top.

Textual 8.2.8 draws the screens under the current one (``App._background_screens``: down
to the first opaque one, the first below the top always included) as if they showed
through it. When one of them has drawn a change (``Screen._compositor_refresh``), it
marks the changed regions of the top screen dirty and asks for its repaint: the top
screen's next tick sends the whole screen again. That is right under a translucent
dialog; under an opaque screen nothing of the screen below can show. Here, a seated
player's lobby (under the table screen) that redraws a list or a chat line cost the
player a whole table screen written to their terminal, bytes on the link and server CPU,
and came between the draws of the table's own updates (tests/tui/test_draw_now.py failed
on a loaded machine with a lobby change late from the table's first frames).

Under an opaque top screen, a covered screen keeps what Textual keeps for it (its dirty
regions, and a repaint when it is shown again: ``Screen._on_screen_resume`` refreshes it)
and leaves the top screen alone. Under a translucent one, and in inline mode, Textual's
own code runs.

Patched: ``textual.screen.Screen._compositor_refresh``. Upstream would need: the
background-screen branch to check the opacity of the screens above, not only below.
tests/tui/test_covered_screens.py checks both sides.
"""
from __future__ import annotations

from typing import Any, Callable

from textual.screen import Screen

_original: Callable[[Screen[Any]], None] | None = None


def covered(screen: Screen[Any]) -> bool:
    """Whether ``screen`` is drawn as a background screen though the top one is opaque."""
    app = screen.app
    top = app.screen
    return (screen is not top and not app.is_inline and top.styles.background.a == 1
            and screen in app._background_screens)


def _compositor_refresh(self: Screen[Any]) -> None:
    assert _original is not None
    dirty = self._compositor._dirty_regions
    if not dirty or not covered(self):
        _original(self)
        return
    # What Textual's background branch does, but the top screen's refresh.
    self._set_dirty(*dirty)
    self._repaint_required = True
    dirty.clear()
    self._dirty_widgets.clear()
    self.app._update_mouse_over(self)


def install() -> None:
    """Replace ``Screen._compositor_refresh``; a second call changes nothing."""
    global _original
    if _original is not None:
        return
    _original = Screen._compositor_refresh
    Screen._compositor_refresh = _compositor_refresh  # type: ignore[method-assign]
