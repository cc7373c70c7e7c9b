"""Venezuelan truco (docs/RULES.md section 4): the worked examples of 5.4 as named tests, the
truco and envite ladders as tables, and the rules of 4.6, 4.8 and 4.12.1.

The vira is 4c unless a test says otherwise: perico 11c, perica 10c. With 2 players seat 0
is El Mano and seat 1 (the dealer) El Pie; with 4, seats 0 and 2 are one team.
"""

from __future__ import annotations

from typing import Any

import pytest
from engine.testing import act, illegal, points

from engine import (
    Action,
    Call,
    GameEnded,
    State,
    envido_value,
    flor_value,
    get_ruleset,
    legal_actions,
    parse_cards,
    trick_strength,
    variant_catalog,
    view,
)
from engine.rules.envido import legal_declare
from engine.core.state import FlorStatus, Phase
from engine.testing import scenario

VIRA = "4c"
RULES = get_ruleset("venezolano")
# These tests describe the engine-announced flor (and the envite scored as it is settled):
# the option flor_declaration="automatic". The players' a ley is in test_venezolano_ley.py.
AUTO = {"flor_declaration": "automatic"}


def ve(hands: dict[int, str], n: int = 2, vira: str = VIRA, **kw: Any) -> State:
    state, _ = scenario(hands, n=n, variant="venezolano", face_up=vira, **AUTO, **kw)
    return state


def card(text: str) -> Any:
    return parse_cards(text)[0]


def declare_all(state: State) -> tuple[State, list[Any]]:
    """Declare envite values: each declarer declares if he can beat, else son buenas."""
    events: list[Any] = []
    for _ in range(8):
        for seat in range(state.n):
            acts = legal_declare(state, seat)
            if acts:
                state, more = act(state, (seat, acts[-1].call.value))
                events += more
    return state, events


def play_out(state: State) -> tuple[State, list[Any]]:
    """Each player in turn plays his first card until the hand ends."""
    events: list[Any] = []
    while state.phase is Phase.PLAY and state.turn >= 0:
        seat = state.turn
        state, more = act(state, (seat, "play", str(state.hands[seat][0])))
        events += more
    return state, events


# ---------------------------------------------------------------- cards (4.2-4.4)


def test_perico_and_perica_follow_the_vira() -> None:
    from engine.variants.venezolano.cards import pericos

    assert pericos(card("4c")) == (card("11c"), card("10c"))
    assert pericos(card("11o")) == (card("12o"), card("10o"))  # the rey replaces the caballo
    assert pericos(card("10b")) == (card("11b"), card("12b"))  # ... or the sota
    assert view(ve({}), 0).special_cards == (card("11c"), card("10c"))
    spec = next(v for v in variant_catalog() if v.name == "venezolano")
    assert spec.implemented and spec.option("perico_rule").default == "vira_11_10"


def test_VE01_absolute_envite_values() -> None:
    vira = card(VIRA)
    single = {"11c": 30, "10c": 29, "7e": 7, "6o": 6, "5b": 5, "4e": 4, "3o": 3, "2b": 2,
              "1e": 1, "1c": 1, "10e": 0, "11o": 0, "12c": 0}
    for text, value in single.items():
        assert envido_value(parse_cards(text), RULES, vira) == value, text


def test_VE02_perico_links_with_any_card_without_20() -> None:
    vira = card(VIRA)
    assert envido_value(parse_cards("11c 7e 12o"), RULES, vira) == 37
    assert envido_value(parse_cards("10c 7e 6b"), RULES, vira) == 36
    assert envido_value(parse_cards("11c 10c 7e"), RULES, vira) == 59  # La Reservada
    assert envido_value(parse_cards("7e 6e 1b"), RULES, vira) == 33  # as in Argentina
    assert envido_value(parse_cards("7e 6b 1o"), RULES, vira) == 7  # OP-VE-4
    assert envido_value(parse_cards("7e 6b 1o"), RULES, vira) == 7
    # A vira-suit 11 is the perico, worth 30 with its suit mate, not 20 + 0 + 5.
    assert envido_value(parse_cards("11c 5c 1o"), RULES, vira) == 35


