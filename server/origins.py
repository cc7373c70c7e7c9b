"""Frames acted on already, known by their origin (cluster mode).

Each session frame a front end sends has an origin, its front end's name and the frame's
number there (``Frame.origin``, server/link.py); a frame sent again to a new lobby host keeps
it (server/cluster/held_input.py). A chat line, a table's chat line or a seña is said once
per origin: whoever says it remembers the last origins it said, the lobby's from its chat
stream too, and a frame with one of them is not said again. A frame with no origin (one
process) is always new.
"""
from __future__ import annotations

from collections import deque


class Origins:
    """The last ``kept`` origins given (bounded: a repeat comes within moments of the first)."""

    def __init__(self, kept: int) -> None:
        self._order: deque[str] = deque()
        self._known: set[str] = set()
        self._kept = kept

    def first_time(self, origin: str) -> bool:
        """True unless ``origin`` is one of the last ones given ("" is always new)."""
        if not origin:
            return True
        if origin in self._known:
            return False
        self._order.append(origin)
        self._known.add(origin)
        if len(self._order) > self._kept:
            self._known.discard(self._order.popleft())
        return True
