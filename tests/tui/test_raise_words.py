"""A raise is said as an answer only when it answers: "Quiero retruco" to a truco that waits
for the speaker's side, "Retruco" when the truco was accepted earlier in the hand (docs/RULES.md
1.7.1, 1.8.1, AR-21..AR-23; engine/DECISIONS.md "Quiero retruco").

A property test over random games of every variant whose raises have an answer form, read the
way a session reads them: update by update, the log carrying its hand's context from one
update to the next, and the seat's speech bubble from the hand's events. The truth is the
engine's state just before the raise: was a truco-ladder bet waiting for an answer?
"""
from __future__ import annotations

import random
from collections import Counter

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import engine
from engine.core.calls import Call
from tui.calls import call_label
from tui.event_text import HandContext, log_lines_after, said_in_hand
from tui.i18n import Translator
from tui.table_model import TableModel

from tests.tui.kit import NAMES, update_for

# The raises said differently as an answer (the Brazilian ladder's words are the same both ways).
ANSWER_FORMS = {Call.RETRUCO, Call.VALE_CUATRO, Call.VALE_NUEVE, Call.VALE_EL_JUEGO}
TABLES = [("argentino", 2), ("argentino", 4), ("argentino", 6), ("uruguayo", 2), ("uruguayo", 4),
          ("venezolano", 2), ("venezolano", 4)]


def play(variant: str, n: int, seed: int, lang: str, steps: int = 1200) -> Counter[str]:
    """A random match, every raise in it checked; returns how many of each kind were seen."""
    tr = Translator(lang)
    rng = random.Random(seed)
    rules = engine.get_ruleset(variant)
    state, events = engine.new_match(rules, n, rng)
    model = TableModel("t1")
    hand = HandContext()
    seq = 0
    seen: Counter[str] = Counter()

    def show(events: list[engine.Event]) -> list[str]:
        nonlocal hand, seq
        seq += 1
        update = update_for(state, None, seq, events, names=NAMES)
        model.apply(update)
        lines, hand = log_lines_after(tr, model, update.events, french=False, hand=hand)
        return [line.plain for line in lines]

    show(events)
    for _ in range(steps):
        if state.match_over:
            break
        if state.needs_deal:
            state, events = engine.deal(state, rng)
            show(events)
            continue
        legal = engine.all_legal_actions(state)
        raises = [a for a in legal if a.call in ANSWER_FORMS]
        bets = [a for a in legal if a.call is not Call.PLAY]
        action = rng.choice(raises if raises and rng.random() < 0.5 else
                            bets if bets and rng.random() < 0.6 else legal)
        answers = bool(state.truco_pending)  # a truco-ladder bet waited for an answer
        state, events = engine.apply(state, action)
        lines = show(events)
        if action.call not in ANSWER_FORMS:
            continue
        said = call_label(tr, variant, action.call.value, answering=answers)
        other = call_label(tr, variant, action.call.value, answering=not answers)
        assert said != other, (variant, action.call)
        who = NAMES[action.seat]
        spoken = [line for line in lines if line.startswith(f"{who}: ")]
        assert spoken and said in spoken[0] and other not in spoken[0], (lines, action, answers)
        bubble = said_in_hand(tr, model, model.last_hand_events).get(action.seat)
        assert bubble == said, (bubble, said, action)
        seen["answer" if answers else "later"] += 1
    return seen


@settings(max_examples=60, database=None, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(table=st.sampled_from(TABLES), seed=st.integers(0, 2**32), lang=st.sampled_from(["en", "es", "pt"]))
def test_a_raise_is_quiero_retruco_only_when_it_answers(table: tuple[str, int], seed: int, lang: str) -> None:
    play(*table, seed, lang)


def test_the_property_sees_both_forms_in_every_game() -> None:
    """Random games do reach raises of both kinds in each variant (else the property above
    would pass without checking one of them)."""
    for variant in ("argentino", "uruguayo", "venezolano"):
        total: Counter[str] = Counter()
        for seed in range(40):
            total += play(variant, 2, seed, "es")
            if total["answer"] and total["later"]:
                break
        assert total["answer"] and total["later"], (variant, total)


def test_the_words_in_each_language() -> None:
    es = Translator("es")
    assert call_label(es, "argentino", "retruco", answering=True) == "Quiero retruco"
    assert call_label(es, "argentino", "retruco") == "Retruco"
    assert call_label(es, "uruguayo", "vale_cuatro", answering=True) == "Quiero vale cuatro"
    assert call_label(es, "venezolano", "vale_nueve", answering=True) == "Quiero y vale nueve"
    assert call_label(Translator("pt"), "paulista", "seis", answering=True) == "Seis"
