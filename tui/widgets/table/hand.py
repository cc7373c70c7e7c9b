"""The player's cards, the playable ones marked; a click posts ``CardPicked``."""
from __future__ import annotations

from tui.cards import CARD_SIZES, card_box, card_roles
from tui.table_model import TableModel
from tui.widgets.panels import HandPanel
from tui.widgets.table.part import TablePart, drawn_from, french

CARD_WIDTH = CARD_SIZES["normal"]  # a drawn card (7) and the gap after it


def playable_cards(model: TableModel) -> tuple[str, ...]:
    """The cards some legal action now takes (each once, in the order of the actions)."""
    return tuple(dict.fromkeys(a.card for a in model.view.legal if a.card))


def card_size(screen: object) -> str:
    """The cards' size for the screen's size classes (TableScreen's breakpoints): small on a
    short terminal, large on a tall and wide one."""
    has = getattr(screen, "has_class", lambda _name: False)
    if has("-short"):
        return "small"
    return "large" if has("-tall") and has("-wide") else "normal"


class CardsPanel(HandPanel, TablePart):
    """``#t-cards``: its height (truco.tcss) follows the same size classes as the cards."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id, card_width=CARD_WIDTH)
        self._hand_model: TableModel | None = None

    def on_resize(self) -> None:
        # A new size class (truco.tcss resizes the panel): the cards drawn at their new size.
        if self._hand_model is not None and card_size(self.screen) != self._card_size:
            self.update_from(self._hand_model)

    _card_size = "normal"

    # The hand changes when this seat plays or its turn comes or goes: not for most actions
    # (nor when only the calls it may make change: a bet sung, an envido answered).
    @drawn_from(lambda part, model: (model.view.own_cards, playable_cards(model), model.view.card_marks,
                                     model.view.french, card_size(part.screen)))
    def update_from(self, model: TableModel) -> None:
        self._hand_model = model
        self._card_size = size = card_size(self.screen)
        self.card_width = CARD_SIZES[size]
        own = model.view.own_cards
        playable = set(playable_cards(model))
        roles = card_roles(model.view)
        boxes = [card_box(card, str(i + 1), french=french(model), ascii_only=self.lite, selected=card in playable,
                          role=roles.get(card), size=size)
                 for i, card in enumerate(own)]
        self.show_cards(boxes)
