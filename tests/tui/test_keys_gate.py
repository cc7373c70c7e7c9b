"""The table's key bar is asked again only when what it shows may have changed
(tui/screens/table_keys.py): an update that changes none of the keys' answers leaves it,
one that gives this seat its turn redraws it, and it always matches Textual's answers; a
state seen before is drawn from the bar kept for it, without asking Textual again."""
from __future__ import annotations

import random
from typing import Any

import engine
import protocol as p
from tests.tui.kit import TABLE_NAMES, FakeLink, seated_app, table_shown, update_for
from tests.tui.test_keys import key_bar
from tui.screens.table import TableScreen
from tui.screens.table_keys import key_state_actions
from tui.widgets.table.calls import CARD_CALLS
from tui.widgets.keybar import KeyBar, binding_pairs

FOUR = p.TableInfo(table_id="t1", title="la mesa", variant="argentino", owner="ana",
                   seats=TABLE_NAMES[:4], options={"target": 30}, status="playing")


def _moves() -> list[tuple[engine.State, list[engine.Event]]]:
    """A 4-player hand, card by card, from its deal."""
    rules = engine.get_ruleset("argentino", flor=False)
    rng = random.Random(7)
    state, events = engine.new_match(rules, 4, rng)
    out = [(state, list(events))]
    while not state.needs_deal and len(out) < 9:
        plays = [a for a in engine.all_legal_actions(state) if a.card is not None]
        state, events = engine.apply(state, plays[0])
        out.append((state, list(events)))
    return out


async def test_the_key_bar_is_redrawn_only_when_its_keys_change(monkeypatch: Any) -> None:
    moves = _moves()
    seat = 2
    link = FakeLink()
    app = await seated_app(link, seat, table=FOUR)
    async with table_shown(app, link, update_for(moves[0][0], seat, 1, moves[0][1])) as pilot:
        screen = app.screen
        assert isinstance(screen, TableScreen)
        drawn: list[int] = []
        asked: list[int] = []
        show, ask = KeyBar.show, KeyBar.draw_bindings

        def counted_show(self: KeyBar, pairs: list[tuple[str, str]]) -> None:
            drawn.append(1)
            show(self, pairs)

        def counted_ask(self: KeyBar, on: Any) -> None:
            asked.append(1)
            ask(self, on)

        monkeypatch.setattr(KeyBar, "show", counted_show)
        monkeypatch.setattr(KeyBar, "draw_bindings", counted_ask)
        turns = []
        for seq, (state, events) in enumerate(moves[1:], start=2):
            before = len(drawn)
            link.push(update_for(state, seat, seq, events))
            await pilot.pause(0.1)
            mine = any(a.card is not None for a in engine.legal_actions(state, seat))  # to play
            turns.append(mine)
            # The bar says what Textual's bindings say now, whether it was redrawn or not.
            pairs = binding_pairs(screen.active_bindings, screen._binding_label, screen.key_order)
            assert key_bar(app) == "  ".join(f"{k} {label}" for k, label in pairs)
            assert ("1-" in key_bar(app)) == mine
            drawn_now = len(drawn) > before
            if seq > 2 and mine != turns[-2]:
                assert drawn_now, f"turn {'came' if mine else 'went'} and the bar was not redrawn"
        assert True in turns and False in turns
        # Most updates (another seat's card, still not this seat's turn) leave the bar as it was.
        assert len(drawn) < len(moves) - 1
        # The turn came back at least once: that bar was drawn from what was kept.
        assert len(asked) < len(drawn)


def _random_play(variant: str, seats: int, seed: int, steps: int = 60,
                 **options: Any) -> list[tuple[engine.State, list[engine.Event]]]:
    """A seeded match, any legal action at each step (calls, answers, cards), deals included."""
    rules = engine.get_ruleset(variant, **options)
    rng = random.Random(seed)
    state, events = engine.new_match(rules, seats, rng)
    out = [(state, list(events))]
    for _ in range(steps):
        actions = engine.all_legal_actions(state)
        if not actions:
            break
        state, events = engine.advance(state, rng.choice(actions), rng)
        out.append((state, list(events)))
    return out


async def test_the_answers_the_bar_is_keyed_by_are_textuals_answers() -> None:
    """``key_answers`` (the card keys from one pass over the legal actions) says what
    ``check_action`` says for every binding, in every state of games of two variants: to
    play, to answer, a call waiting for its card (Venezuelan pintan), watching, typing."""
    for variant, options, seat in (("argentino", {"flor": True}, 1), ("venezolano", {}, 0), ("argentino", {}, None)):
        info = p.TableInfo(table_id="t1", title="la mesa", variant=variant, owner="ana",
                           seats=TABLE_NAMES[:2], options={"target": 30}, status="playing")
        moves = _random_play(variant, 2, seed=11, **options)
        link = FakeLink()
        app = await seated_app(link, seat, table=info)
        async with table_shown(app, link, update_for(moves[0][0], seat, 1, moves[0][1])) as pilot:
            screen = app.screen
            assert isinstance(screen, TableScreen)
            asked = key_state_actions(TableScreen.BINDINGS)
            card_calls = 0
            for seq, (state, events) in enumerate(moves[1:], start=2):
                link.push(update_for(state, seat, seq, events))
                await pilot.pause(0.02)
                for card_call in (None, *{a.call for a in screen.table.view.legal
                                          if a.card and a.call not in CARD_CALLS}):
                    screen._card_call = card_call
                    card_calls += card_call is not None
                    expected = tuple(screen.check_action(name, params) for name, params in asked)
                    assert screen.key_answers(asked) == expected, (variant, seq, card_call)
                    own = screen.table.view.own_cards  # a key is on when pressing it acts
                    acts = {i for i in range(9) if i < len(own) and screen._card_action(own[i]) is not None}
                    assert screen.usable_card_keys() == acts, (variant, seq, card_call)
                screen._card_call = None
            if variant == "venezolano":
                assert card_calls, "no state with a call waiting for its card was tried"
            screen.query_one("#t-chat").focus()
            await pilot.pause(0.02)
            assert screen.key_answers(asked) == tuple(screen.check_action(n, ps) for n, ps in asked)
