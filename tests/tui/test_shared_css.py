"""Sessions share one parse of the stylesheets (tui/textual_patches/shared_css.py, installed by tests/conftest.py)."""
from __future__ import annotations

import pytest
from textual.css.stylesheet import Stylesheet


CSS = "Static { color: $text; }"


def _rules(variables: dict[str, str]) -> list[object]:
    sheet = Stylesheet(variables=variables)
    sheet.add_source(CSS, read_from=("test", "CSS"))
    sheet.parse()
    return sheet.rules


def test_two_apps_with_one_theme_share_the_parsed_rules() -> None:
    first, second = _rules({"text": "white"}), _rules({"text": "white"})
    assert first and all(a is b for a, b in zip(first, second, strict=True))


def test_another_theme_gets_its_own_rules() -> None:
    light, dark = _rules({"text": "black"}), _rules({"text": "white"})
    assert light[0] is not dark[0]
    assert str(light[0].styles.color) != str(dark[0].styles.color)


def test_a_stylesheet_whose_variables_are_replaced_gets_the_new_themes_rules() -> None:
    """The theme's variables are remembered per stylesheet by the dict Textual holds:
    set_variables (a theme change) hands it a new one, and the next parse reads it."""
    sheet = Stylesheet(variables={"text": "black"})
    sheet.add_source(CSS, read_from=("test", "CSS"))
    sheet.parse()
    light = sheet.rules
    sheet.set_variables({"text": "white"})
    sheet.parse()
    assert str(sheet.rules[0].styles.color) != str(light[0].styles.color)
    assert sheet.rules[0] is _rules({"text": "white"})[0]


def test_rules_stay_right_after_the_caches_are_emptied(monkeypatch: pytest.MonkeyPatch) -> None:
    """Emptied at the bound, the numbers start again: a stylesheet that remembers its number
    from before must not be handed the rules of another theme that got the same number."""
    from tui.textual_patches import shared_css

    monkeypatch.setattr(shared_css, "_MAX_ENTRIES", 2)
    monkeypatch.setattr(shared_css, "_PARSED", {})
    monkeypatch.setattr(shared_css, "_VARIABLES", {})

    def sheet(colour: str) -> Stylesheet:
        made = Stylesheet(variables={"text": colour})
        made.add_source(CSS, read_from=("test", "CSS"))
        made.parse()
        return made

    white = str(sheet("white").rules[0].styles.color)
    dark = sheet("white")  # number 0
    sheet("red")  # number 1
    black = sheet("black")  # past the bound: both emptied, black is number 0 now
    assert str(black.rules[0].styles.color) != white
    dark.parse()
    assert str(dark.rules[0].styles.color) == white
