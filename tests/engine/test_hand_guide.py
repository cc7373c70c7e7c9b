"""The view's hand guide (engine/hand_guide.py): special cards and the card ranking for a
given face-up card, how envido is counted, and what each pending bet is worth, checked
against what the engine really scores when the bet is then wanted or refused."""
from __future__ import annotations

import random
from typing import Any

import pytest
from engine.testing import E, N, S, W, act, points, scenario
from tests.engine.test_venezolano import ENVITE_HANDS, ENVITE_TABLE, declare_all, ve

from engine import Action, Call, HandEnded, State, advance, apply, legal_actions, new_match, view
from engine.core.errors import IllegalAction
from engine.core.game import refusal
from engine.variants.registry import get_ruleset
from engine.core.state import Phase


def texts(groups: Any) -> list[list[str]]:
    return [[str(c) for c in group] for group in groups]


def marks(state: State) -> list[tuple[str, str, int | None]]:
    return [(str(m.card), m.role, m.envido) for m in view(state, 0).card_marks]


# ---------------------------------------------------------------- cards


def test_uruguayan_ranking_and_piezas_for_a_pieza_muestra() -> None:
    # The muestra 4e is itself a pieza: the 12 of espadas takes its rank and value (OP-UY-4).
    state, _ = scenario({0: "1o 2o 3o"}, n=2, variant="uruguayo", face_up="4e")
    assert marks(state) == [("2e", "pieza", 10), ("12e", "pieza", 9), ("5e", "pieza", 8),
                            ("11e", "pieza", 7), ("10e", "pieza", 7)]
    ranking = texts(view(state, 0).ranking)
    assert ranking[:9] == [["2e"], ["12e"], ["5e"], ["11e"], ["10e"], ["1e"], ["1b"], ["7e"], ["7o"]]
    assert ranking[9] == ["3e", "3b", "3o", "3c"]
    assert ["12b", "12o", "12c"] in ranking  # the other 12s rank as in Argentina
    flat = [c for group in ranking for c in group]
    assert "4e" not in flat and len(flat) == 39  # the muestra is out of play


def test_uruguayan_ranking_for_a_plain_muestra() -> None:
    state, _ = scenario({0: "1o 2o 3o"}, n=2, variant="uruguayo", face_up="6b")
    assert [c for c, _, _ in marks(state)] == ["2b", "4b", "5b", "11b", "10b"]
    assert texts(view(state, 0).ranking)[:6] == [["2b"], ["4b"], ["5b"], ["11b"], ["10b"], ["1e"]]
    assert view(state, 0).count_rule == "uruguayan"


@pytest.mark.parametrize(("vira", "manilha"), [("7h", "Q"), ("3s", "7"), ("Jd", "K")])
def test_paulista_ranking_puts_the_four_manilhas_on_top(vira: str, manilha: str) -> None:
    state, _ = scenario({0: "Ac 2c 3c", 1: "Ah 2h 3h"}, n=2, variant="paulista", face_up=vira)
    expected = [manilha + suit for suit in "chsd"]
    assert [c for c, role, _ in marks(state)] == expected
    assert {role for _, role, _ in marks(state)} == {"manilha"}
    ranking = texts(view(state, 0).ranking)
    assert ranking[:4] == [[c] for c in expected]
    assert sorted(ranking[4]) == ["3c", "3d", "3h", "3s"] or vira.startswith("3")
    assert vira not in [c for group in ranking for c in group]
    assert view(state, 0).count_rule == "none" and view(state, 0).own_envido is None


def test_venezolano_perico_and_perica_head_the_ranking_with_their_envite_values() -> None:
    state = ve({0: "1o 2o 3o"}, vira="11c")  # the vira is the caballo: the rey is the perico
    assert marks(state) == [("12c", "perico", 30), ("10c", "perica", 29)]
    assert texts(view(state, 0).ranking)[:4] == [["12c"], ["10c"], ["1e"], ["1b"]]
    assert view(state, 0).count_rule == "venezolano"