def test_trick_ranking_of_4_3() -> None:
    vira = card(VIRA)
    order = ["11c", "10c", "1e", "1b", "7e", "7o", "3c", "2o", "1o", "12b", "11e", "10o",
             "7c", "6e", "5b", "4o"]
    values = [trick_strength(card(c), RULES, vira) for c in order]
    assert values == sorted(values, reverse=True) and len(set(values)) == len(values)
    assert trick_strength(card("1o"), RULES, vira) == trick_strength(card("1c"), RULES, vira)
    assert trick_strength(card("7c"), RULES, vira) == trick_strength(card("7b"), RULES, vira)


def test_flor_values() -> None:
    vira = card(VIRA)
    assert flor_value(parse_cards("7e 6e 5e"), RULES, vira) == 38
    assert flor_value(parse_cards("11c 7c 6c"), RULES, vira) == 43  # perico + the rest
    assert flor_value(parse_cards("11c 10c 3o"), RULES, vira) == 59  # La Reservada
    assert flor_value(parse_cards("11c 7e 6e"), RULES, vira) is None  # not a wild card
    assert flor_value(parse_cards("7e 6e 5e"), get_ruleset("venezolano", flor=False), vira) is None


# ---------------------------------------------------------------- envite ladder (4.7.2)

# Seat 1 holds 33 and wins every accepted envite; seat 0 (El Mano) opens. Scores 3-10:
# la falta is 24 - 10 = 14, hasta igualar 10 - 3 = 7.
ENVITE_HANDS = {0: "4e 5o 12b", 1: "7b 6b 1o"}
F = 14
# (id, calls alternating from seat 0, accepted stake, declined pays)
ENVITE_TABLE = [
    ("envido", [("envido",)], 2, 1),
    ("envido dos puntos: quiero y envido", [("envido",), ("envido",)], 4, 2),
    ("quiero y 3 piedras", [("envido",), ("piedras", 3)], 5, 2),
    ("envido 5 puntos", [("envido_puntos", 5)], 5, 1),
    ("envido 5 puntos, quiero y 2 piedras", [("envido_puntos", 5), ("piedras", 2)], 7, 5),
    ("envido, envido, 1 piedra", [("envido",), ("envido",), ("piedras", 1)], 5, 4),
    ("envido, 2 piedras, 3 piedras", [("envido",), ("piedras", 2), ("piedras", 3)], 7, 4),
    ("la falta", [("falta_envido",)], F, 1),
    ("envido, quiero y la falta", [("envido",), ("falta_envido",)], F, 2),
    ("envido 6 puntos, la falta", [("envido_puntos", 6), ("falta_envido",)], F, 6),
    ("hasta igualar", [("hasta_igualar",)], 7, 1),
    ("hasta igualar, 1 piedra", [("hasta_igualar",), ("piedras", 1)], 8, 7),
]


def _envite(calls: list[tuple[Any, ...]], answer: str, **kw: Any) -> list[tuple[int, int, str]]:
    state = ve(ENVITE_HANDS, scores=(3, 10), **kw)
    seat = 0
    for call in calls:
        state, _ = act(state, (seat, *call))
        seat = 1 - seat
    state, events = act(state, (seat, answer))
    state, more = declare_all(state)
    return points(events + more)


@pytest.mark.parametrize("name, calls, accepted, declined", ENVITE_TABLE)
def test_envite_ladder_accepted(name: str, calls: list[Any], accepted: int, declined: int) -> None:
    assert _envite(calls, "quiero") == [(1, accepted, "envido")]


@pytest.mark.parametrize("name, calls, accepted, declined", ENVITE_TABLE)
def test_envite_ladder_declined(name: str, calls: list[Any], accepted: int, declined: int) -> None:
    bettor = (len(calls) - 1) % 2
    assert _envite(calls, "no_quiero") == [(bettor, declined, "envido_declined")]


def test_VE03_envido_2_or_1() -> None:
    assert _envite([("envido",)], "quiero") == [(1, 2, "envido")]
    assert _envite([("envido",)], "no_quiero") == [(0, 1, "envido_declined")]


