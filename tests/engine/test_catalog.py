import pytest

from engine import OptionSpec, VariantSpec, variant_catalog
from engine.variants.catalog import resolve_options


def test_catalog_lists_all_four_variants() -> None:
    names = [v.name for v in variant_catalog()]
    assert names == ["argentino", "uruguayo", "paulista", "venezolano"]
    implemented = {v.name: v.implemented for v in variant_catalog()}
    assert implemented == {
        "argentino": True, "uruguayo": True, "paulista": True, "venezolano": True
    }
    counts = {v.name: v.player_counts for v in variant_catalog()}
    assert counts["uruguayo"] == (2, 3, 4, 6) and counts["paulista"] == (2, 4)


def test_every_option_default_is_valid_and_kind_known() -> None:
    for variant in variant_catalog():
        assert isinstance(variant, VariantSpec)
        assert "target" in [o.name for o in variant.options]
        assert "match_games" in [o.name for o in variant.options]
        for opt in variant.options:
            assert isinstance(opt, OptionSpec)
            assert opt.kind in ("bool", "choice", "int")
            assert opt.validate(opt.default) == opt.default
            assert opt.label and opt.help


def test_argentino_player_counts_and_flor_option() -> None:
    arg = variant_catalog()[0]
    assert arg.player_counts == (2, 4, 6)
    assert arg.option("flor").kind == "bool"
    assert arg.option("target").choices == (30, 15)


def test_resolve_options_rejects_unknown_and_bad_values() -> None:
    with pytest.raises(ValueError):
        resolve_options("argentino", {"nope": 1})
    with pytest.raises(ValueError):
        resolve_options("argentino", {"target": 20})
    with pytest.raises(ValueError):
        resolve_options("argentino", {"flor": 1})
    with pytest.raises(ValueError):
        resolve_options("argentino", {"target": True})
    with pytest.raises(ValueError):
        resolve_options("chinchon", {})
    assert resolve_options("argentino", {"target": 15})["target"] == 15


def test_catalog_option_names_are_get_ruleset_keywords() -> None:
    from engine import get_ruleset

    for variant in variant_catalog():
        if not variant.implemented:
            continue
        rules = get_ruleset(variant.name)
        assert rules.player_counts == variant.player_counts
        assert [k for k, _ in rules.options] == sorted(o.name for o in variant.options)
        for opt in variant.options:
            for choice in opt.choices:
                assert get_ruleset(variant.name, **{opt.name: choice}).option(opt.name) == choice