def test_argentine_ranking_has_no_special_cards() -> None:
    state, _ = scenario({0: "7e 6e 1o"}, n=2, flor=False)
    v = view(state, 0)
    assert v.card_marks == () and texts(v.ranking)[:5] == [["1e"], ["1b"], ["7e"], ["7o"],
                                                           ["3e", "3b", "3o", "3c"]]
    assert v.count_rule == "argentine"
    assert (v.own_envido, [str(c) for c in v.own_envido_cards]) == (33, ["7e", "6e"])
    assert view(state, None).own_envido is None  # a spectator has no cards to count


def test_own_flor_and_uruguayan_envido_with_a_pieza() -> None:
    state, _ = scenario({0: "2b 7o 1c"}, n=2, variant="uruguayo", face_up="6b")
    v = view(state, 0)
    assert v.own_envido == 20 + 10 + 7 and {str(c) for c in v.own_envido_cards} == {"2b", "7o"}
    state, _ = scenario({0: "2b 4b 1c"}, n=2, variant="uruguayo", face_up="6b", flor=True)
    assert view(state, 0).own_flor == 20 + 10 + 9 + 1  # two piezas make a flor


# ---------------------------------------------------------------- scores


def test_malas_and_buenas_only_in_the_argentine_game_to_30() -> None:
    state, _ = scenario({}, n=2, scores=(1, 16), flor=False)
    assert view(state, 0).scores_text == ("1 mala", "1 buena") and view(state, 0).malas == 15
    state, _ = scenario({}, n=2, scores=(12, 29), flor=False)
    assert view(state, 0).scores_text == ("12 malas", "14 buenas")
    for variant, options in (("argentino", {"target": 15}), ("uruguayo", {}), ("paulista", {}),
                             ("venezolano", {})):
        state, _ = scenario({}, n=2, variant=variant, **options)
        v = view(state, 0)
        assert v.malas == 0 and v.scores_text == ("0", "0"), variant


# ---------------------------------------------------------------- bets worth, played out


def bet(state: State, kind: str) -> tuple[int | None, int | None, bool]:
    found = [b for b in view(state, 0).bets if b.kind == kind]
    assert len(found) == 1, view(state, 0).bets
    return found[0].wanted, found[0].refused, found[0].wins_game


AR_ENVIDO = [
    ([("envido",)], 2, 1),
    ([("envido",), ("envido",)], 4, 2),
    ([("envido",), ("real_envido",)], 5, 2),
    ([("real_envido",)], 3, 1),
    ([("envido",), ("real_envido",), ("falta_envido",)], 30 - 17, 5),
    ([("falta_envido",)], 30 - 17, 1),
]


@pytest.mark.parametrize(("calls", "wanted", "refused"), AR_ENVIDO)
def test_argentine_envido_worth_is_what_the_engine_scores(
        calls: list[tuple[str]], wanted: int, refused: int) -> None:
    state, _ = scenario({0: "7e 6e 1o", 1: "4c 5b 12o"}, n=2, scores=(10, 17), flor=False)
    seat = 0
    for call in calls:
        state, _ = act(state, (seat, *call))
        seat = 1 - seat
    assert bet(state, "envido") == (wanted, refused, False)
    assert [c for c in view(state, 1).bets[0].calls] == [c for (c,) in calls]
    _, declined = act(state, (seat, "no_quiero"))
    assert [p for _, p, why in points(declined) if why == "envido_declined"] == [refused]
    accepted, events = act(state, (seat, "quiero"))
    _, more = declare_all(accepted)
    assert [p for _, p, why in points(events + more) if why == "envido"] == [wanted]


@pytest.mark.parametrize("name, calls, accepted, declined", ENVITE_TABLE)
def test_venezuelan_envite_worth_is_what_the_engine_scores(
        name: str, calls: list[Any], accepted: int, declined: int) -> None:
    state = ve(ENVITE_HANDS, scores=(3, 10))
    seat = 0
    for call in calls:
        state, _ = act(state, (seat, *call))
        seat = 1 - seat
    wanted, refused, _ = bet(state, "envido")
    _, events = act(state, (seat, "no_quiero"))
    assert points(events) == [((len(calls) - 1) % 2, refused, "envido_declined")]
    state, events = act(state, (seat, "quiero"))
    state, more = declare_all(state)
    assert points(events + more) == [(1, wanted, "envido")]
    assert (wanted, refused) == (accepted, declined)


