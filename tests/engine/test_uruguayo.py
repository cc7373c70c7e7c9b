"""Uruguayan truco (docs/RULES.md section 2): worked examples UY-01..UY-07 by ID, the muestra
ranking for every possible face-up card, and the 3-player game of 2.12.2."""

from __future__ import annotations

import pytest
from engine.testing import E, N, act, points, scenario

from engine import (
    Acted,
    Call,
    GameEnded,
    HandDealt,
    envido_value,
    flor_value,
    get_ruleset,
    legal_actions,
    parse_cards,
    project_event,
    trick_strength,
    view,
)
from engine.core.cards import SPANISH_DECK, parse_card
from engine.variants.uruguayo import is_pieza, pieza_value
from engine.rules.scoring import ARGENTINE_STRENGTH
from engine.core.state import Phase

UY = get_ruleset("uruguayo")
UY_NO_FLOR = get_ruleset("uruguayo", flor=False)


def c(text: str):  # type: ignore[no-untyped-def]
    return parse_card(text, "spanish")


def s(text: str, face_up: str) -> int:
    return trick_strength(c(text), UY, c(face_up))


def test_UY01_pieza_values() -> None:
    up = c("3c")
    assert [pieza_value(c(t), up) for t in ("2c", "4c", "5c", "11c", "10c")] == [10, 9, 8, 7, 7]
    assert pieza_value(c("12c"), up) == 0  # no substitution: an ordinary 12


def test_UY02_top_order_with_copas_muestra() -> None:
    up = "3c"
    order = ["2c", "4c", "5c", "11c", "10c", "1e", "1b", "7e", "7o", "3e", "2e"]
    values = [s(t, up) for t in order]
    assert values == sorted(values, reverse=True) and len(set(values)) == len(values)
    assert s("3e", up) == s("3b", up) == s("3o", up)  # the 3s, equal
    assert s("2e", up) == s("2b", up) == s("2o", up)  # the non-copas 2s, equal
    assert s("2o", up) > s("1o", up) > s("12e", up)  # "and so on" as in Argentina


def test_UY03_face_up_4_of_oros_makes_the_12_the_second_card() -> None:
    up = "4o"
    everything = sorted((c2 for c2 in SPANISH_DECK if c2 != c(up)),
                        key=lambda x: -s(str(x), up))
    assert [str(x) for x in everything[:2]] == ["2o", "12o"]
    assert is_pieza(c("12o"), c(up)) and pieza_value(c("12o"), c(up)) == 9
    # Wild for envido: 12 of oros + 3 + 6 of other suits = 20 + 9 + 6.
    assert envido_value(parse_cards("12o 3e 6b"), UY, c(up)) == 35


def test_UY04_pieza_four_with_a_3_and_a_6() -> None:
    assert envido_value(parse_cards("4c 3e 6o"), UY, c("1c")) == 35


def test_UY05_flor_with_piezas() -> None:
    up = c("1c")
    # two of one suit plus a pieza
    assert flor_value(parse_cards("5e 6e 4c"), UY, up) == 20 + 5 + 6 + 9
    # two piezas and anything
    assert flor_value(parse_cards("2c 11c 3o"), UY, up) == 20 + 10 + 7 + 3
    # three piezas: the highest flor, 47 (OP-UY-2)
    assert flor_value(parse_cards("2c 4c 5c"), UY, up) == 47
    # one pieza and two suits: no flor
    assert flor_value(parse_cards("2c 6e 3o"), UY, up) is None
    # natural flor
    assert flor_value(parse_cards("1e 7e 3e"), UY, up) == 31
    # a 12 of the muestra suit with a non-pieza face-up card is ordinary
    assert flor_value(parse_cards("12c 6e 3o"), UY, up) is None


