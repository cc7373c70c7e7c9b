"""Venezuelan flor declared by the players (docs/RULES.md 4.9; option flor_declaration="a_ley",
the default): one named test per engine rule, through new_match / legal_actions / apply.

The vira is 4c: perico 11c, perica 10c, La Reservada = 11c + 10c. With 2 players seat 0 is
El Mano and seat 1 (the dealer) El Pie; with 4, seat 3 deals (El Pie) and seats 0 and 2 are
one team.
"""

from __future__ import annotations

import random
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from engine.testing import act, illegal, points, scenario

from engine import (
    Acted,
    Action,
    Call,
    CardsShown,
    FlorAnswered,
    GameEnded,
    HandDealt,
    PointsScored,
    PointsWithheld,
    State,
    advance,
    all_legal_actions,
    get_ruleset,
    legal_actions,
    new_match,
    view,
)
from engine.core.state import FlorStatus, Phase
from engine.variants.venezolano.cards import is_reservada

VIRA = "4c"
FLOR = "1e 7e 3e"  # a flor of espadas (31) with strong trick cards
WEAK = "4o 5b 6c"  # no flor, weak cards, envite 6
RESERVADA = "11c 10c 3o"


def ve(hands: dict[int, str], n: int = 2, **kw: Any) -> State:
    state, _ = scenario(hands, n=n, variant="venezolano", face_up=VIRA, **kw)
    return state


def calls(state: State, seat: int) -> set[str]:
    return {a.call.value for a in legal_actions(state, seat)}


def withheld(events: list[Any]) -> list[tuple[int, int, str, str]]:
    return [(e.team, e.points, e.reason, e.rule) for e in events if isinstance(e, PointsWithheld)]


def play_out(state: State) -> tuple[State, list[Any]]:
    """Each player in turn plays his first card until the hand ends (a-ley players pass)."""
    events: list[Any] = []
    while state.phase in (Phase.PLAY, Phase.FLOR):
        if state.phase is Phase.FLOR:
            seat = next(s for s in range(state.n) if legal_actions(state, s))
            state, more = act(state, (seat, legal_actions(state, seat)[0].call.value))
        else:
            seat = state.turn
            state, more = act(state, (seat, "play", str(state.hands[seat][0])))
        events += more
    return state, events


# ---------------------------------------------------------------- the option


def test_automatic_option_keeps_the_engine_announcement() -> None:
    assert get_ruleset("venezolano").flor_declaration == "a_ley"
    state = ve({0: FLOR, 1: WEAK}, flor_declaration="automatic")
    assert state.phase is Phase.FLOR and legal_actions(state, 0) == [Action(0, Call.FLOR)]
    state, events = act(state, (0, "flor"))
    assert points(events) == [(0, 3, "flor")]  # scored at once, as before


def test_a_ley_hand_starts_with_the_tricks_and_hides_the_flor() -> None:
    state = ve({0: FLOR, 1: WEAK})
    assert state.phase is Phase.PLAY and state.flor_status is FlorStatus.NONE
    assert {"flor", "a_ley", "play"} <= calls(state, 0)
    # Nothing in the opponents' view tells that seat 0 holds a flor.
    other = ve({0: "4e 5o 6b", 1: WEAK})
    assert view(state, 1) == view(other, 1)
    assert "flor" not in calls(other, 0) and "a_ley" in calls(other, 0)  # V-F11: never offered
    assert view(state, 1).flor_announced == view(other, 1).flor_announced == ()


# ---------------------------------------------------------------- V-F1, V-F2, V-F3


def test_VF1_declared_flor_scores_at_the_hand_end_and_a_silent_one_is_lost() -> None:
    state, events = act(ve({0: FLOR, 1: WEAK}), (0, "flor"))
    assert points(events) == []
    state, events = play_out(state)
    assert points(events) == [(0, 3, "flor"), (0, 1, "truco")]  # envite before truco
    # Played without a word: no flor, and the truco it wins is not collected (V-F9).
    state, events = play_out(ve({0: FLOR, 1: WEAK}))
    assert points(events) == []
    assert withheld(events) == [(0, 1, "truco", "V-F1")]
    assert [e.reason for e in events if isinstance(e, CardsShown)] == ["hidden_flor"]
    assert state.history[-1].penalties == ((0, "V-F1", 1),)