def _play_out(state: State) -> list[Any]:
    """Every player plays his first legal card until the hand ends."""
    events: list[Any] = []
    while state.phase is Phase.PLAY:
        seat = state.turn
        card = next(a for a in legal_actions(state, seat) if a.call is Call.PLAY)
        state, more = apply(state, card)
        events += more
    return events


TRUCO = [
    ("argentino", {"flor": False}, ["truco"], 2, 1),
    ("argentino", {"flor": False}, ["truco", "quiero", "retruco"], 3, 2),
    ("argentino", {"flor": False}, ["truco", "quiero", "retruco", "quiero", "vale_cuatro"], 4, 3),
    ("paulista", {}, ["truco"], 3, 1),
    ("paulista", {}, ["truco", "seis", "nueve"], 9, 6),
    ("paulista", {}, ["truco", "seis", "nueve", "doce"], 12, 9),
    ("venezolano", {"flor": False}, ["truco", "retruco"], 6, 3),
]
HANDS = {"argentino": {0: "7e 6e 1o", 1: "4c 5b 12o"}, "venezolano": {0: "7e 6e 1o", 1: "4c 5b 12o"},
         "paulista": {0: "Ac 2c 3c", 1: "Kh Qh 7h"}}  # no tied trick: the tricks decide


@pytest.mark.parametrize(("variant", "options", "calls", "wanted", "refused"), TRUCO)
def test_truco_worth_is_what_the_engine_scores(variant: str, options: dict[str, Any], calls: list[str],
                                               wanted: int, refused: int) -> None:
    kw: dict[str, Any] = dict(options)
    if variant != "argentino":
        kw["face_up"] = "4o" if variant == "venezolano" else "7d"
    if variant == "venezolano":
        kw["flor_declaration"] = "automatic"
    state, _ = scenario(HANDS[variant], n=2, variant=variant, **kw)
    seat = 0
    for call in calls:  # a raise after quiero comes from the team that accepted
        state, _ = act(state, (seat, call))
        seat = seat if call == "quiero" else 1 - seat
    assert bet(state, "truco") == (wanted, refused, False)
    _, events = act(state, (seat, "no_quiero"))
    assert [e.points for e in events if isinstance(e, HandEnded)] == [refused]
    state, _ = act(state, (seat, "quiero"))
    assert [e.points for e in _play_out(state) if isinstance(e, HandEnded)] == [wanted]


def test_vale_el_juego_is_worth_the_game() -> None:
    state = ve({0: "7e 6e 1o", 1: "4e 5b 12o"}, flor=False)
    state, _ = act(state, (0, "truco"), (1, "retruco"), (0, "vale_nueve"), (1, "vale_el_juego"))
    assert bet(state, "truco") == (None, 9, True)
    _, events = act(state, (0, "no_quiero"))
    assert [e.points for e in events if isinstance(e, HandEnded)] == [9]


@pytest.mark.parametrize(("raise_", "cfar_wins_chico"), [("contraflor", False),
                                                           ("contraflor_al_resto", False),
                                                           ("contraflor_al_resto", True)])
def test_contraflor_worth_is_what_the_engine_scores(raise_: str, cfar_wins_chico: bool) -> None:
    state, _ = scenario({0: "7e 6e 5e", 1: "1c 2c 3c"}, n=2, scores=(4, 9), flor=True,
                        cfar_wins_chico=cfar_wins_chico)
    state, _ = act(state, (0, "flor"), (1, raise_))
    wanted, refused, wins = bet(state, "flor")
    _, events = act(state, (0, "con_flor_me_achico"))
    assert [p for _, p, why in points(events)] == [refused]
    if wins:
        assert wanted is None and cfar_wins_chico  # the best flor wins the game: hidden
        return
    _, events = act(state, (0, "con_flor_quiero"))
    assert [p for _, p, why in points(events)] == [wanted]


