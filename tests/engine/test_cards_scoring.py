import pytest

from engine import envido_value, flor_value, get_ruleset, parse_cards, trick_strength
from engine.core.cards import SPANISH_DECK

R = get_ruleset("argentino")
NO_FLOR = get_ruleset("argentino", flor=False)


def test_notation_round_trips() -> None:
    for card in SPANISH_DECK:
        assert parse_cards(str(card)) == (card,)
    assert [str(c) for c in parse_cards("1e 7o 12c")] == ["1e", "7o", "12c"]
    assert [str(c) for c in parse_cards("Ac 7h Kd")] == ["Ac", "7h", "Kd"]
    for bad in ("8e", "13o", "1x", "e1", ""):
        if bad:
            with pytest.raises(ValueError):
                parse_cards(bad)


def test_trick_ranking_classes() -> None:
    order = "1e 1b 7e 7o 3e 2c 1o 12b 11o 10e 7c 6b 5o 4e".split()
    strengths = [trick_strength(parse_cards(c)[0], R) for c in order]
    assert strengths == sorted(strengths, reverse=True)
    assert len(set(strengths)) == len(strengths)
    def same(a: str, b: str) -> bool:
        return trick_strength(parse_cards(a)[0], R) == trick_strength(parse_cards(b)[0], R)

    assert same("3e", "3c") and same("1o", "1c") and same("7c", "7b")
    assert not same("7e", "7o") and not same("1e", "1b")


@pytest.mark.parametrize(
    "hand, value",
    [
        ("7e 6e 1b", 33),  # AR-05 maximum
        ("10e 11b 12o", 0),  # AR-05 minimum
        ("7e 1e 4c", 28),  # AR-27
        ("7e 5b 4o", 7),
        ("12e 11e 5c", 20),
        ("6o 5o 7c", 31),
    ],
)
def test_envido_values(hand: str, value: int) -> None:
    assert envido_value(parse_cards(hand), R) == value


def test_three_of_a_suit_without_flor_is_best_two_plus_20() -> None:  # AR-06
    assert envido_value(parse_cards("6c 3c 2c"), NO_FLOR) == 29
    assert flor_value(parse_cards("6c 3c 2c"), NO_FLOR) is None


def test_flor_values() -> None:
    assert flor_value(parse_cards("5e 6e 7e"), R) == 38  # AR-02
    assert flor_value(parse_cards("4o 10o 12o"), R) == 24  # AR-03 North
    assert flor_value(parse_cards("2b 3b 10b"), R) == 25  # AR-03 South
    assert flor_value(parse_cards("1c 3c 5c"), R) == 29  # AR-03 East
    assert flor_value(parse_cards("1c 3c 5o"), R) is None
    assert flor_value(parse_cards("10e 11e 12e"), R) == 20
    assert flor_value(parse_cards("10e 11e 12e"), get_ruleset("argentino", negras_30=True)) == 30  # AR-32


# ---------------------------------------------------------------- cards of another deck (issue 14)

import pytest  # noqa: E402

from engine import get_ruleset  # noqa: E402


def test_a_card_of_another_deck_is_a_value_error() -> None:
    """A Spanish card under the Brazilian deck used to score 0; a Spanish face-up card
    raised KeyError. Both are the caller's mistake: ValueError, naming the card."""
    paulista = get_ruleset("paulista")
    spanish_3c = parse_cards("3c", deck="spanish")[0]
    vira = paulista.deck[0]
    with pytest.raises(ValueError, match="3c"):
        trick_strength(spanish_3c, paulista, vira)
    with pytest.raises(ValueError, match="paulista"):
        trick_strength(parse_cards("Ac", deck="french")[0], paulista, parse_cards("1e")[0])
    french = parse_cards("Ac 7h 3s", deck="french")
    argentino = get_ruleset("argentino")
    with pytest.raises(ValueError, match="argentino"):
        envido_value(french, argentino)
    with pytest.raises(ValueError, match="argentino"):
        flor_value(french, argentino)
    forty_only = parse_cards("4d", deck="french")[0]  # in the 40-card deck, not the 28
    assert forty_only not in paulista.deck
    with pytest.raises(ValueError):
        trick_strength(forty_only, paulista, vira)
    # A card of the deck is still fine.
    assert trick_strength(parse_cards("Ac", deck="french")[0], paulista, paulista.deck[0]) >= 0