def test_VF2_tengo_flor_after_a_ley_before_the_second_card() -> None:
    state, _ = act(ve({0: FLOR, 1: WEAK}), (0, "a_ley"), (0, "play", "1e"), (1, "play", "4o"))
    # Trick 1 is over: the a-ley player speaks before anybody's second card.
    assert state.phase is Phase.FLOR and state.flor_status is FlorStatus.LEY
    assert calls(state, 0) == {"tengo_flor", "pass_flor"} and calls(state, 1) == set()
    said, _ = act(state, (0, "tengo_flor"))
    said, events = play_out(said)
    assert points(events) == [(0, 3, "flor"), (0, 1, "truco")]
    quiet, _ = act(state, (0, "pass_flor"))
    quiet, events = play_out(quiet)
    assert withheld(events) == [(0, 1, "truco", "V-F2")]
    # A reply to a truco after the ley without "tengo flor" loses the flor too.
    state, _ = act(ve({0: FLOR, 1: WEAK}), (0, "a_ley"), (0, "play", "1e"), (1, "truco"))
    assert {"tengo_flor", "quiero"} <= calls(state, 0)
    state, _ = act(state, (0, "quiero"))
    state, events = play_out(state)
    assert withheld(events) == [(0, 3, "truco", "V-F2")] and points(events) == []


def test_VF2_a_ley_without_a_flor_only_passes() -> None:
    state, _ = act(ve({0: WEAK, 1: "4e 5o 6b"}), (0, "a_ley"), (0, "play", "4o"),
                   (1, "play", "4e"))
    assert calls(state, 0) == {"pass_flor"}  # no false flor (V-F11)
    assert view(state, 1).ley_seats == (0,)


def test_VF3_a_declared_flor_voids_the_envite_sin_ley() -> None:
    # El Pie declares his flor instead of answering: the envite is worth nothing.
    state, _ = act(ve({0: WEAK, 1: FLOR}), (0, "envido"))
    assert {"flor", "quiero", "no_quiero"} <= calls(state, 1)
    state, _ = act(state, (1, "flor"))
    state, events = play_out(state)
    assert points(events) == [(1, 3, "flor"), (1, 1, "truco")]
    # An envite settled before a partner's flor is declared is void at the hand end.
    state = ve({0: "7o 6o 1b", 1: WEAK, 2: FLOR, 3: "4e 5c 12b"}, n=4)
    state, _ = act(state, (0, "envido"), (1, "quiero"), (0, "declare_envido"),
                   (1, "son_buenas"), (3, "son_buenas"), (0, "play", "7o"), (1, "play", "4o"),
                   (2, "flor"))
    state, events = play_out(state)
    assert withheld(events)[0] == (0, 2, "envido", "V-F3")
    assert (0, 3, "flor") in points(events)


# ---------------------------------------------------------------- V-F9, V-F10


def test_VF9_hidden_flor_cannot_collect_the_envite_it_wins_but_pays() -> None:
    state, _ = act(ve({0: WEAK, 1: FLOR}), (0, "envido"), (1, "quiero"),
                   (0, "declare_envido"), (1, "declare_envido"))
    state, events = play_out(state)
    assert withheld(events) == [(1, 2, "envido", "V-F9"), (1, 1, "truco", "V-F9")]
    assert state.scores == (0, 0)
    # Losing it, he pays.
    state, _ = act(ve({0: "7o 6o 2b", 1: "4e 5e 6e"}), (0, "envido"), (1, "quiero"),
                   (0, "declare_envido"), (1, "son_buenas"))
    state, events = play_out(state)
    assert (0, 2, "envido") in points(events)


def test_VF10_truco_answered_without_identifying_the_flor() -> None:
    state, _ = act(ve({0: WEAK, 1: FLOR}), (0, "truco"))
    assert {"flor", "quiero"} <= calls(state, 1)
    state, _ = act(state, (1, "quiero"))
    assert "flor" not in calls(state, 1)  # too late
    state, events = play_out(state)
    assert withheld(events) == [(1, 3, "truco", "V-F10")] and points(events) == []
    # Saying flor first keeps both.
    state, _ = act(ve({0: WEAK, 1: FLOR}), (0, "truco"), (1, "flor"), (1, "quiero"))
    state, events = play_out(state)
    assert points(events) == [(1, 3, "flor"), (1, 3, "truco")]


