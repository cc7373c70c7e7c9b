"""While a bet waits for this player's answer (or a declaration for their word) the key bar
lists the call keys that work now, in the player's language; in play the calls pane beside
the cards lists them and the bar keeps to the card and table keys."""
from __future__ import annotations

import pytest

from tui.calls import call_label
from tui.i18n import Translator

from tests.tui.kit import FakeLink, TrucoCalled, seated_app, table_shown, update_for
from tests.tui.test_keys import key_bar

SIZES = [(60, 20), (80, 24), (200, 50)]


@pytest.mark.parametrize("lang", ["en", "es", "pt"])
@pytest.mark.parametrize("size", SIZES)
async def test_the_bar_lists_the_answers_to_a_truco(lang: str, size: tuple[int, int],
                                                   truco_called: TrucoCalled) -> None:
    state, events, mano = truco_called
    link = FakeLink()
    app = await seated_app(link, 1 - mano)
    app.tr = Translator(lang)
    async with table_shown(app, link, update_for(state, 1 - mano, 4, events), size) as pilot:
        screen = app.screen
        choices = screen._choices
        assert {c.call for c in choices} >= {"quiero", "no_quiero"}
        bar = key_bar(app)
        assert bar.startswith(f"{choices[0].key} ")  # the answers lead, in the pane's order
        for choice in choices:  # every answer that works now, with its key, none cut
            assert f"{choice.key} {call_label(app.tr, 'argentino', choice.call, answering=True)}" in bar
        await pilot.press("q")
        assert link.sent[-1].call == "quiero"


async def test_in_play_the_bar_keeps_to_cards_and_table_keys(truco_called: TrucoCalled) -> None:
    state, events, mano = truco_called
    link = FakeLink()
    app = await seated_app(link, mano)  # the caller waits for the answer: nothing to answer
    async with table_shown(app, link, update_for(state, mano, 4, events)) as pilot:
        assert "Quiero" not in key_bar(app)
        assert "Truco" not in key_bar(app)
        await pilot.pause()
