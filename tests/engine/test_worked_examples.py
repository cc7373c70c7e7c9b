"""docs/RULES.md section 5.1: every engine-relevant Argentine worked example, by its ID."""

from __future__ import annotations

import pytest
from engine.testing import E, N, S, W, act, illegal, points, scenario

from engine import Call, GameEnded, HandEnded, TrickEnded, legal_actions, malas_buenas
from engine.core.state import Phase


def test_AR01_malas_buenas() -> None:
    assert malas_buenas(12) == "12 malas"
    assert malas_buenas(18) == "3 buenas"
    assert (malas_buenas(20), malas_buenas(7)) == ("5 buenas", "7 malas")
    for score, text in [(29, "14 buenas"), (17, "2 buenas"), (23, "8 buenas"), (25, "10 buenas"), (30, "15 buenas")]:
        assert malas_buenas(score) == text


# AR-02, AR-03, AR-05, AR-06, AR-27, AR-32: see test_cards_scoring.py (card-level values).

FLOR_N, FLOR_S, FLOR_E, FLOR_W = "4o 10o 12o", "2b 3b 10b", "1c 3c 5c", "5e 6e 7e"


def test_AR04_three_flores_nothing_more_said() -> None:
    # AR-03's hands: N 24, S 25, E 29; East's flor wins 3 flores x 3 for E-W.
    state, _ = scenario({N: FLOR_N, S: FLOR_S, E: FLOR_E})
    state, ev = act(state, (E, "flor"), (N, "flor"), (S, "flor"),
                    (E, "pass_flor"), (N, "pass_flor"), (S, "pass_flor"))
    assert points(ev) == [(0, 9, "flor")]


def test_AR07_flor_row1_only_one_team() -> None:
    state, _ = scenario({N: FLOR_N, S: FLOR_S})
    assert [a.call for a in legal_actions(state, N)] == [Call.FLOR]  # no betting possible
    state, ev = act(state, (N, "flor"), (S, "flor"))
    assert points(ev) == [(1, 6, "flor")]
    assert state.phase is Phase.PLAY


def test_AR08_flor_row2_east_gives_up() -> None:
    state, _ = scenario({E: FLOR_E, N: FLOR_N})
    state, ev = act(state, (E, "flor"), (N, "contraflor"), (E, "con_flor_me_achico"))
    assert points(ev) == [(1, 4, "flor_achico")]


def test_AR09_flor_row3_west_gives_up_east_silent() -> None:
    state, _ = scenario({E: FLOR_E, N: FLOR_N, W: FLOR_W})
    state, ev = act(state, (E, "flor"), (N, "flor"), (W, "contraflor"),
                    (N, "contraflor_al_resto"), (W, "con_flor_me_achico"))
    assert points(ev) == [(1, 4, "flor_achico")]
    assert not any(a.call.value.startswith("con_flor") for a in legal_actions(state, E))


def test_AR10_flor_row4_south_gives_up_for_the_team() -> None:
    state, _ = scenario({E: FLOR_E, N: FLOR_N, S: FLOR_S})
    state, ev = act(state, (E, "flor"), (N, "flor"), (S, "con_flor_me_achico"))
    assert points(ev) == [(0, 4, "flor_achico")]


def test_AR11_flor_row5_partner_cancels_early_concession() -> None:
    state, _ = scenario({E: FLOR_E, N: FLOR_N, S: FLOR_S})
    state, ev = act(state, (E, "flor"), (N, "con_flor_me_achico"), (S, "flor"))
    assert points(ev) == []  # the concession is cancelled, betting goes on
    after = state
    state, ev = act(after, (E, "pass_flor"), (N, "pass_flor"), (S, "pass_flor"))
    assert points(ev) == [(0, 9, "flor")]  # East's 29 is the best flor
    # North may instead concede again for both ...
    _, ev = act(after, (E, "pass_flor"), (N, "con_flor_me_achico"))
    assert points(ev) == [(0, 4, "flor_achico")]
    # ... or raise to contraflor al resto.
    assert Call.CONTRAFLOR_AL_RESTO in [a.call for a in legal_actions(act(after, (E, "pass_flor"))[0], N)]