def test_VF10_exception_truco_after_the_partners_ley() -> None:
    hands = {0: "4e 5o 12b", 1: WEAK, 2: FLOR, 3: "6e 7c 2o"}
    state, _ = act(ve(hands, n=4), (0, "a_ley"), (0, "play", "4e"), (1, "play", "4o"),
                   (2, "truco"), (1, "quiero"))
    assert "flor" in calls(state, 2)  # still his to declare
    state, _ = act(state, (2, "flor"))
    state, events = play_out(state)
    assert withheld(events) == []
    assert points(events) == [(0, 3, "flor"), (0, 3, "truco")]
    # Without the partner's ley the same call loses the flor.
    state, _ = act(ve(hands, n=4), (0, "play", "4e"), (1, "play", "4o"), (2, "truco"),
                   (1, "quiero"))
    assert "flor" not in calls(state, 2)


# ---------------------------------------------------------------- a ley, con ley / sin ley


def test_VL1_el_pie_cannot_play_a_ley() -> None:
    state, _ = act(ve({0: WEAK, 1: FLOR}), (0, "play", "4o"))
    assert "a_ley" not in calls(state, 1) and "flor" in calls(state, 1)
    assert "V-L1" in illegal(state, 1, "a_ley")
    four = ve({3: FLOR}, n=4)
    assert "a_ley" in calls(four, 0)


def test_VL2_el_pie_con_ley_envido_and_answers() -> None:
    # "Con ley envido": El Pie declares his flor and bets; a player without flor can only
    # say "sin ley no quiero": El Pie collects his flor + 1 (V-F6).
    state, _ = act(ve({0: WEAK, 1: FLOR}), (0, "play", "4o"), (1, "flor"), (1, "envido"))
    assert view(state, 0).envite_ley is True
    assert calls(state, 0) == {"sin_ley_no_quiero"}
    state, _ = act(state, (0, "sin_ley_no_quiero"))
    state, events = play_out(state)
    assert points(events)[:2] == [(1, 1, "con_ley_declined"), (1, 3, "flor")]
    # El Pie answering an envite con ley with his flor: "con ley quiero".
    state, _ = act(ve({0: WEAK, 1: FLOR}), (0, "a_ley"), (0, "envido"))
    assert calls(state, 1) == {"con_ley_quiero", "sin_ley_no_quiero"}


def test_VL4_a_ley_juego_y_envido_is_answered_con_ley_or_sin_ley() -> None:
    state, _ = act(ve({0: WEAK, 1: FLOR}), (0, "a_ley"), (0, "envido_puntos", 5))
    assert "quiero" not in calls(state, 1) and "piedras" not in calls(state, 1)
    state, _ = act(state, (1, "con_ley_quiero"), (0, "play", "4o"))
    state, events = play_out(state)
    # The bettor had no flor: the flor collects 3 + the stake.
    assert points(events)[0] == (1, 3 + 5, "flor_envite")
    # A player without a flor can only say sin ley no quiero: the bettor scores 1.
    state, _ = act(ve({0: WEAK, 1: "4e 5o 6b"}), (0, "a_ley"), (0, "envido_puntos", 5))
    assert calls(state, 1) == {"sin_ley_no_quiero"}
    state, _ = act(state, (1, "sin_ley_no_quiero"), (0, "play", "4o"))
    state, events = play_out(state)
    assert points(events)[0] == (0, 1, "con_ley_declined")