def test_VE04_quiero_y_envido_4_or_2() -> None:
    assert _envite([("envido",), ("envido",)], "quiero") == [(1, 4, "envido")]
    assert _envite([("envido",), ("envido",)], "no_quiero") == [(1, 2, "envido_declined")]


def test_quiero_y_envido_only_answers_a_plain_envido() -> None:
    # OP-VE-9: not after another "quiero y envido", nor after "envido N puntos".
    state = ve(ENVITE_HANDS)
    state, _ = act(state, (0, "envido"), (1, "envido"))
    assert Action(0, Call.ENVIDO) not in legal_actions(state, 0)
    state = ve(ENVITE_HANDS)
    state, _ = act(state, (0, "envido_puntos", 3))
    assert Action(1, Call.ENVIDO) not in legal_actions(state, 1)
    # after la falta only quiero or no quiero
    state, _ = act(state, (1, "falta_envido"))
    assert {a.call for a in legal_actions(state, 0)} == {Call.QUIERO, Call.NO_QUIERO}


def test_VE05_envido_n_puntos_even_above_what_the_leader_needs() -> None:
    state = ve(ENVITE_HANDS, scores=(20, 3))  # the leader needs 4
    state, events = act(state, (0, "envido_puntos", 15), (1, "quiero"))
    state, more = declare_all(state)
    assert points(events + more) == [(1, 15, "envido")]
    assert state.scores == (20, 18)


def test_VE06_las_que_pintan_and_hasta_igualar_are_at_least_2() -> None:
    # las que pintan with an ace: the card is played, the envite is worth 2
    state = ve({0: "1b 5o 12e", 1: "7b 6b 1o"})
    state, _ = act(state, (0, "las_que_pintan", "1b"))
    assert state.current == ((0, card("1b")),) and view(state, 1).envido_stake == 2
    state, events = act(state, (1, "quiero"))
    state, more = declare_all(state)
    assert points(events + more) == [(1, 2, "envido")]
    # with a 7 it is worth 7; a figure is not allowed by default, worth 2 as an option
    state = ve({0: "7e 5o 12e", 1: "7b 6b 1o"})
    assert Action(0, Call.LAS_QUE_PINTAN, card("12e")) not in legal_actions(state, 0)
    state, _ = act(state, (0, "las_que_pintan", "7e"))
    assert view(state, 0).envido_stake == 7
    state = ve({0: "7e 5o 12e", 1: "7b 6b 1o"}, las_que_pintan_figure="two")
    state, _ = act(state, (0, "las_que_pintan", "12e"))
    assert view(state, 0).envido_stake == 2
    # hasta igualar at 5-4 is worth 1, so 2
    state = ve(ENVITE_HANDS, scores=(5, 4))
    state, _ = act(state, (0, "hasta_igualar"))
    assert view(state, 1).envido_stake == 2
    # level scores: not allowed by default (OP-VE-7), worth 2 as an option
    state = ve(ENVITE_HANDS, scores=(4, 4))
    assert Action(0, Call.HASTA_IGUALAR) not in legal_actions(state, 0)
    state = ve(ENVITE_HANDS, scores=(4, 4), hasta_igualar_level="two")
    state, _ = act(state, (0, "hasta_igualar"))
    assert view(state, 1).envido_stake == 2


def test_VE07_la_falta_at_0_0_wins_the_match() -> None:
    state = ve(ENVITE_HANDS)
    state, events = act(state, (0, "falta_envido"), (1, "quiero"))
    state, more = declare_all(state)
    assert points(events + more) == [(1, 24, "envido")]
    assert any(isinstance(e, GameEnded) for e in more) and state.match_over


