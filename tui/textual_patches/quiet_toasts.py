"""A screen's hidden notification rack asks for no layouts while there is nothing to show.

Every screen of Textual 8.2.8 holds a notification rack (``ToastRack``), hidden by its CSS
until there is a notification, and it asked for two full layouts of every new screen (the
lobby, the quick-play dialog, the table) while hidden:

* ``ToastRack.show`` runs every time a screen is shown, even with no notifications, and
  sets ``display = False`` on the hidden rack; the value is written as an inline style,
  which counts as a change and asks for a layout. Here ``show`` with no notifications on a
  hidden rack with no toasts returns at once; otherwise it runs as before.
* ``Widget._on_mount`` turns on the vertical scrollbar of a widget whose CSS says
  ``overflow-y: scroll`` (the rack's does) through a reactive that asks for a layout. For a
  widget that is not displayed nobody sees that scrollbar, and displaying it later lays it
  out anyway; here such a widget gets the same scrollbar flags without the layout request.
  A displayed widget is handled as before.

Uses ``textual.widgets._toast.ToastRack`` and ``Widget._on_mount``, private in the pinned
Textual (pyproject.toml pins it exactly); tests/tui/test_quiet_toasts.py checks both sides.

Patched: ``textual.widgets._toast.ToastRack.show`` and ``textual.widget.Widget._on_mount``.
Upstream would need: ``ToastRack.show`` (or ``Widget.display``'s setter) not writing a
display equal to the current one, and ``_on_mount`` setting a hidden widget's scrollbar
flags without asking for a layout (``set_reactive``).
"""
from __future__ import annotations

from typing import Callable

from textual import events
from textual.notifications import Notifications
from textual.widget import Widget
from textual.widgets._toast import ToastRack

_original_show: Callable[[ToastRack, Notifications], None] | None = None
_original_mount: Callable[[Widget, events.Mount], None] | None = None


def show(self: ToastRack, notifications: Notifications) -> None:
    assert _original_show is not None
    if not notifications and not self.display and not self.children:
        return  # hidden, empty, and nothing to show
    _original_show(self, notifications)


def _on_mount(self: Widget, event: events.Mount) -> None:
    assert _original_mount is not None
    if self.display:
        _original_mount(self, event)
        return
    styles = self.styles
    if styles.overflow_y == "scroll":
        self.set_reactive(Widget.show_vertical_scrollbar, True)
    if styles.overflow_x == "scroll":
        self.set_reactive(Widget.show_horizontal_scrollbar, True)


def install() -> None:
    """Replace ``ToastRack.show`` and ``Widget._on_mount``; a second call changes nothing."""
    global _original_show, _original_mount
    if _original_show is not None:
        return
    _original_show = ToastRack.show
    _original_mount = Widget._on_mount
    ToastRack.show = show  # type: ignore[method-assign]
    Widget._on_mount = _on_mount  # type: ignore[method-assign]
