"""Señas: what each variant's set describes, the bot's honest señas, and how a bot reads
its partners' señas."""
from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import engine
from engine.bots.senas import bot_senas, choose_with_senas
from engine.core.cards import parse_cards
from engine.testing import act, scenario
from tests.engine.test_bot import _reshuffle_hidden
from engine.variants.senas import SENAS, SenaKind, described_cards, honest_senas, senas_of


def cards(text: str, deck: str = "spanish") -> tuple[engine.Card, ...]:
    return tuple(parse_cards(text, deck=deck)) if deck != "spanish" else tuple(parse_cards(text))


def test_every_variant_has_a_set_with_unique_codes_and_a_nothing_sena() -> None:
    for spec in engine.variant_catalog():
        codes = [s.code for s in senas_of(spec.name)]
        assert codes and len(codes) == len(set(codes)), spec.name
        assert codes[-1] == "nada"


def test_argentine_senas_name_the_cards() -> None:
    rules = engine.get_ruleset("argentino")
    assert honest_senas(cards("1e 7o 3c"), rules, None) == ("ancho_espadas", "siete_oros", "tres")
    assert honest_senas(cards("1b 1c 2o"), rules, None) == ("ancho_bastos", "ancho_falso", "dos")
    assert honest_senas(cards("4e 5o 6c"), rules, None) == ("nada",)
    assert honest_senas(cards("4e 5e 6e"), rules, None) == ("flor",)  # a flor: cheeks, not envido
    assert honest_senas(cards("7c 6c 4o"), rules, None) == ("envido",)  # 33
    assert honest_senas(cards("7c 6c 4o"), rules, None, with_points=False) == ("nada",)


def test_uruguayan_piezas_follow_the_muestra_and_the_twelve_rule() -> None:
    rules = engine.get_ruleset("uruguayo")
    muestra = cards("6o")[0]
    assert honest_senas(cards("2o 11o 3e"), rules, muestra)[:3] == ("pieza_2", "pieza_11", "tres")
    # The muestra is the 4: its 12 stands in for the 4 of the suit (the second pieza).
    four = cards("4c")[0]
    assert "pieza_4" in honest_senas(cards("12c 6e 5b"), rules, four)


def test_brazilian_manilhas_are_zap_copas_espadilha_pica_fumo() -> None:
    rules = engine.get_ruleset("paulista")
    vira = parse_cards("7s", deck="french")[0]
    marks = [m.card for m in rules.marks(rules.deck, vira)]
    names = [next(s.code for s in senas_of("paulista") if c in described_cards(s, rules, vira)) for c in marks]
    assert names == ["zap", "copas", "espadilha", "pica_fumo"]
    assert [str(c)[-1] for c in marks] == ["c", "h", "s", "d"]


@pytest.mark.parametrize("variant, players", [("argentino", 4), ("argentino", 6), ("uruguayo", 4),
                                              ("paulista", 4), ("venezolano", 4)])
def test_a_bots_senas_describe_only_what_it_holds(variant: str, players: int) -> None:
    """Bots are honest: every card seña stands for a card in its hand; flor only with a
    flor; nada only when no other seña applies."""
    rules = engine.get_ruleset(variant)
    kinds = {s.code: s for s in senas_of(variant)}
    for seed in range(60):
        state, _ = engine.new_match(rules, players, random.Random(seed))
        for seat in range(players):
            view = engine.view(state, seat)
            senas = bot_senas(view, rules)
            assert senas
            for code in senas:
                sena = kinds[code]
                if sena.kind in (SenaKind.CARDS, SenaKind.RANK, SenaKind.MARK):
                    assert described_cards(sena, rules, view.face_up) & set(view.own_cards), (code, view.own_cards)
                elif sena.kind is SenaKind.FLOR:
                    assert rules.flor and rules.flor_fn(tuple(view.own_cards), view.face_up) is not None
                elif sena.kind is SenaKind.NOTHING:
                    assert senas == ("nada",)


def _answers(hand: str, call: str, senas: tuple[tuple[int, str], ...], seeds: int = 40,
             scores: tuple[int, int] = (0, 0)) -> list[engine.Call]:
    """Seat 1's answers to seat 0's `call` (4 players, no flor; seat 3 is its partner)."""
    out = []
    for seed in range(seeds):
        state, _ = scenario({1: hand}, n=4, flor=False, scores=scores)
        state, _ = act(state, (0, call))
        view = engine.view(state, 1)
        chosen = choose_with_senas(view, state.rules, random.Random(seed), senas)
        assert chosen is not None and chosen in view.legal
        out.append(chosen.call)
    return out


def test_a_partners_top_cards_turn_a_refused_truco_into_a_quiero() -> None:
    weak = "4e 4b 5o"
    alone = _answers(weak, "truco", ())
    assert alone.count(engine.Call.NO_QUIERO) >= 30, alone
    tops = ((3, "ancho_espadas"), (3, "siete_espadas"), (3, "tres"))
    assert engine.Call.NO_QUIERO not in _answers(weak, "truco", tops)
    # The same señas from an opponent (caught, or a lie) are not a partner's: nothing changes.
    assert _answers(weak, "truco", tuple((2, c) for _, c in tops)) == alone
    # A partner with nothing makes it no better.
    assert _answers(weak, "truco", ((3, "nada"),)).count(engine.Call.NO_QUIERO) >= 30