def test_envite_timing_first_card_turn_and_priority_over_truco() -> None:
    hands = {0: "4e 5o 12b", 1: "7b 6b 1o"}
    # not on someone else's turn
    assert "own turn" in illegal(ve(hands), 1, "envido")
    # after one's first card: no more envite
    state, _ = act(ve(hands), (0, "play", "4e"))
    assert Call.ENVIDO not in {a.call for a in legal_actions(state, 0)}
    assert Call.ENVIDO in {a.call for a in legal_actions(state, 1)}
    # the truco caller may not envidar afterwards; the opponent facing it may, first
    state, _ = act(ve(hands), (0, "truco"))
    state, _ = act(state, (1, "envido"))
    assert state.truco_pending == 1
    state, _ = act(state, (0, "no_quiero"))  # the envite is settled first
    assert state.scores == (0, 1) and state.truco_pending == 1
    state, _ = act(state, (1, "quiero"))
    assert Call.ENVIDO not in {a.call for a in legal_actions(state, 0)}


def test_accepting_a_truco_keeps_the_envite_and_partner_of_the_caller_may_envidar() -> None:
    state = ve({0: "4e 5o 12b", 1: "7b 6b 1o", 2: "4b 5c 12e", 3: "6e 2o 3c"}, n=4)
    state, _ = act(state, (0, "truco"), (3, "quiero"), (0, "play", "4e"))
    assert Call.ENVIDO in {a.call for a in legal_actions(state, 1)}  # accepted, still may
    state, _ = act(state, (1, "play", "7b"))
    assert Call.ENVIDO in {a.call for a in legal_actions(state, 2)}  # the caller's partner


def test_VE21_an_envite_is_answered_before_anyone_plays() -> None:
    # Stricter than "before the bettor's second card" (OP-VE-26): nothing else may happen.
    state, _ = act(ve(ENVITE_HANDS), (0, "envido"))
    assert "answer the envido first" in illegal(state, 1, "play", "7b")


# ---------------------------------------------------------------- truco ladder (4.7.1)

TRUCO_HANDS = {0: "1e 1b 7e", 1: "4o 5c 6b"}  # seat 0 wins every trick
TRUCO_TABLE = [
    # (calls alternating from seat 0, final answer, scoring team, points)
    (["truco"], "no_quiero", 0, 1),
    (["truco"], "quiero", 0, 3),
    (["truco", "retruco"], "no_quiero", 1, 3),
    (["truco", "retruco"], "quiero", 0, 6),
    (["truco", "retruco", "vale_nueve"], "no_quiero", 0, 6),
    (["truco", "retruco", "vale_nueve"], "quiero", 0, 9),
    (["truco", "retruco", "vale_nueve", "vale_el_juego"], "no_quiero", 1, 9),
    (["truco", "retruco", "vale_nueve", "vale_el_juego"], "quiero", 0, 24 - 5),
]


@pytest.mark.parametrize("calls, answer, team, value", TRUCO_TABLE)
def test_VE08_truco_ladder(calls: list[str], answer: str, team: int, value: int) -> None:
    state = ve(TRUCO_HANDS, scores=(5, 7))
    seat = 0
    for call in calls:
        state, _ = act(state, (seat, call))
        seat = 1 - seat
    state, events = act(state, (seat, answer))
    state, more = play_out(state)
    truco = [p for p in points(events + more) if p[2].startswith("truco")]
    assert [(t, v) for t, v, _ in truco] == [(team, value)]
    if calls[-1] == "vale_el_juego" and answer == "quiero":
        assert state.match_over and state.winner == 0


def test_no_bet_is_worth_one_and_the_caller_may_not_raise_his_own_call() -> None:
    state, events = play_out(ve(TRUCO_HANDS))
    assert points(events) == [(0, 1, "truco")]  # OP-VE-12
    state = ve({0: "1e 1b 7e", 1: "4o 5c 6b", 2: "4b 5b 12e", 3: "6e 2o 3c"}, n=4)
    state, _ = act(state, (0, "truco"))
    assert Call.RETRUCO not in {a.call for a in legal_actions(state, 0) + legal_actions(state, 2)}
    assert Action(1, Call.RETRUCO) in legal_actions(state, 1)  # "quiero y retruco"
    state, _ = act(state, (3, "quiero"))
    assert "accepted last" in illegal(state, 0, "retruco")
    # the accepting side may raise on its own later turn (option late_raises)...
    state, _ = act(state, (0, "play", "1e"))
    assert Action(1, Call.RETRUCO) in legal_actions(state, 1)
    assert "own turn" in illegal(state, 3, "retruco")
    # ... or only together with its quiero
    state = ve({0: "1e 1b 7e", 1: "4o 5c 6b", 2: "4b 5b 12e", 3: "6e 2o 3c"}, n=4,
               late_raises=False)
    state, _ = act(state, (0, "truco"), (3, "quiero"), (0, "play", "1e"))
    assert Action(1, Call.RETRUCO) not in legal_actions(state, 1)