def test_VL6_both_sides_a_ley_the_envite_con_ley_is_settled_before_second_cards() -> None:
    hands = {0: FLOR, 1: "7b 6b 5b", 2: "4e 5o 12b", 3: "6e 7c 2o"}
    state, _ = act(ve(hands, n=4), (0, "a_ley"), (0, "play", "1e"), (1, "a_ley"),
                   (1, "envido"), (0, "con_ley_quiero"), (1, "play", "7b"),
                   (2, "play", "4e"), (3, "play", "6e"))
    assert state.flor_status is FlorStatus.LEY and calls(state, 1) == {"tengo_flor", "pass_flor"}
    state, _ = act(state, (1, "tengo_flor"))
    # Settled now, before any second card: the best flor (seat 1's, 38 against 31) wins
    # the envite con ley; trick 1's winner leads on.
    assert state.phase is Phase.PLAY and state.flor_result == (1, 3 + 2)
    assert state.turn == 0 and len(state.hands[0]) == 2
    state, events = play_out(state)
    assert points(events)[0] == (1, 5, "flor_envite")


# ---------------------------------------------------------------- pido flor (001 L48)

NO_FLOR = "4e 5o 12b"


def answered(events: list[Any]) -> list[tuple[int, bool]]:
    return [(e.team, e.holds) for e in events if isinstance(e, FlorAnswered)]


def test_ve_18_team_on_20_calls_truco_opponents_may_ask_for_flor() -> None:
    """VE-18: a team on 20 calls truco; any opponent may ask for flor before answering, and
    the engine says truthfully whether the callers hold one."""
    # Seat 1 (team 1, on 20) calls truco; his partner, El Pie, still to play, has a flor.
    hands = {0: WEAK, 1: NO_FLOR, 2: "4b 5c 6e", 3: FLOR}
    state, _ = act(ve(hands, n=4, scores=(5, 20)), (0, "play", "4o"), (1, "truco"))
    assert "pedir_flor" in calls(state, 0) and "pedir_flor" in calls(state, 2)
    assert "pedir_flor" not in calls(state, 1) | calls(state, 3)  # not the callers
    state, events = act(state, (2, "pedir_flor"))
    assert answered(events) == [(1, True)]
    assert 3 in state.flor_announced  # a flor he may still sing is sung by the answer
    assert "pedir_flor" not in calls(state, 0) | calls(state, 2)  # once a hand
    assert {"quiero", "no_quiero", "retruco"} <= calls(state, 2)  # the answer goes on
    # Declining now gives the callers their flor and the truco point: the game.
    state, events = act(state, (0, "no_quiero"))
    assert points(events) == [(1, 3, "flor"), (1, 1, "truco_declined")]
    assert any(isinstance(e, GameEnded) for e in events)
    # No flor: the answer says so, and the hand goes on as before.
    state, _ = act(ve({0: WEAK, 1: NO_FLOR}, scores=(0, 20)), (0, "play", "4o"), (1, "truco"))
    state, events = act(state, (0, "pedir_flor"))
    assert answered(events) == [(1, False)] and state.flor_announced == ()
    state, events = play_out(act(state, (0, "quiero"))[0])
    assert withheld(events) == []


def test_pedir_flor_a_flor_already_lost_is_told_but_stays_lost() -> None:
    """The caller held a flor and called truco without singing it: lost (V-F10). The answer
    tells the truth, and the truco point he would win by a no quiero is withheld."""
    state, _ = act(ve({0: WEAK, 1: FLOR}, scores=(0, 20)), (0, "play", "4o"), (1, "truco"))
    state, events = act(state, (0, "pedir_flor"))
    assert answered(events) == [(1, True)] and state.flor_announced == ()
    state, events = act(state, (0, "no_quiero"))
    assert withheld(events) == [(1, 1, "truco_declined", "V-F10")] and points(events) == []


def test_pedir_flor_on_a_raise_and_at_target_12() -> None:
    # Target 12: the team on 8 (target - 4) may be asked.
    rules = {"target": 12}
    state, _ = act(ve({0: NO_FLOR, 1: WEAK}, scores=(8, 0), **rules), (0, "truco"))
    assert "pedir_flor" in calls(state, 1)
    # A raise ("quiero y retruco") from the team on 8, after a truco from the other team.
    state, _ = act(ve({0: WEAK, 1: NO_FLOR}, scores=(3, 8), **rules), (0, "truco"))
    assert "pedir_flor" not in calls(state, 1)  # the callers are on 3
    state, _ = act(state, (1, "retruco"))
    assert "pedir_flor" in calls(state, 0)


