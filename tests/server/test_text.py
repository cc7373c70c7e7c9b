"""Cleaning of untrusted text."""
from __future__ import annotations

import unicodedata

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from protocol.text import clean_text, name_key, name_stem, usable_name, valid_name


@pytest.mark.parametrize(
    "raw, shown",
    [
        ("hola", "hola"),
        ("  a \t b\r\n c  ", "a b c"),
        ("\x1b]52;c;SGVsbG8=\x07x", "]52;c;SGVsbG8=x"),
        ("\x1b[2Jboom", "[2Jboom"),
        ("a\x9bb\x85c", "abc"),
        ("\u202eevil\u202c", "evil"),
        ("zero\u200bwidth\u2060", "zerowidth"),
        ("priv\ue000ate", "private"),
        ("line\u2028sep", "linesep"),
        ("[@click=app.quit]x[/]", "[@click=app.quit]x[/]"),
        ("Jose\u0301", "José"),
    ],
)
def test_clean_text(raw: str, shown: str) -> None:
    assert clean_text(raw, 200) == shown


def test_clean_text_caps_length() -> None:
    assert clean_text("x" * 500, 200) == "x" * 200


@given(st.text(max_size=300))
@settings(max_examples=300, deadline=None)
def test_cleaned_text_has_no_control_or_format_characters(raw: str) -> None:
    out = clean_text(raw, 100)
    assert len(out) <= 100
    assert all(unicodedata.category(ch) not in {"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"} for ch in out)
    assert "\x1b" not in out


@pytest.mark.parametrize("name", ["alice", "Bob_2", "jose.m", "Ñandú", "a", "x" * 16, "a-b"])
def test_valid_names(name: str) -> None:
    assert valid_name(name) and usable_name(name)


@pytest.mark.parametrize("name", ["", "x" * 17, "a b", "[/", "a\x1b", "name\u202e", "e\u0301"])
def test_invalid_names(name: str) -> None:
    assert not valid_name(name)


@pytest.mark.parametrize("name", ["root", "ROOT", "admin", "ubuntu", "pi"])
def test_system_account_names_are_not_usable(name: str) -> None:
    assert valid_name(name) and not usable_name(name)


def test_name_key_folds_case_and_compatibility_forms() -> None:
    assert name_key("ALICE") == name_key("alice")
    assert name_key("ａｌｉｃｅ") == name_key("alice")  # fullwidth


@pytest.mark.parametrize("look_alike", ["Аlice", "аlice", "Alicе", "ΑLICE", "A1ice", "a|ice", "alıce", "ALICE"])
def test_look_alike_names_are_the_same_name(look_alike: str) -> None:
    assert look_alike != "alice"
    assert name_key(look_alike) == name_key("alice")


@pytest.mark.parametrize("other", ["alicia", "bob", "alice2", "al"])
def test_different_names_stay_different(other: str) -> None:
    assert name_key(other) != name_key("alice")


def test_name_stem_keeps_the_usable_part() -> None:
    assert name_stem("[@click=app.quit]x[/]") == "clickapp.quitx"
    assert name_stem("!!!") == ""