def test_truco_only_on_ones_own_turn() -> None:
    assert "own turn" in illegal(ve(TRUCO_HANDS), 1, "truco")


def test_perico_played_by_a_trick_winner_voids_raises() -> None:
    state = ve({0: "1e 11c 4o", 1: "3b 5o 6o"})
    state, _ = act(state, (0, "play", "1e"), (1, "play", "3b"))  # seat 0 won trick 1
    assert Action(0, Call.TRUCO) in legal_actions(state, 0)
    state, _ = act(state, (0, "play", "11c"))
    assert view(state, 1).truco_pending is None
    assert "perico" in illegal(state, 1, "truco")
    # the perico played by someone who has not won a trick locks nothing
    state = ve({0: "4e 5o 6b", 1: "11c 3b 2o"})
    state, _ = act(state, (0, "play", "4e"), (1, "play", "11c"))
    assert not view(state, 0).raises_barred


# ---------------------------------------------------------------- ties (4.6)


def test_first_trick_tied_the_second_decides_and_el_mano_leads() -> None:
    state = ve({0: "3e 4o 5e", 1: "3b 7o 6e"})
    state, _ = act(state, (0, "play", "3e"), (1, "play", "3b"))
    assert state.trick_results == (-1,) and state.turn == 0  # El Mano leads after a tie
    state, events = act(state, (0, "play", "4o"), (1, "play", "7o"))
    assert points(events) == [(1, 1, "truco")]


def test_VE19_second_tie_decided_by_the_tied_players_with_cartas_pasadas() -> None:
    # 2 players: both tricks tied; seat 0 keeps a 2 (above his 4): it is a carta pasada.
    state = ve({0: "3e 4o 2e", 1: "3b 4e 4b"})
    state, _ = act(state, (0, "play", "3e"), (1, "play", "3b"), (0, "play", "4o"),
                   (1, "play", "4e"))
    state, events = act(state, (0, "play", "2e"), (1, "play", "4b"))
    assert view(state, 0).passed_cards == ((3, 0),)
    assert points(events) == [(1, 1, "truco")]
    # 4 players: the second trick is tied between seats 0 and 1 only; they alone play on.
    state = ve({0: "3e 2e 4o", 1: "3b 2b 5c", 2: "5e 6o 4e", 3: "6b 7c 4b"}, n=4)
    for seat, c in ((0, "3e"), (1, "3b"), (2, "5e"), (3, "6b")):
        state, _ = act(state, (seat, "play", c))
    for seat, c in ((0, "2e"), (1, "2b"), (2, "6o"), (3, "7c")):
        state, _ = act(state, (seat, "play", c))
    assert state.trick_results == (-1, -1)
    assert view(state, 0).trick_players == (0, 1) and state.turn == 0
    assert "not your turn" in illegal(state, 2, "play", "4e")
    state, events = act(state, (0, "play", "4o"), (1, "play", "5c"))
    assert points(events) == [(1, 1, "truco")] and view(state, 0).passed_cards == ()


def test_three_ties_go_to_el_mano() -> None:
    state = ve({0: "3e 2e 4o", 1: "3b 2b 4e"})
    state, events = play_out(state)
    assert points(events) == [(0, 1, "truco")]


def test_passing_all_three_cards() -> None:
    # 2 players: the opponent wins the hand; the cards stay hidden (OP-VE-23, OP-VE-24)
    state, events = act(ve(TRUCO_HANDS), (0, "pasar"))
    assert points(events) == [(1, 1, "pasar")]
    # 4 players: the partner plays on alone; the tricks have three cards
    state = ve({0: "4o 5c 6b", 1: "1e 1b 7e", 2: "3e 2e 5o", 3: "6e 7c 4b"}, n=4)
    state, _ = act(state, (0, "pasar"))
    assert view(state, 1).passed_seats == (0,) and state.turn == 1
    state, _ = act(state, (1, "play", "1e"), (2, "play", "3e"), (3, "play", "6e"))
    assert len(state.tricks[0]) == 3 and state.turn == 1
    # a card may not be passed once one has played
    assert Action(1, Call.PASAR) not in legal_actions(state, 1)


