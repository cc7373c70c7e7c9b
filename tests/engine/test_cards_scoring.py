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
    same = lambda a, b: trick_strength(parse_cards(a)[0], R) == trick_strength(parse_cards(b)[0], R)
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
