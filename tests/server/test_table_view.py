"""The engine's View and the protocol's TableView stay in step (server/table/table_view.py)."""
from __future__ import annotations

import dataclasses
import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import engine
import protocol as p
from server.table.table_view import NOT_SENT, table_view

ENGINE_FIELDS = {f.name for f in dataclasses.fields(engine.View)}
SENT_FIELDS = {f.name for f in dataclasses.fields(p.TableView)}


def test_every_engine_field_is_sent_or_deliberately_left_out() -> None:
    assert ENGINE_FIELDS - SENT_FIELDS == set(NOT_SENT), "map the new engine field or say why not"
    assert not SENT_FIELDS - ENGINE_FIELDS, "a TableView field no engine field fills"
    assert all(reason for reason in NOT_SENT.values())


def _option_values(spec: engine.OptionSpec) -> st.SearchStrategy[object]:
    if spec.choices:
        return st.sampled_from(spec.choices)
    if spec.kind == "bool":
        return st.booleans()
    return st.just(spec.default)


@st.composite
def tables(draw: st.DrawFn) -> tuple[engine.State, int | None]:
    """A random state of a random variant, player count and options, and a viewer."""
    spec = draw(st.sampled_from(engine.variant_catalog()))
    players = draw(st.sampled_from(spec.player_counts))
    options = {o.name: draw(_option_values(o)) for o in spec.options}
    rules = engine.get_ruleset(spec.name, **options)
    rng = random.Random(draw(st.integers(0, 2**32)))
    state, _ = engine.new_match(rules, players, rng)
    for _ in range(draw(st.integers(0, 250))):
        if state.match_over:
            break
        state, _ = engine.advance(state, rng.choice(engine.all_legal_actions(state)), rng)
    return state, draw(st.none() | st.integers(0, players - 1))


def _update(view: p.TableView, seat: int | None) -> p.TableUpdate:
    return p.TableUpdate(table_id="t1", seq=1, seat=seat, seats=(), view=view)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tables())
def test_random_states_of_every_variant_cross_the_wire_unchanged(table: tuple[engine.State, int | None]) -> None:
    state, seat = table
    seen = engine.view(state, seat)
    sent = table_view(seen)
    assert p.decode(p.encode(_update(sent, seat))).view == sent
    # Built without its __init__: the same record as one built through it, hashed alike.
    through_init = p.TableView(**{f.name: getattr(sent, f.name) for f in dataclasses.fields(p.TableView)})
    assert through_init == sent and hash(through_init) == hash(sent) and vars(through_init) == vars(sent)
    # Each field says what the engine's does: plain values as they are, cards as their text,
    # records field by field (the engine's wire form is the reference for those).
    wire = seen.to_wire()
    for name in SENT_FIELDS:
        assert _as_lists(getattr(sent, name)) == wire[name], name


def _as_lists(value: object) -> object:
    """A TableView value in the engine's wire form (lists, maps; a legal call without the
    card or amount it does not have)."""
    if isinstance(value, p.LegalCall):
        return {k: v for k, v in dataclasses.asdict(value).items() if v is not None or k in ("seat", "call")}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _as_lists(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, tuple):
        return [_as_lists(v) for v in value]
    return value


def test_a_spectator_sees_no_hidden_card_and_a_seat_its_own() -> None:
    state, _ = engine.new_match(engine.get_ruleset("argentino", flor=False), 2, random.Random(4))
    turn = engine.view(state, None).turn
    assert turn is not None
    mine = table_view(engine.view(state, turn))
    assert mine.own_cards == tuple(str(c) for c in state.hands[turn]) and len(mine.own_cards) == 3
    assert table_view(engine.view(state, None)).own_cards == ()
    assert {c.card for c in mine.legal if c.card} == set(mine.own_cards)