# ---------------------------------------------------------------- flor (4.9)


def test_VE09_flor_3_and_two_partners_6() -> None:
    state = ve({0: "7e 6e 5e", 1: "4o 5c 6b"})
    assert state.phase is Phase.FLOR and legal_actions(state, 0) == [Action(0, Call.FLOR)]
    state, events = act(state, (0, "flor"))
    assert points(events) == [(0, 3, "flor")]
    assert state.phase is Phase.PLAY and Call.ENVIDO not in {a.call for a in legal_actions(state, 0)}
    state = ve({0: "7e 6e 5e", 1: "4o 5c 6b", 2: "1b 2b 3b", 3: "6o 7c 4b"}, n=4)
    state, events = act(state, (0, "flor"), (2, "flor"))
    assert points(events) == [(0, 6, "flor")]


def test_VE10_both_shrink_the_larger_flor_scores_3() -> None:
    state = ve({0: "1b 2b 3b", 1: "7e 6e 5e"})
    state, _ = act(state, (0, "flor"), (1, "flor"))
    assert state.flor_status is FlorStatus.ROUND_TWO
    state, events = act(state, (0, "con_flor_me_achico"), (1, "con_flor_me_achico"))
    assert points(events) == [(1, 3, "flor")]
    # La Reservada still collects its envite point
    state = ve({0: "7e 6e 5e", 1: "11c 10c 3o"})
    state, events = act(state, (0, "flor"), (1, "flor"), (0, "con_flor_me_achico"),
                        (1, "con_flor_me_achico"))
    assert points(events) == [(1, 4, "flor")]


def test_VE11_envite_between_flores() -> None:
    hands = {0: "1b 2b 3b", 1: "7e 6e 5e"}
    state, _ = act(ve(hands), (0, "flor"), (1, "flor"), (0, "envido"))
    state, events = act(state, (1, "no_quiero"))
    assert points(events) == [(0, 4, "flor_envite_declined")]  # 3 + 1
    # accepted: the best flor collects its flor and the stake (OP-VE-18)
    state, _ = act(ve(hands), (0, "flor"), (1, "flor"), (0, "envido"), (1, "piedras", 3))
    state, events = act(state, (0, "quiero"))
    assert points(events) == [(1, 3 + 5, "flor_envite")]


def test_VE12_la_reservada_without_envite_scores_at_least_5() -> None:
    state = ve({0: "11c 10c 3o", 1: "1e 2b 5c"})
    state, events = act(state, (0, "flor"))
    assert points(events) == [(0, 4, "flor")]  # 3 flor + 1 envite point
    state, more = act(state, (0, "play", "11c"), (1, "play", "1e"), (0, "play", "10c"),
                      (1, "play", "2b"))
    assert points(more) == [(0, 1, "truco")]


def test_VE13_la_reservada_with_partners_flor_scores_6() -> None:
    state = ve({0: "11c 10c 3o", 1: "1e 2b 5c", 2: "7e 6e 5e", 3: "6o 7c 4b"}, n=4)
    state, events = act(state, (0, "flor"), (2, "flor"))
    assert points(events) == [(0, 6, "flor")]


def test_VE18_flores_are_known_before_any_truco() -> None:
    # Pedir flor (001 L48) is unnecessary: flores are compulsory and declared first.
    state = ve({0: "4o 5c 6b", 1: "7e 6e 5e"}, scores=(20, 3))
    assert state.phase is Phase.FLOR
    assert legal_actions(state, 0) == [] and legal_actions(state, 1) == [Action(1, Call.FLOR)]


# ---------------------------------------------------------------- estar cantando (4.12.1)


