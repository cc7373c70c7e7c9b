"""The player's cards, the playable ones marked; a click posts ``CardPicked``."""
from __future__ import annotations

from tui.cards import card_box, card_roles
from tui.table_model import TableModel
from tui.widgets.panels import HandPanel
from tui.widgets.table.part import TablePart, drawn_from, french

CARD_WIDTH = 8  # a drawn card (7) and the gap after it


def playable_cards(model: TableModel) -> tuple[str, ...]:
    """The cards some legal action now takes (each once, in the order of the actions)."""
    return tuple(dict.fromkeys(a.card for a in model.view.legal if a.card))


class CardsPanel(HandPanel, TablePart):
    """``#t-cards``."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id, card_width=CARD_WIDTH)

    # The hand changes when this seat plays or its turn comes or goes: not for most actions
    # (nor when only the calls it may make change: a bet sung, an envido answered).
    @drawn_from(lambda part, model: (model.view.own_cards, playable_cards(model), model.view.card_marks,
                                     model.view.french))
    def update_from(self, model: TableModel) -> None:
        own = model.view.own_cards
        playable = set(playable_cards(model))
        roles = card_roles(model.view)
        boxes = [card_box(card, str(i + 1), french=french(model), ascii_only=self.lite, selected=card in playable,
                          role=roles.get(card))
                 for i, card in enumerate(own)]
        self.show_cards(boxes)
