"""A mount asks for a layout of its parent once, and not at all for a screen laid out since.

In Textual 8.2.8 ``Widget.mount`` returns an ``AwaitMount`` and also schedules it
(``call_next``); whoever awaits it (``mount_composed_widgets`` does, for every screen and
container that composes) runs it a second time. Each run waits until the new widgets are
mounted and then asks for a layout of the parent (``refresh(layout=True)``). The first run
is taken into the screen's first layout; the second comes after it and costs a whole
second layout and repaint of the screen, for nothing: the widgets and the parent are as
they were. Likewise the ``AwaitMount`` that ``push_screen`` gives for the screen itself
finishes after the screen's first layout (done on its ``ScreenResume``, which Textual
handles after the screen's own mount) and asked for another. Together they cost one more
full layout of each screen shown at connect (the lobby, the quick-play dialog, the table).
Here an ``AwaitMount`` asks for that layout (and updates the mouse-over) once, when its
first run finds the widgets mounted, and not at all when it waited for a screen that has
been laid out since (it has a size); a later run of the same one returns at once.
Anything that changed meanwhile asks for its own layout, as always.
Uses the private ``AwaitMount`` and ``Screen._compositor`` of the pinned Textual
(pyproject.toml pins it exactly); tests/tui/test_mount_refresh_once.py checks both sides.

Patched: ``textual.widget.AwaitMount.__await__``.
Upstream would need: ``mount`` not scheduling the ``AwaitMount`` it returns when the caller
awaits it (or the ``AwaitMount`` remembering that it has run), and no layout request for
a screen whose first layout came after its mount.
"""
from __future__ import annotations

from asyncio import create_task, wait
from typing import Any, Callable, Generator

from textual.dom import NoScreen
from textual.screen import Screen
from textual.widget import AwaitMount

_DONE = "_truco_refreshed"  # set on an AwaitMount once it has asked for its layout
_original: Callable[[AwaitMount], Generator[None, None, None]] | None = None


def __await__(self: AwaitMount) -> Generator[None, None, None]:
    async def await_mount() -> None:
        widgets: Any = self._widgets
        if not widgets:
            return
        aws = [create_task(widget._mounted_event.wait(), name="await mount") for widget in widgets]
        await wait(aws)
        if getattr(self, _DONE, False):
            return  # the other run of this mount asked for the layout already
        setattr(self, _DONE, True)
        parent = self._parent
        if not (isinstance(parent, Screen) and list(widgets) == [parent] and parent._compositor.size):
            parent.refresh(layout=True)  # (a screen laid out since its mount needs none)
        try:
            parent.app._update_mouse_over(parent.screen)
        except NoScreen:
            pass

    return await_mount().__await__()


def install() -> None:
    """Replace ``AwaitMount.__await__``; a second call changes nothing."""
    global _original
    if _original is not None:
        return
    _original = AwaitMount.__await__
    AwaitMount.__await__ = __await__  # type: ignore[method-assign]