def test_AR12_flor_row6_west_leaves_the_answer_to_east() -> None:
    state, _ = scenario({E: FLOR_E, N: FLOR_N, W: FLOR_W}, scores=(5, 10))
    state, ev = act(state, (E, "flor"), (N, "contraflor_al_resto"), (W, "flor"),
                    (E, "con_flor_quiero"))
    # West's 38 is best: 9 for three flores + (30 - 10) the leader needed.
    assert points(ev) == [(0, 29, "contraflor_al_resto")]


@pytest.mark.parametrize("leader_better, team, after", [(True, 0, 36), (False, 1, 19)])
def test_AR13_contraflor_al_resto_does_not_always_win(leader_better: bool, team: int, after: int) -> None:
    good, bad = "5e 6e 7e", "10c 11c 1c"
    state, _ = scenario({0: good if leader_better else bad, 1: bad if leader_better else good},
                        n=2, scores=(23, 6))
    state, ev = act(state, (0, "flor"), (1, "contraflor_al_resto"), (0, "con_flor_quiero"))
    assert points(ev) == [(team, 13, "contraflor_al_resto")]
    assert state.scores[team] == after
    assert any(isinstance(e, GameEnded) for e in ev) == leader_better
    if not leader_better:
        assert malas_buenas(state.scores[1]) == "4 buenas"


def test_AR14_pido_flor_is_unnecessary_because_flor_is_forced() -> None:
    state, _ = scenario({S: FLOR_S})
    assert state.phase is Phase.FLOR
    assert [a.call for a in legal_actions(state, S)] == [Call.FLOR]
    for seat in (E, N, W):
        assert legal_actions(state, seat) == []


# Hands for envido examples: E-W hold 27 (E) and 26 (W); N-S 25 (N) and 31 (S).
ENV = {E: "7o 12o 4b", N: "5c 12c 1e", W: "6b 12b 3o", S: "6e 5e 2c"}


def _declare_all(state):  # type: ignore[no-untyped-def]
    from engine.rules.envido import legal_declare

    events = []
    for _ in range(8):
        for seat in range(state.n):
            acts = legal_declare(state, seat)
            if acts:
                choice = acts[-1]  # declare when allowed, else son buenas
                state, more = act(state, (seat, choice.call.value))
                events += more
    return state, events


def test_AR15_envido_real_real_accepted_is_8() -> None:
    state, _ = scenario(ENV)
    state, _ = act(state, (E, "envido"), (N, "real_envido"), (W, "real_envido"), (S, "quiero"))
    state, ev = _declare_all(state)
    assert points(ev) == [(1, 8, "envido")]  # South's 31 is best


def test_AR16_envido_real_real_declined_is_5() -> None:
    state, _ = scenario(ENV)
    _, ev = act(state, (E, "envido"), (N, "real_envido"), (W, "real_envido"), (S, "no_quiero"))
    assert points(ev) == [(0, 5, "envido_declined")]


def test_AR17_falta_envido_near_the_end() -> None:
    state, _ = scenario(ENV, scores=(17, 29))  # E-W 17, N-S 29 (14 buenas)
    state, _ = act(state, (E, "real_envido"), (N, "falta_envido"))
    _, ev = act(state, (W, "no_quiero"))
    assert points(ev) == [(1, 3, "envido_declined")]
    assert any(isinstance(e, GameEnded) and e.winner_team == 1 for e in ev)
    accepted, _ = act(state, (W, "quiero"))
    _, ev = _declare_all(accepted)
    assert points(ev)[0] == (1, 1, "envido")  # f = 30 - 29


def test_AR18_quiero_then_envido_is_only_quiero() -> None:
    state, _ = scenario(ENV)
    state, _ = act(state, (E, "envido"), (N, "quiero"))
    assert "declared" in illegal(state, W, "envido")
    _, ev = _declare_all(state)
    assert points(ev) == [(1, 2, "envido")]