def _cantando(hands: dict[int, str], opp: int = 10, **kw: Any) -> tuple[State, list[Any]]:
    """Team 1 (seat 1, El Pie) is cantando on 23; team 0 has `opp`."""
    return scenario(hands, n=2, variant="venezolano", face_up=VIRA, scores=(opp, 23), **AUTO, **kw)


def test_cantando_not_beaten_wins_the_game() -> None:
    state, events = _cantando({0: "4e 5o 12b", 1: "7b 6b 1o"})
    assert points(events) == [(1, 1, "cantando_envite")]
    assert state.match_over and state.winner == 1


def test_cantando_equal_value_goes_to_el_mano() -> None:
    state, events = _cantando({0: "7e 6e 1b", 1: "7b 6b 1o"})
    assert points(events) == [(0, 1, "cantando_envite")]  # "domina de mano"
    assert view(state, 1).truco_pending == "truco" and view(state, 1).cantando == 1


@pytest.mark.parametrize("answer, total", [("no_quiero", 5), ("quiero", 7)])
def test_VE14_cantando_flor_beaten_by_a_larger_flor(answer: str, total: int) -> None:
    state, events = _cantando({0: "1e 7e 6e", 1: "4b 5b 2b"}, flor=True)
    assert points(events) == [(0, 4, "cantando_flor")]
    state, more = act(state, (1, answer))
    state, rest = play_out(state)
    assert state.scores[0] - 10 == total


@pytest.mark.parametrize("answer, total", [("no_quiero", 4), ("quiero", 6)])
def test_VE15_opponent_flor_cantando_without(answer: str, total: int) -> None:
    state, events = _cantando({0: "1e 7e 6e", 1: "4b 5o 6c"})
    assert points(events) == [(0, 3, "cantando_flor")]
    state, _ = act(state, (1, answer))
    state, _ = play_out(state)
    assert state.scores[0] - 10 == total


@pytest.mark.parametrize("cantando_hand", ["4b 5b 2b", "4b 5o 6e"])
@pytest.mark.parametrize("answer, total", [("no_quiero", 5), ("quiero", 7)])
def test_VE16_opponent_priva_with_la_reservada(cantando_hand: str, answer: str, total: int) -> None:
    state, events = _cantando({0: "11c 10c 1e", 1: cantando_hand})
    assert points(events) == [(0, 4, "cantando_flor")]
    state, _ = act(state, (1, answer))
    state, _ = play_out(state)
    assert state.scores[0] - 10 == total


def test_VE17_cantando_must_play_the_truco_against_22_or_a_flor_on_20() -> None:
    state, _ = _cantando({0: "7e 6o 1b", 1: "4b 5o 6c"}, opp=21)
    assert Action(1, Call.NO_QUIERO) in legal_actions(state, 1)
    state, _ = _cantando({0: "7e 6o 1b", 1: "4b 5o 6c"}, opp=22)
    assert state.scores == (23, 23) and view(state, 1).truco_forced
    assert Action(1, Call.NO_QUIERO) not in legal_actions(state, 1)
    state, _ = _cantando({0: "1e 7e 6e", 1: "4b 5o 6c"}, opp=20)
    assert Action(1, Call.NO_QUIERO) not in legal_actions(state, 1)
    assert "cannot be declined" in illegal(state, 1, "no_quiero")
    state, _ = _cantando({0: "7e 6o 1b", 1: "4b 5o 6c"}, opp=20)  # no flor on 20
    assert Action(1, Call.NO_QUIERO) in legal_actions(state, 1)


def test_both_teams_cantando_play_a_normal_hand() -> None:
    state, events = scenario({0: "4e 5o 12b", 1: "7b 6b 1o"}, n=2, variant="venezolano",
                             face_up=VIRA, scores=(23, 23), **AUTO)
    assert points(events) == [] and view(state, 0).cantando is None and state.truco_pending == 0


# ---------------------------------------------------------------- game (4.11)


def test_VE22_target_24_or_12() -> None:
    assert get_ruleset("venezolano").target == 24
    assert get_ruleset("venezolano", target=12).target == 12
    with pytest.raises(ValueError):
        get_ruleset("venezolano", target=30)