def test_refusing_a_bet_in_random_games_pays_what_the_view_said() -> None:
    """Every variant: whenever the view shows a bet that may be refused, refusing it scores
    exactly the amount shown (the truco points at the hand's end, the envido at once)."""
    checked = 0
    for variant, n, options in (("argentino", 2, {}), ("argentino", 4, {}), ("uruguayo", 2, {}),
                                ("paulista", 4, {}), ("venezolano", 2, {"flor_declaration": "automatic"}),
                                ("venezolano", 4, {"flor": False})):
        rules = get_ruleset(variant, **options)
        for seed in range(6):
            rng = random.Random(seed)
            state, _ = new_match(rules, n, rng)
            for _ in range(60):
                if state.phase is Phase.MATCH_OVER:
                    break
                for worth in view(state, 0).bets[:1]:  # the one a no quiero answers now
                    if worth.kind == "flor" or worth.refused is None or rules.simultaneous:
                        continue
                    seat = next((s for s in range(n) if Action(s, Call.NO_QUIERO) in legal_actions(state, s)), None)
                    if seat is None:
                        continue  # answered later (a truco waits while envido values are said)
                    after, events = apply(state, Action(seat, Call.NO_QUIERO))
                    if after.variant_hand is not None:
                        continue  # an a-ley hand scores at its end, maybe withheld (test_venezolano_ley)
                    scored = [e.points for e in events if isinstance(e, HandEnded)] \
                        if worth.kind == "truco" else [p for _, p, _ in points(events)]
                    assert scored[:1] == [worth.refused], (variant, worth)
                    checked += 1
                legal = [a for s in range(n) for a in legal_actions(state, s)]
                state, _ = advance(state, rng.choice(legal), rng)
    assert checked > 20


# ---------------------------------------------------------------- refusals


def test_after_a_brazilian_parda_a_weaker_card_is_refused_with_the_real_reason() -> None:
    hands = {E: "3c 7c Kc", N: "3h Ah 7h", W: "As Ks 7s", S: "2d Ad 7d"}
    state, _ = scenario(hands, n=4, variant="paulista", face_up="Jd")  # the manilha is K
    state, _ = act(state, (E, "play", "3c"), (N, "play", "3h"), (W, "play", "7s"), (S, "play", "7d"))
    assert state.trick_results == (-1,)
    strongest = [a.card for a in legal_actions(state, E) if a.call is Call.PLAY]
    weaker = [c for c in state.hands[E] if c not in strongest]
    assert weaker
    with pytest.raises(IllegalAction) as refused:
        apply(state, Action(E, Call.PLAY, weaker[0]))
    assert refused.value.code == "highest_card"
    assert refusal(state, Action(E, Call.PLAY, weaker[0])).code == "highest_card"  # type: ignore[attr-defined]
    assert dict((str(c), code) for c, code in view(state, E).card_refusals) == \
        {str(c): "highest_card" for c in weaker}
    # The others wait for E: their cards say whose turn it is.
    assert {code for _, code in view(state, N).card_refusals} == {"not_your_turn"}


def test_common_refusals_carry_their_codes() -> None:
    state, _ = scenario({0: "7e 6e 1o", 1: "4c 5b 12o"}, n=2, flor=False)
    card = state.hands[1][0]
    assert refusal(state, Action(1, Call.PLAY, card)).code == "not_your_turn"  # type: ignore[attr-defined]
    state, _ = act(state, (0, "truco"))
    assert {code for _, code in view(state, 0).card_refusals} == {"truco_waiting"}
    assert {code for _, code in view(state, 1).card_refusals} == {"truco_answer"}
    with pytest.raises(IllegalAction) as refused:
        apply(state, Action(0, Call.RETRUCO))
    assert refused.value.code == "truco_waiting"
    calls = dict(view(state, 0).call_refusals)  # the keys a player reaches for, and why not
    assert calls["retruco"] == "truco_waiting" and calls["quiero"] == "no_bet"
    # Argentina: "Quiero, retruco" answers the truco in one breath (docs/RULES.md 1.7.1).
    assert dict(view(state, 1).call_refusals) == {}
    assert Action(1, Call.RETRUCO) in view(state, 1).legal
    state, _ = act(state, (1, "envido"))
    assert {code for _, code in view(state, 0).card_refusals} == {"envido_answer"}
    with pytest.raises(IllegalAction) as refused:
        apply(state, Action(0, Call.PLAY, state.hands[0][0]))
    assert refused.value.code == "envido_answer"
    state, _ = act(state, (0, "quiero"), (0, "declare_envido"), (1, "son_buenas"), (1, "quiero"),
                   (0, "play", "7e"), (1, "play", "4c"))
    assert dict(view(state, 0).call_refusals)["envido"] == "envido_done"
