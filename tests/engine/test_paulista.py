"""Brazilian truco paulista (docs/RULES.md section 3): worked examples BR-01..BR-12 by ID, the
manilha ranking for every possible face-up card of both decks, ladder, ties, eleven rules."""

from __future__ import annotations

import pytest
from engine.testing import E, N, S, W, act, illegal, points, scenario

from engine import (
    Call,
    GameEnded,
    HandDealt,
    HandEnded,
    event_from_wire,
    get_ruleset,
    legal_actions,
    parse_cards,
    project_event,
    trick_strength,
    view,
)
from engine.core.cards import FRENCH_DECK, FRENCH_DECK_40, card_from_wire, parse_card
from engine.core.state import DealKind

BR = get_ruleset("paulista")
BR40 = get_ruleset("paulista", deck="french40")


def f(text: str):  # type: ignore[no-untyped-def]
    return parse_card(text, "french")


def order(up: str, rules=BR) -> list[list[str]]:  # type: ignore[no-untyped-def]
    """Cards other than the vira, grouped by equal strength, high to low, as rank text."""
    vira = f(up)
    groups: dict[int, set[str]] = {}
    for card in rules.deck:
        if card != vira:
            groups.setdefault(trick_strength(card, rules, vira), set()).add(str(card))
    out = []
    for strength in sorted(groups, reverse=True):
        names = groups[strength]
        out.append(sorted(names) if len(names) == 1 else sorted({n[:-1] for n in names}))
    return out


@pytest.mark.parametrize(
    ("up", "expected"),
    [
        ("Qh", "Jc Jh Js Jd 3 2 A K Q 7"),  # BR-01
        ("3h", "7c 7h 7s 7d 3 2 A K J Q"),  # BR-02
        ("2h", "3c 3h 3s 3d 2 A K J Q 7"),  # BR-03
        ("Ah", "2c 2h 2s 2d 3 A K J Q 7"),  # derived rows of the 3.3 table
        ("Kh", "Ac Ah As Ad 3 2 K J Q 7"),
        ("Jh", "Kc Kh Ks Kd 3 2 A J Q 7"),
        ("7h", "Qc Qh Qs Qd 3 2 A K J 7"),
    ],
)
def test_BR01_BR02_BR03_manilha_orders(up: str, expected: str) -> None:
    got = [g[0] if len(g) == 1 else g[0] for g in order(up)]
    assert " ".join(got) == expected


def test_BR04_manilha_suits_clubs_hearts_spades_diamonds() -> None:
    for vira in FRENCH_DECK:
        manilhas = [c for c in FRENCH_DECK if trick_strength(c, BR, vira) > 7]
        assert [c.suit.name for c in sorted(manilhas, key=lambda c: -trick_strength(c, BR, vira))] \
            == ["CLUBS", "HEARTS", "SPADES", "DIAMONDS"]


def test_BR05_deck() -> None:
    assert len(BR.deck) == 28 and len(set(BR.deck)) == 28
    assert sorted({str(c)[:-1] for c in BR.deck}) == sorted("A K Q J 7 3 2".split())
    assert len(BR40.deck) == 40
    assert sorted({str(c)[:-1] for c in BR40.deck}) == sorted("A 2 3 4 5 6 7 Q J K".split())


NOMINAL_28 = "3 2 A K J Q 7".split()
NOMINAL_40 = "3 2 A K J Q 7 6 5 4".split()


@pytest.mark.parametrize(
    ("rules", "nominal", "vira"),
    [(BR, NOMINAL_28, v) for v in FRENCH_DECK] + [(BR40, NOMINAL_40, v) for v in FRENCH_DECK_40],
    ids=lambda x: str(x) if not isinstance(x, (list, type(BR))) else "",
)
def test_manilha_ranking_for_every_face_up_card(rules, nominal, vira) -> None:  # type: ignore[no-untyped-def]
    rank = str(vira)[:-1]
    manilha = nominal[nominal.index(rank) - 1]  # index -1 wraps: a 3 face up -> the lowest
    expected = [f"{manilha}{s}" for s in "chsd"] + [r for r in nominal if r != manilha]
    got = []
    for group in order(str(vira), rules):
        got.append(group[0])
    assert got == expected


def _br(hands: dict[int, str], n: int = 4, **kw):  # type: ignore[no-untyped-def]
    return scenario(hands, n=n, variant="paulista", face_up=kw.pop("face_up", "Qh"), **kw)


HANDS = {E: "3c Ac 7c", N: "3h Ah 7h", W: "3s As 7s", S: "3d Ad 7d"}