def test_a_partner_with_nothing_makes_a_middling_truco_a_refusal() -> None:
    middling = "3e 7c 6b"
    alone = _answers(middling, "truco", ()).count(engine.Call.NO_QUIERO)
    told = _answers(middling, "truco", ((3, "nada"),)).count(engine.Call.NO_QUIERO)
    assert told > alone + 10, (alone, told)


def test_a_partners_good_envido_turns_a_refused_envido_into_a_quiero() -> None:
    weak = "4e 5b 12o"  # an envido of 5
    assert _answers(weak, "real_envido", ((3, "tres"),)).count(engine.Call.NO_QUIERO) == 40
    assert engine.Call.NO_QUIERO not in _answers(weak, "real_envido", ((3, "envido"),))


def test_a_partners_flor_makes_it_take_an_envido_and_never_open_one() -> None:
    rules = engine.get_ruleset("argentino")
    weak = "4e 5b 12o"
    for seed in range(20):
        state, _ = scenario({1: weak}, n=4)
        state, _ = act(state, (0, "real_envido"))
        view = engine.view(state, 1)
        chosen = choose_with_senas(view, rules, random.Random(seed), ((3, "flor"),))
        assert chosen is not None and chosen.call is not engine.Call.NO_QUIERO
        state, _ = scenario({0: "7o 6o 4c"}, n=4)  # 33 of its own
        view = engine.view(state, 0)
        chosen = choose_with_senas(view, rules, random.Random(seed), ((2, "flor"),))
        assert chosen is None or chosen.call is engine.Call.PLAY or chosen.call is engine.Call.TRUCO


def test_the_lowest_card_goes_before_a_partner_who_signalled_a_top_card() -> None:
    """"Al pie, una carta floja": the mano's partner plays third and holds the ancho."""
    rules = engine.get_ruleset("argentino", flor=False)
    for seed in range(400):
        state, _ = engine.new_match(rules, 4, random.Random(seed))
        view = engine.view(state, engine.view(state, 0).turn)
        plays = [a for a in view.legal if a.call is engine.Call.PLAY]
        lowest = min(plays, key=lambda a: rules.strength(a.card, view.face_up))
        chosen = engine.choose_action(view, rules, random.Random(1))
        if chosen is None or chosen.call is not engine.Call.PLAY or chosen == lowest:
            continue
        partner = (view.viewer + 2) % 4
        if engine.Card(1, engine.Suit.ESPADAS) in view.own_cards:
            continue
        with_ancho = choose_with_senas(view, rules, random.Random(1), ((partner, "ancho_espadas"),))
        if with_ancho.call is engine.Call.TRUCO:
            continue  # a good hand of its own: it opens the truco instead
        assert with_ancho == lowest
        return
    raise AssertionError("no deal where the mano leads a card other than its lowest")


def test_the_sets_cover_every_catalogued_variant() -> None:
    assert set(SENAS) == {v.name for v in engine.variant_catalog()}


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.sampled_from([4, 6]), steps=st.integers(0, 60),
       variant=st.sampled_from(["argentino", "uruguayo", "paulista", "venezolano"]))
def test_a_decision_with_senas_is_a_function_of_the_view_and_the_senas(
        seed: int, n: int, steps: int, variant: str) -> None:
    """The señas are the only thing a bot learns beyond its view: with the other seats'
    hidden cards dealt again (so the señas may now be lies), each seat decides the same."""
    rules = engine.get_ruleset(variant)
    if n == 6 and not any(6 in spec.player_counts for spec in engine.variant_catalog() if spec.name == variant):
        n = 4
    rng = random.Random(seed)
    state, _ = engine.new_match(rules, n, rng)
    dealt = {s: bot_senas(engine.view(state, s), rules) for s in range(n)}
    for _ in range(steps):
        if state.match_over or state.needs_deal:
            break
        state, _ = engine.advance(state, rng.choice(engine.all_legal_actions(state)), rng)
    if state.match_over or state.needs_deal:
        return
    for seat in range(n):
        said = tuple((s, c) for s in range(n) if s != seat for c in dealt[s])
        other = _reshuffle_hidden(state, seat, random.Random(seed + seat))
        a, b = engine.view(state, seat), engine.view(other, seat)
        assert a == b
        for level in (None, "normal"):
            assert ([choose_with_senas(a, rules, random.Random(k), said, level=level) for k in range(4)]
                    == [choose_with_senas(b, rules, random.Random(k), said, level=level) for k in range(4)])


def test_the_easy_level_overlooks_the_senas_now_and_then() -> None:
    """Seat 1 would refuse this truco alone and take it on its partner's top cards: the easy
    level takes it less often than normal, which reads the señas every time."""
    tops = ((3, "ancho_espadas"), (3, "siete_espadas"), (3, "tres"))
    state, _ = scenario({1: "4e 4b 5o"}, n=4, flor=False)
    state, _ = act(state, (0, "truco"))
    view = engine.view(state, 1)
    taken = {level: 0 for level in ("easy", "normal")}
    for level in taken:
        for seed in range(100):
            def at_level(v: engine.View, r: engine.RuleSet, g: random.Random) -> engine.Action | None:
                return engine.choose_for_level(level, v, r, g)
            chosen = choose_with_senas(view, state.rules, random.Random(seed), tops, at_level, level=level)
            # "Quiero" or "quiero retruco": either takes the truco on.
            taken[level] += chosen is not None and chosen.call in (engine.Call.QUIERO, engine.Call.RETRUCO)
    assert taken["normal"] >= 85 and 40 <= taken["easy"] <= taken["normal"] - 15, taken