def test_AR19_declaring_in_mano_order_with_son_buenas() -> None:
    # Dealer East: order N, W, S, E = seats 0..3; N-S = team 0, W-E = team 1.
    hands = {0: "7e 1e 4o", 1: "6o 10o 4b", 2: "6b 5b 12c", 3: "7c 4c 11e"}
    state, _ = scenario(hands, dealer=3)
    state, _ = act(state, (0, "envido"), (1, "quiero"))
    assert [a.call for a in legal_actions(state, 0)] == [Call.DECLARE_ENVIDO]
    state, ev = act(state, (0, "declare_envido"))
    assert ev[0].value == 28
    assert [a.call for a in legal_actions(state, 1)] == [Call.SON_BUENAS]  # 26 cannot beat
    state, _ = act(state, (1, "son_buenas"))
    assert legal_actions(state, 2) == []  # South stays silent: partner holds the best
    state, ev = act(state, (3, "declare_envido"))
    assert ev[0].value == 31
    state, ev = act(state, (2, "declare_envido"))  # South's 31 beats East's 31 (nearer mano)
    assert ev[0].value == 31
    assert points(ev) == [(0, 2, "envido")]
    assert state.envido_declarations if False else state.envido_decl == ((0, 28), (1, None), (3, 31), (2, 31))


def test_AR20_tied_top_cards_across_teams_is_parda_and_leader_leads_again() -> None:
    state, _ = scenario({E: "12e 4c 5o", N: "2e 4e 5b", W: "2o 6c 7c", S: "2b 6e 4o"},
                        flor=False)
    state, ev = act(state, (E, "play", "12e"), (N, "play", "2e"), (W, "play", "2o"), (S, "play", "2b"))
    trick = [e for e in ev if isinstance(e, TrickEnded)][0]
    assert trick.winner_team is None and trick.next_leader == E
    assert state.turn == E


@pytest.mark.parametrize(
    "calls, answer, team, value",
    [
        ((), None, None, 1),
        (("truco",), "quiero", None, 2),
        (("truco",), "no_quiero", 0, 1),
        (("truco", "quiero", "retruco"), "quiero", None, 3),
        (("truco", "quiero", "retruco"), "no_quiero", 1, 2),
        (("truco", "quiero", "retruco", "quiero", "vale_cuatro"), "quiero", None, 4),
        (("truco", "quiero", "retruco", "quiero", "vale_cuatro"), "no_quiero", 0, 3),
    ],
)
def test_AR21_truco_ladder_values(calls: tuple[str, ...], answer: str | None, team: int | None, value: int) -> None:
    """Table-driven: seat 0 and seat 1 alternate; accepted values 2/3/4, declined 1/2/3."""
    state, _ = scenario({0: "1e 1b 7e", 1: "4c 5c 6o"}, n=2, flor=False)
    seat = 0
    for call in calls:
        state, _ = act(state, (seat, call))
        if call == "quiero":
            continue
        seat = 1 - seat
    if answer is not None:
        state, ev = act(state, (seat, answer))
        if answer == "no_quiero":
            assert points(ev) == [(team, value, "truco_declined")]
            return
    # Seat 0 holds the three best cards and wins the hand at the accepted value.
    while not state.needs_deal:
        state, ev = act(state, (state.turn, "play", str(state.hands[state.turn][0])))
    assert points(ev) == [(0, value, "truco")]


def test_AR22_a_raise_answering_a_truco_is_quiero_retruco() -> None:
    """The engine's RETRUCO said to a pending truco is "Quiero, retruco": it accepts the truco
    and raises (docs/RULES.md 1.7.1 step 2). The bare "Retruco" of AR-22 is a spoken form that has
    no action: the reserved words refuse it (tests/server/test_words.py)."""
    state, _ = scenario({}, n=2, flor=False)
    state, _ = act(state, (0, "truco"), (1, "retruco"))
    assert (state.truco_level, state.truco_pending, state.truco_by) == (1, 2, 1)
    assert "waiting" in illegal(state, 1, "vale_cuatro")  # his own raise waits for its answer


