"""What the server's frames changed, drawn as soon as the frames that came together are
handled, not at the screen's next update tick.

Textual draws a screen from a timer (``Screen._update_timer``, 60 a second, paused while
nothing is dirty): a panel marked dirty prompts the screen's message loop, which on going
idle resumes the timer, whose task wakes at its next tick and draws. For a terminal seat
that is a Prompt, an Idle, a timer resume and a timer task step for every table update of
every seat, and the player waits up to a tick (17 ms) more for every move. Here the app,
once it has handled every frame the hub had queued for it, draws the current screen's
dirty widgets itself, as the timer would (``Screen._on_timer_update``, a private method of
the pinned Textual, called through tui/textual_private.py): frames that arrive together are still drawn once. The timer still
draws anything else (keys, layouts posted as messages, other screens); when it runs after
this, nothing is dirty and it draws nothing. tests/tui/test_draw_now.py checks the screen
drawn at once is the one the timer draws.

While the app handles frames it sets ``draw_follows``: a panel that repaints rows of the
current screen then only marks itself dirty (``Panel._repaint_rows``), without prompting
the screen's message loop (a Prompt and a task switch per update of every seat, for a
draw that happens here anyway). Whatever is still dirty once the frames are handled is
left to the timer, prompted then (``drawn_later``).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from textual.app import ScreenStackError

from tui import textual_private

if TYPE_CHECKING:
    from tui.app import TrucoApp


def draw_now(app: TrucoApp) -> None:
    """Draw the app's current screen now if a frame left it dirty (and it may be drawn)."""
    try:
        screen = app.screen
    except ScreenStackError:  # no screen yet, or the app is closing
        return
    if textual_private.batching(app) or not screen.is_current:
        return
    if textual_private.needs_draw(screen):
        textual_private.draw_screen_now(screen)


def drawn_later(app: TrucoApp) -> None:
    """The frames are handled: a panel prompts its screen again; whatever ``draw_now``
    did not draw (a batch, a screen not current) is drawn by the screen's timer."""
    app.draw_follows = False
    try:
        screen = app.screen
    except ScreenStackError:
        return
    if textual_private.has_dirty_widgets(screen):
        screen.check_idle()
