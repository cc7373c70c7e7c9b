"""Señas: what each variant's set describes, the bot's honest señas, and how a bot reads
its partners' señas."""
from __future__ import annotations

import random

import pytest

import engine
from engine.bots.senas import bot_senas, choose_with_senas
from engine.core.cards import parse_cards
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


def _answering(players: int = 4, *, envido: bool) -> tuple[engine.RuleSet, engine.View, int] | None:
    """A seat that must answer a truco (or a real envido) and that the bot would refuse."""
    rules = engine.get_ruleset("argentino", flor=False)
    call = engine.Call.REAL_ENVIDO if envido else engine.Call.TRUCO  # (a plain envido is rarely refused)
    for seed in range(400):
        state, _ = engine.new_match(rules, players, random.Random(seed))
        mano = engine.view(state, 0).turn
        opening = next((a for a in engine.legal_actions(state, mano) if a.call is call), None)
        if opening is None:
            continue
        state, _ = engine.apply(state, opening)
        for seat in engine.view(state, None).awaiting:
            view = engine.view(state, seat)
            chosen = engine.choose_action(view, rules, random.Random(1))  # the rng the tests use
            if chosen is not None and chosen.call is engine.Call.NO_QUIERO:
                partner = next(s for s in range(players) if s != seat and view.teams[s] == view.teams[seat])
                return rules, view, partner
    return None


def test_a_partners_top_card_turns_a_refused_truco_into_a_quiero() -> None:
    found = _answering(envido=False)
    assert found is not None, "no refused truco found in 400 deals"
    rules, view, partner = found
    opponent = next(s for s in range(4) if view.teams[s] != view.teams[view.viewer])
    rng = lambda: random.Random(1)  # noqa: E731
    assert choose_with_senas(view, rules, rng(), ()).call is engine.Call.NO_QUIERO
    assert choose_with_senas(view, rules, rng(), ((partner, "ancho_espadas"),)).call is engine.Call.QUIERO
    # An opponent's seña (caught, or a lie) is not a partner's: it changes nothing.
    assert choose_with_senas(view, rules, rng(), ((opponent, "ancho_espadas"),)).call is engine.Call.NO_QUIERO
    # Bad cards from the partner change nothing either.
    assert choose_with_senas(view, rules, rng(), ((partner, "nada"),)).call is engine.Call.NO_QUIERO


def test_a_partners_good_envido_turns_a_refused_envido_into_a_quiero() -> None:
    found = _answering(envido=True)
    assert found is not None, "no refused envido found in 400 deals"
    rules, view, partner = found
    rng = lambda: random.Random(1)  # noqa: E731
    assert choose_with_senas(view, rules, rng(), ((partner, "tres"),)).call is engine.Call.NO_QUIERO
    assert choose_with_senas(view, rules, rng(), ((partner, "envido"),)).call is engine.Call.QUIERO


def test_a_falta_envido_is_not_taken_on_a_partners_envido() -> None:
    rules = engine.get_ruleset("argentino", flor=False)
    for seed in range(400):
        state, _ = engine.new_match(rules, 4, random.Random(seed))
        mano = engine.view(state, 0).turn
        falta = next((a for a in engine.legal_actions(state, mano) if a.call is engine.Call.FALTA_ENVIDO), None)
        if falta is None:
            continue
        state, _ = engine.apply(state, falta)
        seat = engine.view(state, None).awaiting[0]
        view = engine.view(state, seat)
        if engine.choose_action(view, rules, random.Random(1)).call is engine.Call.NO_QUIERO:
            partner = (seat + 2) % 4
            assert choose_with_senas(view, rules, random.Random(1), ((partner, "envido"),)).call is engine.Call.NO_QUIERO
            return
    raise AssertionError("no refused falta envido found in 400 deals")


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
        assert choose_with_senas(view, rules, random.Random(1), ((partner, "nada"),)) == chosen
        return
    raise AssertionError("no deal where the mano leads a card other than its lowest")


def test_the_sets_cover_every_catalogued_variant() -> None:
    assert set(SENAS) == {v.name for v in engine.variant_catalog()}