def test_pedir_flor_not_at_19_nor_after_a_declared_flor_nor_automatic() -> None:
    for scores in ((0, 19), (0, 21)):
        state, _ = act(ve({0: WEAK, 1: NO_FLOR}, scores=scores), (0, "play", "4o"), (1, "truco"))
        assert "pedir_flor" not in calls(state, 0)
    # The callers already sang their flor.
    state, _ = act(ve({0: WEAK, 1: FLOR}, scores=(0, 20)), (0, "play", "4o"), (1, "flor"),
                   (1, "truco"))
    assert "pedir_flor" not in calls(state, 0)
    # Nobody of the callers may still sing one: the raiser played his first card plainly.
    state, _ = act(ve({0: WEAK, 1: NO_FLOR}, scores=(20, 0)), (0, "play", "4o"), (1, "truco"),
                   (0, "retruco"))
    assert state.truco_pending and "pedir_flor" not in calls(state, 1)
    # After trick 1 the flores are settled: none can be sung any more.
    hands = {0: WEAK, 1: "4b 5c 6e", 2: "7o 6b 3c", 3: "1e 5o 12b"}
    state, _ = act(ve(hands, n=4, scores=(0, 20)), (0, "play", "4o"), (1, "play", "4b"),
                   (2, "play", "7o"), (3, "play", "1e"), (3, "truco"))
    assert "quiero" in calls(state, 0) and "pedir_flor" not in calls(state, 0) | calls(state, 2)
    # Automatic mode: the flores are known first, so there is nothing to ask.
    state = ve({0: WEAK, 1: NO_FLOR}, scores=(0, 20), flor_declaration="automatic")
    state, _ = act(state, (0, "play", "4o"), (1, "truco"))
    assert state.truco_pending and "pedir_flor" not in calls(state, 0)


def test_bot_asks_for_flor_then_answers_the_truco() -> None:
    from engine.bots.bot import choose_action

    rng = random.Random(3)
    hands = {0: WEAK, 1: NO_FLOR, 2: "4b 5c 6e", 3: FLOR}
    state, _ = act(ve(hands, n=4, scores=(5, 20)), (0, "play", "4o"), (1, "truco"))
    chosen = choose_action(view(state, 2), state.rules, rng, strict=True)
    assert chosen == Action(2, Call.PEDIR_FLOR)
    state, _ = act(state, (2, "pedir_flor"))
    # The callers' flor is sung: a no quiero would hand them the game, so the bot plays.
    for seed in range(10):
        chosen = choose_action(view(state, 2), state.rules, random.Random(seed), strict=True)
        assert chosen is not None and chosen.call in (Call.QUIERO, Call.RETRUCO)


# ---------------------------------------------------------------- La Reservada


def test_VR4_el_pie_keeps_la_reservada_quiet() -> None:
    state, _ = act(ve({0: WEAK, 1: RESERVADA}), (0, "play", "4o"), (1, "play", "3o"))
    state, events = play_out(state)
    assert points(events) == [(1, 4, "reservada"), (1, 1, "truco")]
    assert any(isinstance(e, CardsShown) and e.seat == 1 for e in events)


def test_VR5_quiet_reservada_not_el_pie_only_without_an_opposing_flor() -> None:
    state, events = play_out(ve({0: RESERVADA, 1: WEAK}))
    assert points(events) == [(0, 4, "reservada"), (0, 1, "truco")]  # truco counts (V-R5)
    state, events = play_out(ve({0: RESERVADA, 1: "4e 5e 6e"}))  # a (hidden) opposing flor
    assert withheld(events)[0] == (0, 4, "reservada", "V-R5")
    assert (0, 1, "truco") in points(events)


def test_VR6_quiet_reservada_against_a_declared_flor() -> None:
    state, _ = act(ve({0: RESERVADA, 1: FLOR}), (0, "play", "3o"), (1, "flor"))
    state, events = play_out(state)
    assert (1, 3, "flor") in points(events)
    assert withheld(events)[0] == (0, 4, "reservada", "V-R6")
    assert (0, 1, "truco") in points(events)  # he keeps the truco aspect