def test_UY06_three_players_a_partners_flor_is_credited_to_both() -> None:
    # Seat 2 deals: seat 0 is the mano (alone, four cards), seats 1 and 2 are partners.
    state, _ = scenario({0: "4e 6b 1o 7c", 1: "5o 6o 7o"}, n=3, dealer=2,
                        scores=(0, 0, 0), variant="uruguayo", face_up="3e")
    assert state.phase is Phase.DISCARD and state.team_of == (0, 1, 1)
    assert legal_actions(state, 1) == []
    state, ev = act(state, (0, "discard", "7c"))
    # The discard is hidden from the others.
    acted = [e for e in ev if isinstance(e, Acted)][0]
    assert project_event(acted, 1) == Acted(0, "discard") and project_event(acted, 0) == acted
    assert state.phase is Phase.FLOR and state.hands[0] == parse_cards("4e 6b 1o")
    state, ev = act(state, (1, "flor"))
    assert points(ev) == [(1, 3, "flor")]
    assert state.scores == (0, 3, 3)
    assert view(state, 0).scores == (0, 3, 3)
    assert view(state, 0).score_holders == ((0,), (1,), (2,))


def test_UY07_muestra_3_and_6_are_ordinary() -> None:
    up = "1c"
    assert s("3c", up) == s("3e", up) == s("3o", up)
    assert s("6c", up) == s("6b", up)
    assert not is_pieza(c("3c"), c(up)) and not is_pieza(c("6c"), c(up))
    # the muestra ace and 7 are ordinary too (a mata stays a mata)
    assert s("1e", "4e") == ARGENTINE_STRENGTH[c("1e").code]
    assert s("7c", "4c") == s("7b", "4c")


def _expected_piezas(up) -> list[str]:  # type: ignore[no-untyped-def]
    """The piezas high to low, written out independently of engine.muestra."""
    suit = up.suit.value
    ranks = [2, 4, 5, 11, 10]
    return [f"{12 if r == up.rank else r}{suit}" for r in ranks]


@pytest.mark.parametrize("up", SPANISH_DECK, ids=str)
def test_muestra_ranking_for_every_face_up_card(up) -> None:  # type: ignore[no-untyped-def]
    in_play = [x for x in SPANISH_DECK if x != up]
    ranked = sorted(in_play, key=lambda x: -trick_strength(x, UY, up))
    piezas = _expected_piezas(up)
    assert [str(x) for x in ranked[:5]] == piezas
    # the five piezas are all different and above everything else
    top = [trick_strength(c(p), UY, up) for p in piezas]
    assert len(set(top)) == 5 and min(top) > trick_strength(ranked[5], UY, up)
    # every other card keeps its Argentine strength (so the matas come next, in order)
    for x in ranked[5:]:
        assert trick_strength(x, UY, up) == ARGENTINE_STRENGTH[x.code]
    matas = [m for m in ("1e", "1b", "7e", "7o") if m != str(up)]
    assert [str(x) for x in ranked[5 : 5 + len(matas)]] == matas
    # piezas' envido values 10 9 8 7 7, wild for envido: any pieza pairs with any card
    assert [pieza_value(c(p), up) for p in piezas] == [10, 9, 8, 7, 7]
    other = next(x for x in in_play if x.suit is not up.suit and x.rank == 6)
    assert envido_value((c(piezas[0]), other, c("12" + other.suit.value)), UY, up) >= 20 + 10 + 6
    # the muestra 12 is a pieza exactly when the face-up card is a pieza rank
    twelve = c(f"12{up.suit.value}")
    assert is_pieza(twelve, up) == (up.rank in (2, 4, 5, 11, 10))


def test_every_hand_with_a_pieza_has_a_two_card_envido() -> None:
    up = c("7o")
    pieza = c("5o")
    for a in SPANISH_DECK:
        for b in SPANISH_DECK:
            if len({a, b, pieza, up}) < 4 or a.code > b.code:
                continue
            assert envido_value((pieza, a, b), UY_NO_FLOR, up) >= 20 + 8


