"""Keys typed while the screen they are meant for is on its way from the server.

A player who leaves a table and at once presses a lobby key (``l s p``: leave, yes, quick
play) on a link that brings the keys in one packet, or faster than the server answers, had
the lobby key land on the table screen, still showing until the server's answer came: lost
(found by a new player's pass over OpenSSH: ``s p`` sent together never opened quick play).
From the confirmation until the server seats the player elsewhere, keys are kept (a few, for
a few seconds at most) and handed on once the next screen shows; past the wait, to whatever
shows then. Ctrl+Q and Ctrl+C are never kept.
"""
from __future__ import annotations

from typing import Any

from textual import events
from textual.app import App
from textual.timer import Timer

HOLD_FOR = 3.0  # seconds at most: a server that never answers must not swallow the keyboard
HOLD_MAX = 16  # keys kept; more typed meanwhile are dropped
NEVER_HELD = frozenset({"ctrl+q", "ctrl+c"})


class HeldKeys:
    def __init__(self, app: App[Any]) -> None:
        self._app = app
        self._keys: list[events.Key] | None = None  # None: not holding
        self._timer: Timer | None = None

    @property
    def holding(self) -> bool:
        return self._keys is not None

    def hold(self) -> None:
        """From now on keys wait for ``release`` (or for HOLD_FOR seconds)."""
        if self._keys is None:
            self._keys = []
            self._timer = self._app.set_timer(HOLD_FOR, self.release)

    def take(self, event: events.Key) -> bool:
        """True: the key is kept (or dropped past HOLD_MAX), not handled now."""
        if self._keys is None or event.key in NEVER_HELD:
            return False
        if len(self._keys) < HOLD_MAX:
            self._keys.append(event)
        return True

    def release(self) -> None:
        """The kept keys to the app again, in order, for the screen showing now."""
        keys, self._keys = self._keys, None
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
        for key in keys or ():
            self._app.post_message(events.Key(key.key, key.character))
