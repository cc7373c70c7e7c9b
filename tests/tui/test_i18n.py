"""The locale catalogs: every language has every key with the same placeholders, and every
key the code can ask for exists (literal keys, and the families built at run time).
"""
from __future__ import annotations

import json
import string

import pytest

import engine
from tui.i18n import LANGUAGES, LOCALES, Translator, names_said, option_label, option_value

from tests.tui.i18n_keys import dynamic_keys, key_constants, played_words

CATALOGS: dict[str, dict[str, str]] = {
    lang: json.loads((LOCALES / f"{lang}.json").read_text(encoding="utf-8")) for lang in LANGUAGES
}
EN = CATALOGS["en"]


def fields(text: str) -> set[str]:
    """The placeholders of a format string (raises ValueError on a stray brace)."""
    return {name for _, name, _, _ in string.Formatter().parse(text) if name is not None}


# ---------------------------------------------------------------- the catalogs themselves


def test_the_catalogs_are_the_three_languages() -> None:
    assert sorted(p.stem for p in LOCALES.glob("*.json")) == sorted(LANGUAGES)


@pytest.mark.parametrize("lang", sorted(LANGUAGES))
def test_every_locale_has_every_key_of_every_other(lang: str) -> None:
    mine = set(CATALOGS[lang])
    for other, catalog in CATALOGS.items():
        missing = sorted(set(catalog) - mine)
        assert not missing, f"{lang}.json lacks keys that {other}.json has: {missing}"


def test_a_locale_file_has_no_key_twice() -> None:
    for lang in LANGUAGES:
        pairs = json.loads((LOCALES / f"{lang}.json").read_text(encoding="utf-8"),
                           object_pairs_hook=lambda kv: kv)
        keys = [k for k, _ in pairs]
        assert len(keys) == len(set(keys)), f"{lang}.json repeats {[k for k in keys if keys.count(k) > 1]}"


@pytest.mark.parametrize("key", sorted(EN))
def test_placeholders_are_the_same_in_every_locale(key: str) -> None:
    expected = fields(EN[key])
    for lang, catalog in CATALOGS.items():
        text = catalog.get(key, EN[key])
        assert text.strip(), f"{lang}: {key} is empty"
        assert fields(text) == expected, f"{lang}: {key} has {sorted(fields(text))}, en has {sorted(expected)}"
        text.format(**{name: "x" for name in expected})  # formats without an error


def test_plural_twins_have_their_base_key() -> None:
    for key in EN:
        if key.endswith((".one", ".other")):
            base = key.rsplit(".", 1)[0]
            assert base in EN, f"{key} has no {base}"
            assert fields(EN[key]) == fields(EN[base])
            assert {"n", "points"} & fields(EN[base]), f"{base} has no count to choose the plural by"


def test_the_singular_is_chosen_by_the_count() -> None:
    tr = Translator("es")
    assert tr("table.waiting_for", n=1).startswith("Falta 1 jugador.")
    assert tr("table.waiting_for", n=2).startswith("Faltan 2 jugadores.")
    assert tr("lobby.online", n=1) == "1 conectado" and tr("lobby.online", n=3) == "3 conectados"


# ---------------------------------------------------------------- every key the code asks for


def test_every_literal_key_in_the_code_exists() -> None:
    literals, _ = key_constants()
    assert literals, "the scan found no keys at all"
    missing = sorted(k for k in literals if k not in EN)
    assert not missing, f"keys used in tui/ or server/ but missing from en.json: {missing}"


# Families whose key is optional: the code falls back to a general key when it is absent.
OPTIONAL_HEADS = {"table.face_up.", "call.paulista.", "bet."}  # bet.: where a bet's name is not its call's words


def test_every_key_family_built_at_run_time_is_known_to_this_test() -> None:
    _, heads = key_constants()
    known = set(dynamic_keys()) | OPTIONAL_HEADS
    unknown = sorted(h for h in heads if h not in known)
    assert not unknown, f"the code builds keys from {unknown}: enumerate them in dynamic_keys()"


@pytest.mark.parametrize("head", sorted(dynamic_keys()))
def test_every_key_of_a_family_exists(head: str) -> None:
    names = dynamic_keys()[head]
    assert names, f"nothing enumerated for {head}"
    missing = sorted(head + name for name in names if head + name not in EN)
    assert not missing, f"missing from en.json (and so from es/pt): {missing}"


def test_random_matches_reach_the_calls_and_reasons_worth_checking() -> None:
    played = played_words()
    assert {"truco", "quiero", "envido", "play"} <= played["call"]
    assert {"truco", "tricks"} <= played["reason"]


# ---------------------------------------------------------------- option labels and values


@pytest.mark.parametrize("lang", ["es", "pt"])
def test_every_option_and_value_reads_in_the_language(lang: str) -> None:
    tr = Translator(lang)
    for spec in engine.variant_catalog():
        for opt in spec.options:
            assert option_label(tr, opt.name, opt.label) == CATALOGS[lang][f"option.{opt.name}"]
            for choice in opt.choices:
                shown = option_value(tr, choice)
                if isinstance(choice, bool):
                    assert shown == CATALOGS[lang]["form.yes" if choice else "form.no"]
                elif isinstance(choice, str):
                    assert shown == CATALOGS[lang][f"value.{choice}"] and shown != choice
                else:
                    assert shown == str(choice)


def test_names_are_listed_as_a_sentence_lists_them() -> None:
    # A seña to two partners at six players read "a Bot 1, Bot 3" (a new-player pass).
    assert names_said(Translator("es"), ["Bot 1", "Bot 3"]) == "Bot 1 y Bot 3"
    assert names_said(Translator("pt"), ["ana", "beto", "Bot 2"]) == "ana, beto e Bot 2"
    assert names_said(Translator("en"), ["ana"]) == "ana"
    assert names_said(Translator("en"), []) == ""
