"""Who made each pending bet: the name the table shows is the seat whose `Acted` event made it;
and every log line that names a player names the seat that acted.

A property test over random 4- and 6-player games of every variant that has those sizes,
through the engine's public view and events and the TUI's own text function for the bets
line (tui.bets.pending_bets, which the table screen draws). Then the special hands and the
log lines that name who did what.
"""
from __future__ import annotations

import random
from collections import Counter
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import engine
from engine.core.calls import ENVIDO_CALLS, FLOR_RAISES, TRUCO_CALLS, Call
from tui.bets import Pending, pending_bets
from tui.i18n import Translator
from server.table.log_events import log_events
from tui.event_text import log_lines

from tests.tui.kit import NAMES, model_for

TRUCO = {c.value for c in TRUCO_CALLS}
# Every call that makes (or raises) an envido or an envite between flores.
ENVIDO = {c.value for c in ENVIDO_CALLS} | {
    c.value for c in (Call.ENVIDO_PUNTOS, Call.PIEDRAS, Call.HASTA_IGUALAR, Call.LAS_QUE_PINTAN)
}
FLOR = {c.value for c in FLOR_RAISES}
TRANSLATORS = [Translator(lang) for lang in ("en", "es", "pt")]

# Every variant with a 4- or 6-player game, at each of those sizes.
TABLE_SIZES = [("argentino", 4), ("argentino", 6), ("uruguayo", 4), ("uruguayo", 6), ("paulista", 4),
               ("venezolano", 4)]
TABLES = st.sampled_from(TABLE_SIZES)


class Bettors:
    """Who said the bets of the current hand, read from the `Acted` events alone."""

    def __init__(self) -> None:
        self.truco: int | None = None
        self.envido: int | None = None
        self.flor: int | None = None

    def see(self, event: engine.Event) -> None:
        if isinstance(event, engine.HandStarted):  # a new hand (or pica-pica duel)
            self.truco = self.envido = self.flor = None
        elif isinstance(event, engine.Acted):
            if event.call in TRUCO:
                self.truco = event.seat
            elif event.call in ENVIDO:
                self.envido = event.seat
            elif event.call in FLOR:
                self.flor = event.seat


def check_names(state: engine.State, bettors: Bettors, seat: int | None, seen: Counter[str]) -> None:
    """Every pending bet on this viewer's bets line names its bettor and nobody else;
    `seen` counts the bets checked: named ones, and those nobody called."""
    model = model_for(state, seat)
    view = model.view
    if view.truco_pending and bettors.truco is None:
        seen["eleven" if view.deal_kind == "eleven" else "privo"] += 1
    named = 0
    for tr in TRANSLATORS:
        parts = {part.kind: part for part in pending_bets(tr, model)}
        if view.truco_pending:
            named += _check(parts["truco"], bettors.truco, state, view.truco_pending_by, seat, tr)
            if bettors.truco is None and view.deal_kind == "eleven":
                # Nobody called it: the team on 11 decides; its players are the ones named.
                at_eleven = 1 - view.truco_pending_by
                for s in view.players:
                    assert (NAMES[s] in parts["truco"].text) == (view.teams[s] == at_eleven)
        if view.envido_status == "betting" and view.envido_calls:
            named += _check(parts["envido"], bettors.envido, state, view.envido_by, seat, tr)
        if view.flor_status in ("announcing", "answering", "round_two") and view.flor_pending_seat is not None:
            named += _check(parts["flor"], bettors.flor, state, view.flor_pending_by, seat, tr)
    seen["named"] += named


def _check(part: Pending, bettor: int | None, state: engine.State, team: int | None, viewer: int | None,
           tr: Translator) -> int:
    assert part.seat == bettor, (part, bettor)
    if bettor is None:
        # A bet nobody said out loud (mão de onze, privo y truco) names no one of its team.
        assert not any(NAMES[s] in part.text for s in range(state.n) if state.team(s) == team), part
        return 0
    if bettor == viewer:  # the bettor reads "(you)", not his own name as if another said it
        assert tr("table.seat_picker.you") in part.text and NAMES[bettor] not in part.text, (part, bettor)
    else:
        assert NAMES[bettor] in part.text, (part, bettor)
    others = [NAMES[s] for s in range(state.n) if s != bettor]
    assert not any(name in part.text for name in others), (part, bettor)
    return 1


