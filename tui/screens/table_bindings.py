"""The table's active bindings, worked out once per state of the table.

The key bar asks for them on every update, and Textual then runs ``check_action`` for
each of the table's ~45 bindings (about a twentieth of a seat's CPU per action), though
most updates (a card played by someone else, a chat line) leave them as they were.
"""
from __future__ import annotations

from typing import Any

from textual.binding import ActiveBinding
from textual.screen import Screen
from textual.widgets import Input


class CachedBindings(Screen[None]):
    """``active_bindings`` kept while everything ``TableScreen.check_action`` reads is the
    same objects: the focus, the table update (its view and seat derive from it), the
    calls shown, the call waiting for its card, the lobby's table info and the player's
    seat. Compared by identity (each of them is replaced, never changed in place), so a
    change can only make it compute again, never keep a stale answer."""

    _bindings_cache: tuple[tuple[object, ...], dict[str, ActiveBinding]] | None = None

    def _bindings_state(self) -> tuple[object, ...]:
        me: Any = self
        model = me.app.model
        return (me.focused, me.table.update, me._choices, me._card_call, me._info(),
                model.me, model.seat, model.table_id)

    @property
    def active_bindings(self) -> dict[str, ActiveBinding]:
        if isinstance(self.focused, Input):  # (an input's own keys follow its text: not cached)
            return super().active_bindings
        state, cached = self._bindings_state(), self._bindings_cache
        if cached is not None and len(cached[0]) == len(state) \
                and all(a is b for a, b in zip(cached[0], state)):
            return dict(cached[1])
        bindings = super().active_bindings
        self._bindings_cache = (state, bindings)
        return dict(bindings)
