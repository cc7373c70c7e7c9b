"""The table's key bar is drawn again only when what it shows may have changed."""
from __future__ import annotations

from typing import Any, Iterable

from textual.actions import parse as parse_action
from textual.binding import Binding, BindingType
from textual.widgets import Input

from tui.calls import answers_a_bet, call_label
from tui.screens.table_mixin import TableMixin
from tui.widgets.keybar import KeyBar

CALL_DESCRIPTION = "call"  # the call keys' (tui/screens/table.py): named by call_key_label
# Keys left off a short terminal's bar while answering, where they would take it to a second
# row (they still work; the help lists them).
SHORT_HIDDEN = frozenset({"key.chat", "key.partner_chat", "key.sena", "key.leave_table"})
Asked = tuple[tuple[str, tuple[Any, ...]], ...]


def key_state_actions(bindings: Iterable[BindingType]) -> Asked:
    """The (action, parameters) check_action is asked about for each binding that is not a
    call, once each (the call keys shown are kept as one set instead). (The table's are all
    ``Binding``s.)"""
    return tuple(dict.fromkeys(
        parse_action(b.action)[1:] for b in bindings if isinstance(b, Binding) and not b.action.startswith("call(")))


class KeyBarGate(TableMixin):
    """Mixed into the table screen: ``refresh_keys`` is ``refresh_bindings`` when the key
    bar may show something else.

    The bar asks check_action about each of the ~70 bindings and draws the answers; most
    updates change none of them (three of the four seats are not to move), and asking them
    all on every update was a tenth of a seat's CPU per action. The bar is a function of
    the answers for the bindings that are not calls, the call keys shown, the focus and the
    labels' words (the language; watching or seated), so it is drawn again only when one of
    those changed. Any other ``refresh_bindings`` (a focus change, a call waiting for its
    card, the waiting room) draws it as before.

    Being a function of that state, the bar drawn for a state is kept (a few dozen per
    screen): play goes round the same few (to move, waiting, a bet to answer), and a state
    seen before is drawn from what was kept, without asking Textual for the active bindings
    (two milliseconds of ~70 check_action calls each time)."""

    _keys_asked: Asked | None = None  # per screen class, from its BINDINGS
    _keys_state: tuple[object, ...] | None = None  # what the bar was last drawn from
    _keys_drawn: dict[tuple[object, ...], list[tuple[str, str]]] | None = None
    KEYS_KEPT = 32
    KEY_BAR = "#t-keys"

    def key_answers(self, asked: Asked) -> tuple[object, ...]:
        """``check_action``'s answer to each of ``asked`` (all table keys); the nine card
        keys' from one pass over the legal actions (asking for each card went through them
        nine times), and the focus looked up once, not once per key."""
        typing = isinstance(self.focused, Input)
        if typing:
            return (False,) * len(asked)
        cards = self.usable_card_keys()
        usable = self.table_key_usable
        return tuple(params[0] in cards if name == "card" else usable(name, params, False)
                     for name, params in asked)

    def _binding_label(self, binding: Binding) -> str:
        """A key's words in the bar (the table's bar follows its bindings with this)."""
        if binding.description == CALL_DESCRIPTION:
            return self.call_key_label(binding)
        if binding.description == "key.play" and self._laying_away():
            return str(self.tr("call.discard"))  # the Uruguayan mano's fourth card: "1-4 Lay away"
        if binding.description == "key.leave_table" and self._watching():
            return str(self.tr("key.stop_watching"))  # nobody's seat to hand to a bot
        return str(self.tr(binding.description))

    def short_optional(self, binding: Binding) -> bool:
        """A key a short terminal's bar shows only where the answers leave it room: the log
        keeps its lines (the bar's ``optional``)."""
        return binding.description in SHORT_HIDDEN and self.has_class("-short") and self.answering()

    def _laying_away(self) -> bool:
        return any(a.call == "discard" for a in self.table.view.legal)

    def key_order(self, binding: Binding) -> int:
        """The calls listed first in the bar, in the calls pane's order; the rest after."""
        if binding.description != CALL_DESCRIPTION:
            return len(self._choices)
        key = parse_action(binding.action)[2][0]
        return next((i for i, c in enumerate(self._choices) if c.key == key), len(self._choices))

    def answering(self) -> bool:
        """A bet or a declaration waits for this player: calls to make, no card key works."""
        return bool(self._choices) and not self.usable_card_keys()

    def call_key_label(self, binding: Binding) -> str:
        """A call's words in the key bar while it answers a bet or declares (no card key
        works now: the player's move is one of the calls); "" (not listed) otherwise, when
        the calls pane beside the cards is enough."""
        if not self.answering():
            return ""
        key = parse_action(binding.action)[2][0]
        view = self.table.view
        for choice in self._choices:
            if choice.key == key:
                return call_label(self.tr, view.variant, choice.call, deal_kind=view.deal_kind,
                                  answering=answers_a_bet([c.call for c in self._choices]))
        return ""

    def key_bar(self) -> KeyBar:
        return self.query_one(self.KEY_BAR, KeyBar)

    def refresh_keys(self) -> None:
        cls = type(self)
        asked = cls.__dict__.get("_keys_asked")
        if asked is None:
            asked = key_state_actions(cls.BINDINGS)
            cls._keys_asked = asked
        state = (self.focused, self.tr.lang, self._watching(), tuple((c.key, c.call) for c in self._choices),
                 self.table.view.deal_kind, self.key_answers(asked), self._laying_away(),
                 # (a short bar's optional keys depend on its width)
                 self.has_class("-short") and self.size.width)
        if state == self._keys_state:
            return
        self._keys_state = state
        bar = self.key_bar()
        drawn = self._keys_drawn
        if drawn is None:
            drawn = self._keys_drawn = {}
        if not bar.following:  # not composed yet: the bar draws itself once it follows
            self.refresh_bindings()
            return
        pairs = drawn.get(state)
        if pairs is not None:
            bar.show(pairs)
            return
        bar.draw_bindings(self)  # at once (the bindings signal would draw it a step later)
        if len(drawn) >= self.KEYS_KEPT:
            drawn.pop(next(iter(drawn)))  # the oldest state
        drawn[state] = bar.pairs