def test_BR06_ladder_values_and_view_names() -> None:
    state, _ = _br(HANDS)
    v = view(state, E)
    assert v.truco_ladder == ("truco", "seis", "nueve", "doce") and v.card_notation == "french"
    assert v.face_up == f("Qh") and v.scores_text == ("0", "0")
    state, _ = act(state, (E, "truco"), (N, "quiero"))
    assert view(state, E).truco_value == 3 and view(state, E).truco_level == 1
    # the accepting team holds the right; raises only on one's own turn
    assert Call.SEIS not in [a.call for a in legal_actions(state, E)]
    state, _ = act(state, (E, "play", "7c"))
    assert Call.SEIS in [a.call for a in legal_actions(state, N)]
    state, _ = act(state, (N, "seis"), (W, "quiero"))
    assert view(state, E).truco_value == 6
    state, _ = act(state, (N, "play", "3h"), (W, "nueve"))
    assert view(state, N).truco_pending == "nueve" and view(state, N).truco_pending_level == 3
    state, _ = act(state, (S, "quiero"), (W, "play", "7s"), (S, "play", "7d"))
    state, _ = act(state, (N, "doce"), (E, "quiero"))
    assert view(state, E).truco_value == 12


@pytest.mark.parametrize(
    ("calls", "declined_points"),
    [(("truco",), 1), (("truco", "seis"), 3), (("truco", "seis", "nueve"), 6),
     (("truco", "seis", "nueve", "doce"), 9)],
)
def test_BR07_BR08_declined_raises_pay_the_step_below(calls, declined_points) -> None:  # type: ignore[no-untyped-def]
    state, _ = _br(HANDS)
    # counter-raises answer the bet directly (no "quiero" first), alternating teams
    seats = [E, N, E, N]
    state, _ = act(state, *[(seats[i], call) for i, call in enumerate(calls)])
    raiser = seats[len(calls) - 1] % 2
    decliner = N if raiser == 0 else E
    state, ev = act(state, (decliner, "no_quiero"))
    assert points(ev) == [(raiser, declined_points, "truco_declined")]


def test_counter_raise_is_legal_only_as_the_next_step() -> None:
    state, _ = _br(HANDS)
    state, _ = act(state, (E, "truco"))
    calls = [a.call for a in legal_actions(state, W)]
    assert calls == []  # the caller's team waits
    calls = [a.call for a in legal_actions(state, S)]
    assert Call.SEIS in calls and Call.NUEVE not in calls and Call.ENVIDO not in calls
    assert "not a call of this game" in illegal(state, S, "retruco")


def test_no_envido_no_flor_no_mazo() -> None:
    state, _ = _br({E: "3c 2c Ac"})  # three clubs: no flor in Brazil
    assert state.phase.value == "play"
    calls = {a.call for s in range(4) for a in legal_actions(state, s)}
    assert calls <= {Call.PLAY, Call.TRUCO}


def test_BR09_eleven_rule_play_for_three() -> None:
    state, _ = _br(HANDS, scores=(11, 5))
    assert state.deal_kind is DealKind.ELEVEN and view(state, N).deal_kind == "eleven"
    # nobody plays before E-W decide; N-S have nothing to say
    assert legal_actions(state, N) == [] and legal_actions(state, S) == []
    assert [a.call for a in legal_actions(state, W)] == [Call.QUIERO, Call.NO_QUIERO]
    state, _ = act(state, (W, "quiero"))
    assert view(state, E).truco_value == 3
    state, ev = act(state, (E, "play", "3c"), (N, "play", "7h"), (W, "play", "As"),
                    (S, "play", "7d"), (E, "play", "Ac"), (N, "play", "Ah"), (W, "play", "3s"),
                    (S, "play", "Ad"))
    # nobody called truco: the points are the mão de onze's (docs/RULES.md 3.11)
    assert points(ev) == [(0, 3, "mao_de_onze")]
    assert [e for e in ev if isinstance(e, GameEnded)]


@pytest.mark.parametrize("scores, answer, want", [
    ((10, 4), "quiero", (12, 4)),  # 10 + six 6: a win, written 12 (not 16)
    ((11, 4), None, (12, 4)),  # the mão de onze: 11 + 3
])
def test_OP_BR_11_a_score_past_12_is_a_win_written_12(scores: tuple[int, int], answer: str | None,
                                                       want: tuple[int, int]) -> None:
    state, _ = _br(HANDS, scores=scores)
    if answer is None:
        state, _ = act(state, (W, "quiero"))
    else:
        state, _ = act(state, (E, "truco"), (N, "seis"), (E, answer))
    state, ev = act(state, (E, "play", "3c"), (N, "play", "7h"), (W, "play", "As"),
                    (S, "play", "7d"), (E, "play", "Ac"), (N, "play", "Ah"), (W, "play", "3s"),
                    (S, "play", "Ad"))
    scored = [e for e in ev if hasattr(e, "scores") and not isinstance(e, HandDealt)]
    assert scored and all(max(e.scores) <= 12 for e in scored)  # type: ignore[attr-defined]
    ended = [e for e in ev if isinstance(e, GameEnded)]
    assert ended and ended[0].scores == want and ended[0].winner_team == 0
    assert points(ev)[0][1] == (6 if answer else 3)  # the hand's points are told as they were


