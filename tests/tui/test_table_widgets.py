"""The table's parts are widgets that post messages up: a click on a card or on a call
reaches the screen as CardPicked / CallPicked and sends the same action as its key."""
from __future__ import annotations

import engine
import protocol as p
from tui.calls import assign_keys
from tui.widgets.panels import GridPanel, HandPanel
from tui.widgets.table import CallsPanel, CardsPanel

from tests.tui.kit import FakeLink, OwnTurn, ShowTable


async def test_a_click_on_a_card_or_a_call_is_posted_up_and_sent(
        link: FakeLink, show_table: ShowTable, own_turn: OwnTurn
) -> None:
    state, events, seat, view = own_turn
    async with show_table(state, seat, events) as pilot:
        app = pilot.app
        cards = app.screen.query_one("#t-cards", HandPanel)
        assert isinstance(cards, CardsPanel)
        await pilot.click("#t-cards", offset=(cards.card_width + 1, 1))  # the second card
        sent = [m for m in link.sent if isinstance(m, p.TableAction)]
        assert sent[-1].call == "play" and sent[-1].card == str(view.own_cards[1])

    async with show_table(state, seat, events) as pilot:
        app = pilot.app
        grid = app.screen.query_one("#t-actions", GridPanel)
        assert isinstance(grid, CallsPanel)
        calls = list(dict.fromkeys(a.call.value for a in view.legal if a.call is not engine.Call.PLAY))
        assert [c.call for c in grid.choices] == [c.call for c in assign_keys(calls)]
        before = len(link.sent)  # (the link is the first app's too)
        await pilot.click("#t-actions", offset=(0, 0))  # the first cell
        sent = [m for m in link.sent[before:] if isinstance(m, p.TableAction)]
        assert sent and sent[-1].call == grid.choices[0].call
