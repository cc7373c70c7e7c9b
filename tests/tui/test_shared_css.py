"""Sessions share one parse of the stylesheets (tui/textual_patches/shared_css.py, installed by tests/conftest.py)."""
from __future__ import annotations

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
