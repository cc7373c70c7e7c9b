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

Textual's branch also sets the covered screen's own ``_repaint_required``: its next
tick renders it whole and comes back to the branch, which asks again. So a background
screen repainted itself and the screen on top, whole, after every message it handled
(Textual's default screen under the lobby, the lobby under the table), a loop that went on
as long as messages came.

Under an opaque top screen, a covered screen draws its changes and keeps its dirty regions;
it asks no repaint of itself or of the screen on top (``Screen._on_screen_resume`` refreshes
it whole when it is shown again). Under a translucent one, and in inline mode, Textual's
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
    # Textual's background branch without its two repaints: the top screen's, and the
    # covered screen's own ``_repaint_required``, which made its next tick render it whole
    # and come back here to ask again, a whole repaint of both screens each time the
    # covered one handled a message. Shown again, it is refreshed whole anyway.
    self._set_dirty(*dirty)
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