def test_AR23_only_the_accepting_team_may_raise() -> None:
    state, _ = scenario({}, flor=False)
    state, _ = act(state, (N, "truco"), (E, "quiero"))
    assert "right to raise" in illegal(state, N, "retruco")
    state, _ = act(state, (W, "retruco"))
    up, _ = act(state, (N, "quiero"), (N, "vale_cuatro"))
    _, ev = act(up, (E, "no_quiero"))
    assert points(ev) == [(1, 3, "truco_declined")]
    up, _ = act(up, (E, "quiero"))
    assert up.truco_level == 3


def test_AR24_flor_cancels_envido_and_truco_waits() -> None:
    # The engine settles a forced flor first, so the cancelled envido bets never happen;
    # the outcome is the example's: N-S score 3, no envido, N-S must answer East's truco.
    state, _ = scenario({S: FLOR_S})
    state, ev = act(state, (S, "flor"))
    assert points(ev) == [(1, 3, "flor")]
    state, _ = act(state, (E, "truco"))
    assert "flor" in illegal(state, N, "falta_envido")
    assert {a.call for a in legal_actions(state, N)} >= {Call.QUIERO, Call.NO_QUIERO}


def test_AR25_no_quiero_to_retruco_scores_2_and_ends_the_hand() -> None:
    state, _ = scenario({}, flor=False)
    state, _ = act(state, (E, "truco"), (N, "quiero"), (N, "retruco"))
    state, ev = act(state, (W, "no_quiero"))
    assert points(ev) == [(1, 2, "truco_declined")]
    assert any(isinstance(e, HandEnded) for e in ev) and state.needs_deal


def test_AR26_quiero_to_no_bet_has_no_effect_and_no_quiero_declines() -> None:
    state, _ = scenario({}, flor=False)
    state, _ = act(state, (W, "envido"))
    illegal(state, W, "quiero")
    _, ev = act(state, (N, "no_quiero"))
    assert points(ev) == [(0, 1, "envido_declined")]


def test_AR29_six_players_redonda_only_from_25_and_game_ends_at_30() -> None:
    from engine.testing import act as _act  # noqa: F401
    from engine.core.hand import initial_state
    from engine import deal, get_ruleset
    import dataclasses
    import random

    rules = get_ruleset("argentino", flor=False)
    state = dataclasses.replace(initial_state(rules, 6, 5), next_pica=True, scores=(25, 3))
    state, ev = deal(state, random.Random(1))
    assert ev[0].deal_kind == "redonda"
    state2 = dataclasses.replace(initial_state(rules, 6, 5), next_pica=True, scores=(24, 3))
    state2, ev = deal(state2, random.Random(1))
    assert ev[0].deal_kind == "pica_pica"
    assert state2.players == (0, 3)
    # At 29 a declined envido in the first duel ends the game at once: no more duels.
    near = dataclasses.replace(state2, scores=(29, 3))
    near, ev = act(near, (0, "envido"), (3, "no_quiero"))
    assert any(isinstance(e, GameEnded) and e.winner_team == 0 for e in ev)
    assert near.needs_deal and near.scores == (30, 3)


def test_AR30_six_players_deal_18_cards() -> None:
    import random

    from engine import get_ruleset, new_match

    state, ev = new_match(get_ruleset("argentino"), 6, random.Random(3))
    dealt = [c for hand in state.dealt for c in hand]
    assert len(dealt) == 18 == len(set(dealt))


