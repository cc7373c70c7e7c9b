"""The table's key bar is drawn again only when what it shows may have changed."""
from __future__ import annotations

from typing import Any

from textual.actions import parse as parse_action
from textual.binding import Binding

Asked = tuple[tuple[str, tuple[Any, ...]], ...]


def key_state_actions(bindings: list[Binding]) -> Asked:
    """The (action, parameters) check_action is asked about for each binding that is not a
    call, once each (the call keys shown are kept as one set instead)."""
    return tuple(dict.fromkeys(
        parse_action(b.action)[1:] for b in bindings if not b.action.startswith("call(")))


class KeyBarGate:
    """Mixed into the table screen: ``refresh_keys`` is ``refresh_bindings`` when the key
    bar may show something else.

    The bar asks check_action about each of the ~70 bindings and draws the answers; most
    updates change none of them (three of the four seats are not to move), and asking them
    all on every update was a tenth of a seat's CPU per action. The bar is a function of
    the answers for the bindings that are not calls, the call keys shown, the focus and the
    labels' words (the language; watching or seated), so it is drawn again only when one of
    those changed. Any other ``refresh_bindings`` (a focus change, a call waiting for its
    card, the waiting room) draws it at once, as before."""

    _keys_asked: Asked | None = None  # per screen class, from its BINDINGS
    _keys_state: tuple[object, ...] | None = None  # what the bar was last drawn from
    # (the table screen's)
    BINDINGS: Any
    focused: Any
    tr: Any
    _choices: Any
    _watching: Any
    check_action: Any
    refresh_bindings: Any

    def refresh_keys(self) -> None:
        cls = type(self)
        asked = cls.__dict__.get("_keys_asked")
        if asked is None:
            asked = key_state_actions(cls.BINDINGS)
            cls._keys_asked = asked
        state = (self.focused, self.tr.lang, self._watching(), tuple(c.key for c in self._choices),
                 tuple(self.check_action(name, params) for name, params in asked))
        if state != self._keys_state:
            self._keys_state = state
            self.refresh_bindings()
