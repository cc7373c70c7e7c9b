"""A screen shown for the first time does not apply its styles a second time.

Textual 8.2.8 posts ``ScreenResume`` to every screen that becomes active, and
``Screen._on_screen_resume`` then re-applies the stylesheet to every node of the screen
(``update_node_styles``) unless the event says not to. For a screen that was suspended
that is needed: the theme, the app's classes or a pseudo-class may have changed while it
was hidden. A screen shown for the first time was just mounted, and mounting applied the
stylesheet to each of its widgets (``App._register``), so the second pass computes the
same styles again: about a sixth of the server's CPU from an SSH connect to a seated
player (the lobby, the quick-play and new-table dialogs and the table are each shown once
per session). Here the first ``ScreenResume`` of a screen does not refresh its styles;
every later one (after a suspend) does, as before.
Uses the private ``_on_screen_resume``/``_on_screen_suspend`` handlers of the pinned
Textual (pyproject.toml pins it exactly); tests/tui/test_first_resume.py checks both sides.

Patched: ``textual.screen.Screen._on_screen_resume`` and ``_on_screen_suspend``.
Upstream would need: ``ScreenResume(refresh_styles=False)`` when a screen is pushed for
the first time.
"""
from __future__ import annotations

from typing import Any, Callable

from textual import events
from textual.screen import Screen

_SUSPENDED = "_truco_was_suspended"  # set on a screen instance once it has been suspended
_original_resume: Callable[[Screen[Any], events.ScreenResume], None] | None = None
_original_suspend: Callable[[Screen[Any]], None] | None = None


def _on_screen_resume(self: Screen[Any], event: events.ScreenResume) -> None:
    assert _original_resume is not None
    if not getattr(self, _SUSPENDED, False):
        event.refresh_styles = False  # just mounted: its styles are fresh
    _original_resume(self, event)


def _on_screen_suspend(self: Screen[Any]) -> None:
    assert _original_suspend is not None
    setattr(self, _SUSPENDED, True)
    _original_suspend(self)


def install() -> None:
    """Replace the two handlers; a second call changes nothing."""
    global _original_resume, _original_suspend
    if _original_resume is not None:
        return
    _original_resume = Screen._on_screen_resume
    _original_suspend = Screen._on_screen_suspend
    Screen._on_screen_resume = _on_screen_resume  # type: ignore[method-assign]
    Screen._on_screen_suspend = _on_screen_suspend  # type: ignore[method-assign]
