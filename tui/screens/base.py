"""The base of every screen of the app: its ``app`` typed as :class:`~tui.app.TrucoApp`,
and the one method through which the app tells a screen what the server's last message
changed.

``app`` is declared for the type checker only (Textual's own ``getters.app`` idiom, under
``TYPE_CHECKING``): at run time it is Textual's property, unchanged. A modal screen is a
:class:`TrucoModalScreen`, which is both this and Textual's ``ModalScreen``.
"""
from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Callable, TypeVar

from textual.screen import ModalScreen, Screen, ScreenResultType

import protocol as p

if TYPE_CHECKING:
    from textual import getters

    from tui.app import TrucoApp
    from tui.i18n import Translator


S = TypeVar("S", bound=Screen)  # type: ignore[type-arg]


def unless_popped(handler: Callable[[S], None]) -> Callable[[S], None]:
    """For a screen's ``on_mount`` (which sets up its widgets): skipped when the app popped the
    screen before it was mounted, its widgets gone (two seat changes in one batch of server
    frames: a table's screen pushed and popped at once; its set-up then raised NoMatches,
    which ended the player's session)."""

    @functools.wraps(handler)
    def run(screen: S) -> None:
        if screen in screen.app.screen_stack:
            handler(screen)

    return run


class TrucoScreen(Screen[ScreenResultType]):
    """A screen of the Truco app."""

    if TYPE_CHECKING:
        app = getters.app(TrucoApp)

    @property
    def tr(self) -> Translator:
        """The player's language (the app's, which ``relabel`` follows)."""
        return self.app.tr

    def server_changed(self, msg: p.Message) -> None:
        """``msg`` came from the server and the app has applied it to its models: redraw
        what it touched. Called on every screen of the stack (a table under a dialog keeps
        its log), synchronously, before the app draws (tui/draw_now.py)."""

    def relabel(self) -> None:
        """The player switched language: write again what the screen says."""


class TrucoModalScreen(ModalScreen[ScreenResultType], TrucoScreen[ScreenResultType]):
    """A modal screen (Textual's ``ModalScreen``) of the Truco app. ``ModalScreen`` first:
    Textual takes a screen's CSS type names and default CSS from each class's first base
    only, so the stylesheet's ``ModalScreen`` rules apply to it."""