def check_log(state: engine.State, events: list[engine.Event], seat: int | None, seen: Counter[str]) -> None:
    """Every log line of these events that names a player names the seat that acted: the
    seat of each `Acted` (also when the bot chose the move for it), the seat whose card took
    each trick."""
    wire = log_events(events, seat)
    lines = [line.plain for line in log_lines(TRANSLATORS[0], model_for(state, seat), wire, french=False)]
    covered = None
    for event in events:
        if isinstance(event, engine.SeatCovered):
            covered = event.seat
        elif isinstance(event, engine.Acted):
            who = NAMES[event.seat]
            if covered == event.seat:
                assert any(line.startswith("Time's up: the bot") and line.endswith(f" for {who}.")
                           for line in lines), (lines, event)
                seen["covered"] += 1
            else:
                assert any(line.startswith(f"{who}: ") for line in lines), (lines, event)
            covered = None
        elif isinstance(event, engine.TrickEnded) and event.winner_team is not None:
            taker = NAMES[event.next_leader]
            assert f"Trick {event.number}: {taker} (" in " | ".join(lines), (lines, event)
            assert state.team(event.next_leader) == event.winner_team
            seen["tricks"] += 1


def play(variant: str, n: int, seed: int, options: dict[str, Any], steps: int = 1500) -> Counter[str]:
    """A random match (at most `steps` moves), checked after every move."""
    rng = random.Random(seed)
    rules = engine.get_ruleset(variant, **options)
    state, events = engine.new_match(rules, n, rng)
    bettors = Bettors()
    seen: Counter[str] = Counter()
    for _ in range(steps):
        for event in events:
            bettors.see(event)
        check_names(state, bettors, rng.choice([*range(n), None]), seen)
        if state.match_over:
            break
        if state.needs_deal:
            state, events = engine.deal(state, rng)
            continue
        legal = engine.all_legal_actions(state)
        # Bets more often than plain cards, so that raises and answers pile up.
        bets = [a for a in legal if a.call is not Call.PLAY]
        action = rng.choice(bets if bets and rng.random() < 0.6 else legal)
        state, events = engine.apply(state, action)
        if rng.random() < 0.1:  # the table's bot chose this move for the seat (turn timer)
            events = [engine.SeatCovered(action.seat, "time"), *events]
        check_log(state, events, rng.choice([*range(n), None]), seen)
    return seen


OPTIONS = {
    "argentino": st.fixed_dictionaries({"flor": st.booleans(), "target": st.sampled_from([15, 30])}),
    "uruguayo": st.fixed_dictionaries({"flor": st.booleans(), "target": st.sampled_from([15, 30])}),
    "paulista": st.just({}),
    "venezolano": st.just({}),
}


@settings(max_examples=80, database=None, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(table=TABLES, seed=st.integers(0, 2**32), data=st.data())
def test_every_pending_bet_names_the_seat_whose_action_made_it(table: tuple[str, int], seed: int,
                                                                data: st.DataObject) -> None:
    variant, n = table
    options = data.draw(OPTIONS[variant])
    play(variant, n, seed, options)


def test_the_property_sees_bets_at_every_table() -> None:
    """The random games do reach named bets at every size of every variant (the property
    above would pass vacuously otherwise)."""
    total: Counter[str] = Counter()
    for variant, n in TABLE_SIZES:
        seen: Counter[str] = Counter()
        for seed in range({"paulista": 40, "venezolano": 150}.get(variant, 12)):
            seen += play(variant, n, seed, {"flor": True} if variant in ("argentino", "uruguayo") else {})
        assert seen["named"] > 50, (variant, n, seen)
        total += seen
    # ... and the bets nobody called: a mão de onze, a Venezuelan privo y truco; and the
    # log lines of moves the bot made for a seat, of tricks taken.
    assert total["eleven"] and total["privo"] and total["covered"] and total["tricks"], total