def test_OP_UY3_two_piezas_without_flor_and_OP_UY10_pieza_against_a_pair() -> None:
    up = c("1c")
    assert envido_value(parse_cards("2c 4c 3o"), UY_NO_FLOR, up) == 39
    # 7e 6e pair = 33, but pieza 5 (8) + the 7 = 35
    assert envido_value(parse_cards("5c 7e 6e"), UY_NO_FLOR, up) == 35


def test_a_pieza_beats_the_ancho_de_espadas_in_play() -> None:
    state, _ = scenario({E: "11c 4e 5b", N: "1e 6o 7c"}, n=2, dealer=N, variant="uruguayo",
                        face_up="3c")
    # E is seat 0 (mano with dealer 1); the caballo of the muestra beats the 1 of espadas.
    state, ev = act(state, (E, "play", "11c"), (N, "play", "1e"))
    assert state.trick_results == (0,)
    assert view(state, 0).face_up == c("3c")


def test_envido_with_a_pieza_is_declared_and_proved() -> None:
    state, _ = scenario({E: "2c 4e 6b", N: "7e 6e 1o"}, n=2, dealer=N, variant="uruguayo",
                        face_up="3c")
    state, ev = act(state, (E, "envido"), (N, "quiero"), (E, "declare_envido"))
    assert [e.value for e in ev if isinstance(e, Acted) and e.call == "declare_envido"] == [36]
    # North's 33 cannot beat 36: only "son buenas".
    assert [a.call for a in legal_actions(state, N)] == [Call.SON_BUENAS]
    state, ev = act(state, (N, "son_buenas"))
    assert points(ev) == [(0, 2, "envido")]
    assert state.shown == ((E, parse_cards("2c 6b")),)


def test_a_pieza_with_a_suited_pair_starts_the_flor_round() -> None:
    state, _ = scenario({E: "5c 6e 7e"}, n=4, variant="uruguayo", face_up="1c")
    assert state.phase is Phase.FLOR and state.flor_holders == (E,)
    state, ev = act(state, (E, "flor"))
    assert points(ev) == [(0, 3, "flor")]


@pytest.mark.parametrize(
    ("scores", "final", "won"),
    [((28, 29, 27), (28, 30, 28), (0, 1, 0)),  # only the partner who reached 30 wins
     ((28, 29, 29), (28, 30, 30), (0, 1, 1))],  # both reach it together: both win
)
def test_three_players_the_first_player_to_the_target_wins(scores, final, won) -> None:  # type: ignore[no-untyped-def]
    state, _ = scenario({}, n=3, dealer=2, scores=scores, variant="uruguayo")
    assert len(state.hands[0]) == 4 and [len(h) for h in state.hands[1:]] == [3, 3]
    state, _ = act(state, (0, "discard", str(state.hands[0][3])))
    state, ev = act(state, (0, "mazo"))  # the partners score 1 each
    assert points(ev) == [(1, 1, "mazo")]
    ended = [e for e in ev if isinstance(e, GameEnded)]
    assert ended and ended[0].scores == final and ended[0].games_won == won


def test_three_player_deal_gives_the_next_mano_four_cards() -> None:
    import random

    from engine import advance, new_match

    rng = random.Random(3)
    state, log = new_match(UY, 3, rng)
    manos = []
    for _ in range(3):
        manos.append(state.mano)
        assert len(state.hands[state.mano]) == 4
        assert state.team_of == tuple(0 if x == state.mano else 1 for x in range(3))
        dealt = [e for e in log if isinstance(e, HandDealt)][-1]
        seen = project_event(dealt, (state.mano + 1) % 3)
        assert seen.hands[state.mano] is None
        state, _ = advance(state, legal_actions(state, state.mano)[0], rng)  # discard
        while state.phase is Phase.FLOR:  # settle any flor first
            state, _ = advance(state, legal_actions(state, view(state, None).awaiting[0])[0], rng)
        mazo = [a for a in legal_actions(state, state.mano) if a.call is Call.MAZO]
        state, log = advance(state, mazo[0], rng)
    # the deal moves on one seat each hand, so each seat is the lone mano in turn
    assert sorted(manos) == [0, 1, 2]