def test_AR33_reales() -> None:
    state, _ = scenario(ENV, reales=True)
    s2, _ = act(state, (E, "real_envido"), (N, "dos_reales_envido"))
    assert "dos_reales_envido" in [a.call.value for a in legal_actions(s2, W)]
    _, ev = act(s2, (W, "no_quiero"))
    assert points(ev) == [(1, 3, "envido_declined")]
    s3, _ = act(state, (E, "dos_reales_envido"))
    assert Call.REAL_ENVIDO not in [a.call for a in legal_actions(s3, N)]
    s3, _ = act(s3, (N, "tres_reales_envido"), (W, "quiero"))
    _, ev = _declare_all(s3)
    assert points(ev) == [(1, 15, "envido")]  # D08


def test_AR34_simultaneous_scoring_can_draw() -> None:
    hands = {0: "1e 1b 7e", 1: "6o 7o 4c"}
    state, _ = scenario(hands, n=2, scores=(29, 28), simultaneous=True, flor=False)
    state, _ = act(state, (1, "envido"), (0, "quiero"))
    state, ev = _declare_all(state)  # seat 1 has 33 and wins 2 envido points, deferred
    assert points(ev) == [] and state.scores == (29, 28)
    while not state.needs_deal:
        state, ev = act(state, (state.turn, "play", str(state.hands[state.turn][0])))
    assert state.scores == (30, 30)
    assert not any(isinstance(e, GameEnded) for e in ev)


def test_AR35_cfar_malas() -> None:
    state, _ = scenario({0: "5e 6e 7e", 1: "10c 11c 1c"}, n=2, scores=(10, 6), cfar_malas=True)
    _, ev = act(state, (0, "flor"), (1, "contraflor_al_resto"), (0, "con_flor_quiero"))
    assert points(ev) == [(0, 11, "contraflor_al_resto")]


def test_AR36_cfar_achico_all_flores() -> None:
    for option, expected in ((True, 6), (False, 4)):
        state, _ = scenario({N: FLOR_N, E: FLOR_E}, cfar_achico_all_flores=option)
        _, ev = act(state, (E, "flor"), (N, "contraflor"), (E, "contraflor_al_resto"),
                    (N, "con_flor_me_achico"))
        assert points(ev) == [(0, expected, "flor_achico")]


def test_AR37_falta_envido_at_zero_is_30() -> None:
    state, _ = scenario(ENV)
    state, _ = act(state, (E, "falta_envido"), (N, "quiero"))
    _, ev = _declare_all(state)
    assert points(ev)[0] == (1, 30, "envido")


def test_AR38_004_flor_values_one_flor_each() -> None:
    hands = {0: "5e 6e 7e", 1: "10c 11c 1c"}
    s, _ = scenario(hands, n=2)
    assert points(act(s, (0, "flor"), (1, "con_flor_me_achico"))[1]) == [(0, 4, "flor_achico")]
    assert points(act(s, (0, "flor"), (1, "contraflor"), (0, "con_flor_quiero"))[1]) == [(0, 6, "contraflor")]
    assert points(act(s, (0, "flor"), (1, "contraflor_al_resto"), (0, "con_flor_me_achico"))[1]) == [(1, 4, "flor_achico")]
    s, _ = scenario(hands, n=2, scores=(3, 12), cfar_wins_chico=True)
    s, ev = act(s, (0, "flor"), (1, "contraflor_al_resto"), (0, "con_flor_quiero"))
    assert s.scores[0] >= 30 and any(isinstance(e, GameEnded) for e in ev)


def test_AR39_flor_3_contraflor_6() -> None:
    s, _ = scenario({0: "5e 6e 7e"}, n=2)
    assert points(act(s, (0, "flor"))[1]) == [(0, 3, "flor")]


def test_AR41_match_of_one_or_two_chicos() -> None:
    import random

    from engine import advance, all_legal_actions, get_ruleset, new_match

    for games in (1, 2):
        rng = random.Random(games)
        state, _ = new_match(get_ruleset("argentino", match_games=games, target=15), 2, rng)
        ended = 0
        while not state.match_over:
            state, ev = advance(state, rng.choice(all_legal_actions(state)), rng)
            ended += sum(isinstance(e, GameEnded) for e in ev)
        assert max(state.games_won) == games and ended >= games