def test_VR9_two_envites_the_reservada_team_wins_only_the_larger() -> None:
    hands = {0: "7o 6o 1b", 1: "4e 5c 12b", 2: "4b 5o 6e", 3: RESERVADA}
    # Envite sin ley (2) accepted by El Pie's quiet Reservada (59 wins it); then his partner
    # plays a ley and bets con ley; declined, it pays 1: only the larger (2) counts.
    state, _ = act(ve(hands, n=4), (0, "envido"), (3, "quiero"), (0, "declare_envido"),
                   (1, "son_buenas"), (3, "declare_envido"), (2, "son_buenas"),
                   (0, "play", "7o"), (1, "a_ley"), (1, "envido"), (0, "sin_ley_no_quiero"))
    state, events = play_out(state)
    assert (1, 1, "con_ley_declined", "V-R9") in withheld(events)
    assert (1, 2, "envido") in points(events) and (1, 4, "reservada") in points(events)


# ---------------------------------------------------------------- property


def _declared(events: list[Any]) -> set[int]:
    return {e.seat for e in events if isinstance(e, Acted)
            and e.call in ("flor", "tengo_flor", "con_ley_quiero")}


@settings(max_examples=40, deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(n=st.sampled_from([2, 4]), seed=st.integers(0, 2**32))
def test_no_flor_points_for_a_team_that_never_declared(n: int, seed: int) -> None:
    """Random a-ley matches: flor points only go to a team with a declared flor (or to a
    quiet La Reservada), and the scores move exactly as the PointsScored events say."""
    rules = get_ruleset("venezolano", target=12)
    rng = random.Random(seed)
    state, log = new_match(rules, n, rng)
    hand: list[Any] = list(log)
    for _ in range(3000):
        if state.match_over:
            break
        before = state.scores
        state, events = advance(state, rng.choice(all_legal_actions(state)), rng)
        dealt = [i for i, e in enumerate(events) if isinstance(e, HandDealt)]
        hand += events[: dealt[0]] if dealt else events
        if not any(isinstance(e, GameEnded) for e in events):
            delta = [0, 0]
            for e in events:
                if isinstance(e, PointsScored):
                    delta[e.team] += e.points
            assert state.scores == (before[0] + delta[0], before[1] + delta[1])
        if dealt:
            _check_hand(hand, n)
            hand = events[dealt[0]:]
    assert state.match_over


def _check_hand(events: list[Any], n: int) -> None:
    deal = next(e for e in events if isinstance(e, HandDealt))
    declared = _declared(events)
    for e in events:
        if not isinstance(e, PointsScored):
            continue
        if e.reason in ("flor", "flor_envite", "flor_envite_declined"):
            assert any(s % 2 == e.team for s in declared), e
        if e.reason == "reservada":
            assert any(s % 2 == e.team and is_reservada(deal.hands[s], deal.face_up)
                       for s in range(n)), e


# ---------------------------------------------------------------- the bot


def test_bot_answers_an_envite_con_ley_by_its_flor() -> None:
    from engine.bots.bot import choose_action

    rng = random.Random(1)
    for hand, answer in ((FLOR, "con_ley_quiero"), ("4e 5o 6b", "sin_ley_no_quiero")):
        state, _ = act(ve({0: WEAK, 1: hand}), (0, "a_ley"), (0, "envido"))
        chosen = choose_action(view(state, 1), state.rules, rng, strict=True)
        assert chosen is not None and chosen.call.value == answer


def test_bots_never_lose_their_own_flor() -> None:
    from engine.bots.bot import choose_action

    rules = get_ruleset("venezolano", target=12)
    said: set[str] = set()
    for n in (2, 4):
        for game in range(12):
            rng = random.Random(game)
            state, _ = new_match(rules, n, rng)
            while not state.match_over:
                action = next(a for s in range(n) if legal_actions(state, s)
                              and (a := choose_action(view(state, s), rules, rng, strict=True)))
                state, events = advance(state, action, rng)
                said |= {e.call for e in events if isinstance(e, Acted)}
                assert not [e for e in events if isinstance(e, PointsWithheld)
                            and e.rule in ("V-F1", "V-F2", "V-F9", "V-F10")]
    assert {"flor", "a_ley", "tengo_flor", "pass_flor"} <= said