def test_BR09_eleven_rule_concede_one() -> None:
    state, _ = _br(HANDS, scores=(5, 11))
    state, ev = act(state, (S, "no_quiero"))
    assert points(ev) == [(0, 1, "eleven_declined")]
    assert state.needs_deal


def test_BR10_no_raising_at_eleven() -> None:
    state, _ = _br(HANDS, scores=(11, 5))
    state, _ = act(state, (E, "quiero"))
    for seat in range(4):
        assert not any(a.call in (Call.TRUCO, Call.SEIS) for a in legal_actions(state, seat))
    assert "eleven" in illegal(state, E, "truco")
    assert view(state, E).raises_barred


def test_BR11_double_eleven_is_played_blind() -> None:
    state, events = _br(HANDS, scores=(11, 11))
    assert state.deal_kind is DealKind.BLIND
    v = view(state, E)
    assert v.own_cards == () and v.hand_sizes == (3, 3, 3, 3) and v.truco_pending is None
    assert [a.call for a in legal_actions(state, E)] == [Call.PLAY_BLIND]
    dealt = next(e for e in events if isinstance(e, HandDealt))
    assert all(h is None for h in project_event(dealt, E).hands)
    state, ev = act(state, (E, "play_blind"))
    assert ev[0].card == f("3c")  # the card becomes public as it is played
    assert state.current == ((E, f("3c")),)


def test_BR12_first_trick_tied_everyone_plays_his_highest() -> None:
    hands = {E: "3c 7c Kc", N: "3h Ah 7h", W: "As Ks 7s", S: "2d Ad 7d"}
    state, _ = _br(hands)
    state, _ = act(state, (E, "play", "3c"), (N, "play", "3h"), (W, "play", "7s"),
                   (S, "play", "7d"))
    assert state.trick_results == (-1,)
    assert [str(a.card) for a in legal_actions(state, E) if a.call is Call.PLAY] == ["Kc"]
    assert "highest" in illegal(state, E, "play", "7c")
    state, ev = act(state, (E, "play", "Kc"), (N, "play", "Ah"))
    # tie, then a won trick: that trick decides (OP-BR-2)
    state, ev = act(state, (W, "play", "As"), (S, "play", "2d"))
    assert [e.winner_team for e in ev if isinstance(e, HandEnded)] == [1]


def test_BR12_second_trick_tied_goes_to_the_first_trick_winner() -> None:
    hands = {E: "3c 7c Kc", N: "2h Ah 7h", W: "2s As 7s", S: "2d Ad 7d"}
    state, _ = _br(hands)
    state, _ = act(state, (E, "play", "3c"), (N, "play", "2h"), (W, "play", "2s"),
                   (S, "play", "2d"))
    state, ev = act(state, (E, "play", "7c"), (N, "play", "7h"), (W, "play", "7s"),
                    (S, "play", "7d"))
    assert [e.winner_team for e in ev if isinstance(e, HandEnded)] == [0]


@pytest.mark.parametrize(("scope", "expected"), [("game", (0, 12)), ("hand", (0, 1))])
def test_BR12_three_ties_the_dealers_side_loses(scope: str, expected: tuple[int, int]) -> None:
    hands = {E: "3c 2c 7c", N: "3h 2h 7h", W: "As Ks 7s", S: "Ad Kd 7d"}
    state, _ = _br(hands, forfeit_scope=scope)  # S (seat 3, team N-S = 1) deals
    state, ev = act(state,
                    (E, "play", "3c"), (N, "play", "3h"), (W, "play", "7s"), (S, "play", "7d"),
                    (E, "play", "2c"), (N, "play", "2h"), (W, "play", "As"), (S, "play", "Ad"),
                    (E, "play", "7c"), (N, "play", "7h"), (W, "play", "Ks"), (S, "play", "Kd"))
    ended = [e for e in ev if isinstance(e, HandEnded)]
    assert ended[0].reason == "three_ties"
    # the dealer S is on team 1: team 0 (E-W) wins the game (or only the hand, worth 1)
    assert state.scores == tuple(reversed(expected))
    assert bool([e for e in ev if isinstance(e, GameEnded)]) == (scope == "game")


def test_the_deal_passes_to_the_left() -> None:
    state, _ = _br(HANDS)
    dealer = state.dealer
    state, _ = act(state, (E, "truco"), (N, "no_quiero"))
    assert state.needs_deal and state.dealer == (dealer - 1) % 4
    # the old dealer becomes the first player of the next hand
    assert (state.dealer + 1) % 4 == dealer


def test_french_cards_on_the_wire_need_the_deck() -> None:
    assert card_from_wire("7c") == parse_card("7c", "spanish")
    assert card_from_wire("7c", "french") == f("7c") != parse_card("7c", "spanish")
    assert parse_cards("Ac 7h 4d", deck="french") == (f("Ac"), f("7h"), f("4d"))
    state, events = _br(HANDS)
    for e in events:
        assert event_from_wire(e.to_wire(), BR.card_notation) == e
