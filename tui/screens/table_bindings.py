"""The table's active bindings, worked out again only when the keys' answers change.

The key bar asks for them on every update, and Textual then runs its per-binding lookup
and ``check_action`` for each of the table's ~45 bindings (about a twentieth of a seat's
CPU per action), though most updates (a card played by someone else, a chat line) leave
every key as it was.
"""
from __future__ import annotations

from typing import Any

from textual.actions import parse
from textual.binding import ActiveBinding, Binding
from textual.screen import Screen
from textual.widgets import Input

_Check = tuple[str, tuple[object, ...]]
_CHECKS: dict[type, tuple[_Check, ...]] = {}


def _checks(screen: type) -> tuple[_Check, ...]:
    """The (action, parameters) of the screen's own bindings, parsed once per class."""
    found = _CHECKS.get(screen)
    if found is None:
        bindings: list[Binding] = getattr(screen, "BINDINGS", [])
        found = _CHECKS[screen] = tuple(dict.fromkeys(
            (name, tuple(params)) for _dest, name, params in (parse(b.action) for b in bindings)))
    return found


class CachedBindings(Screen[None]):
    """``active_bindings`` kept while the focus is the same widget and ``check_action``
    gives the same answers for every binding of the screen: what Textual builds them
    from (the other namespaces' actions are always on: no other check_action here), so
    the kept map is the one Textual would build. The answers are asked directly (cheap)."""

    _bindings_cache: tuple[tuple[object, ...], dict[str, ActiveBinding]] | None = None

    def _bindings_state(self) -> tuple[object, ...]:
        me: Any = self
        return (self.focused, *(me.check_action(name, params) for name, params in _checks(type(self))))

    @property
    def active_bindings(self) -> dict[str, ActiveBinding]:
        if isinstance(self.focused, Input):  # (an input's own keys: not cached)
            self._bindings_cache = None
            return super().active_bindings
        state, cached = self._bindings_state(), self._bindings_cache
        if cached is not None and cached[0] == state:
            return dict(cached[1])
        bindings = super().active_bindings
        self._bindings_cache = (state, bindings)
        return dict(bindings)
