"""The calls this player may make now, each with its key; a click posts ``CallPicked``."""
from __future__ import annotations

from typing import Any

from rich.text import Text
from textual import events

from protocol import TableView
from tui.calls import CallChoice, answers_a_bet, assign_keys, call_label
from tui.table_model import TableModel
from tui.widgets.panels import GridPanel
from tui.widgets.table.part import TablePart

CARD_CALLS = ("play", "discard")  # made with the card keys directly


def amounts(view: TableView, call: str) -> list[int]:
    """The numbers a call may take (piedras, envido N puntos); empty if it takes none."""
    return sorted(a.amount for a in view.legal if a.call == call and a.amount is not None)


def _by_card_key(call: str, card_call: str | None) -> bool:
    """Whether a card key makes ``call`` with its card: a play or a discard, or ``card_call``
    when that call waits for its card (then nothing else)."""
    return call == card_call if card_call is not None else call in CARD_CALLS


def card_action(view: TableView, card: str, card_call: str | None) -> str | None:
    """The call the card key of ``card`` makes now (None: that key does nothing now)."""
    return next((a.call for a in view.legal if a.card == card and _by_card_key(a.call, card_call)), None)


def usable_card_keys(view: TableView, card_call: str | None) -> frozenset[int]:
    """The card keys (from 0) that work now: those of the cards ``card_action`` takes."""
    taken = {a.card for a in view.legal if a.card is not None and _by_card_key(a.call, card_call)}
    return frozenset(i for i, card in enumerate(view.own_cards) if card in taken)


def is_card_call(view: TableView, call: str) -> bool:
    """A call that needs a card other than playing it (las que pintan)."""
    return any(a.call == call and a.card for a in view.legal)


class CallsPanel(GridPanel, TablePart):
    """``#t-actions``: ``choices`` are the calls shown, in order, with their keys."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id, columns=3)
        self._actions_key: tuple[Any, ...] = ()
        self.choices: list[CallChoice] = []

    def update_from(self, model: TableModel) -> None:
        """Plain plays (and discards) are made with the card keys. A call that needs a
        number (piedras, envido N puntos) asks for it; a call that needs a card other
        than playing it (las que pintan) waits for the card key that follows: both end
        in an ellipsis."""
        view = model.view
        calls: list[str] = []
        for action in view.legal:
            call = action.call
            if call in CARD_CALLS or call in calls:
                continue
            calls.append(call)
        deal_kind = view.deal_kind
        key = (*calls, deal_kind)
        if key == self._actions_key:
            return  # unchanged: nothing to repaint
        self._actions_key = key
        self.choices = assign_keys(calls)
        answering = answers_a_bet(calls)
        variant = view.variant
        cells = []
        for choice in self.choices:
            label = Text()
            label.append(choice.key, style="reverse bold")
            label.append(" " + call_label(self.tr, variant, choice.call, deal_kind=deal_kind, answering=answering))
            if amounts(view, choice.call) or is_card_call(view, choice.call):
                label.append("…")
            cells.append(label)
        self.set_cells(cells)
        self._fit_height()

    SHORT_ROWS = (3, 5)  # a short terminal's hand row: the small cards' height, the usual

    def on_resize(self, event: events.Resize) -> None:
        super().on_resize(event)
        self._fit_height()

    def _fit_height(self) -> None:
        """On a short terminal the hand row is the small cards' 3 lines, or as many as the
        calls need whole (up to the usual 5); elsewhere truco.tcss sizes it."""
        hand = self.parent
        if hand is None or not self.is_mounted:
            return
        want: int | None = None
        width = self._inner_size().width
        if self.screen.has_class("-short") and width:
            low, high = self.SHORT_ROWS
            rows = self._layout(width, low)  # each label at its own width, if that fits the cards'
            whole = all(given >= self._cells[i].cell_len for row in rows for i, given in row)
            want = low if len(rows) <= low and whole else min(high, max(low, len(self._layout(width, high))))
        for node in (hand, self):
            now = node.styles.inline.height if node.styles.inline.has_rule("height") else None
            if (now.value if now is not None else None) != want:
                node.styles.inline.height = want  # (None: the stylesheet's again)
                node.refresh(layout=True)
