"""A move the engine refuses reaches the player in their language, never as English.

The engine gives its reason as an English sentence (IllegalAction); tui/refusals.py knows
each one. These tests find the sentences two ways: every constant sentence in the engine's
``explain`` functions, and every refusal that random positions of every variant produce for
every move nobody may make there. A new sentence without a translation fails here.
"""
from __future__ import annotations

import ast
import random
import string
from functools import cache
from pathlib import Path
from typing import Any

import pytest

import engine
import protocol as p
from engine.actions import Action
from engine.game import explain
from tui.app import TrucoApp
from tui.i18n import LANGUAGES, Translator
from tui.refusals import REFUSALS, refusal_key, refusal_text

from test_screens import FakeLink, screen_text, welcome

ROOT = Path(__file__).resolve().parents[2]


def _explain_constants() -> set[str]:
    """The plain sentences the engine's explain functions return."""
    found: set[str] = set()
    for path in (ROOT / "engine").glob("*.py"):
        for fn in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(fn, ast.FunctionDef) and fn.name.startswith("explain"):
                for node in ast.walk(fn):
                    if isinstance(node, ast.Return) and node.value is not None:
                        for part in ast.walk(node.value):
                            if isinstance(part, ast.Constant) and isinstance(part.value, str) \
                                    and " " in part.value and not _in_fstring(part, node.value):
                                found.add(part.value)
    return found


def _in_fstring(node: ast.AST, root: ast.AST) -> bool:
    return any(isinstance(f, ast.JoinedStr) and node in f.values for f in ast.walk(root))


@cache
def played_refusals() -> set[str]:
    """Refusals of every move nobody may make, in positions of random matches of every variant."""
    sentences: set[str] = set()
    for spec in engine.variant_catalog():
        for n in spec.player_counts:
            options: dict[str, Any] = {"match_games": 1}
            if spec.name == "argentino":
                options.update(maldon="mano", reales=True)
            rules = engine.get_ruleset(spec.name, **options)
            rng = random.Random(n)
            state, _ = engine.new_match(rules, n, rng)
            for step in range(400):
                if state.match_over:
                    break
                if step % 3 == 0:
                    for seat in range(n + 1):  # one seat past the table: "there is no seat"
                        legal = set(engine.legal_actions(state, seat)) if seat < n else set()
                        cards = list(state.hands[seat]) if seat < n else []
                        for call in engine.Call:
                            for card in cards[:1] + [None]:
                                action = Action(seat, call, card, 2 if call.value in ("piedras", "envido_puntos") else None)
                                if action not in legal:
                                    sentences.add(explain(state, action))
                legal = [a for s in range(n) for a in engine.legal_actions(state, s)]
                calls = [a for a in legal if a.call is not engine.Call.PLAY]
                action = rng.choice(calls if calls and rng.random() < 0.4 else legal)
                state, _ = engine.advance(state, action, rng)
    return sentences


def test_every_constant_refusal_of_the_engine_is_known() -> None:
    sentences = _explain_constants()
    assert len(sentences) > 40
    unknown = sorted(s for s in sentences if refusal_key(s) is None)
    assert not unknown, f"engine refusals with no translation (add them to tui/refusals.py): {unknown}"


def test_every_refusal_random_positions_produce_is_known() -> None:
    sentences = played_refusals()
    assert len(sentences) > 25, sentences
    unknown = sorted(s for s in sentences if refusal_key(s) is None)
    assert not unknown, f"engine refusals with no translation (add them to tui/refusals.py): {unknown}"


@pytest.mark.parametrize(("name", "pattern"), REFUSALS, ids=[n for n, _ in REFUSALS])
def test_each_refusal_has_its_words_in_every_language_with_the_values_it_takes(name: str, pattern: str) -> None:
    import re

    groups = set(re.compile(pattern).groupindex)
    for lang in LANGUAGES:
        tr = Translator(lang)
        assert tr.has(f"refusal.{name}"), f"{lang} lacks refusal.{name}"
        text = tr(f"refusal.{name}")
        assert {f for _, f, _, _ in string.Formatter().parse(text) if f} == groups


def test_a_refusal_is_translated_with_its_call_and_card() -> None:
    es, pt = Translator("es"), Translator("pt")
    assert refusal_text(es, "it is not your turn to play") == "No es tu turno."
    assert refusal_text(es, "you do not hold 7e") == "No tenés el 7e."
    assert refusal_text(es, "the next bet is retruco", "argentino") == "La próxima apuesta es Quiero retruco."
    assert refusal_text(pt, "the raise now is seis", "paulista") == "Agora o aumento é Seis."
    assert refusal_text(es, "a sentence the engine never said") == es("error.illegal")


async def test_a_refused_move_shows_as_a_translated_toast() -> None:
    link = FakeLink()
    app = TrucoApp(link, "ana", "pt")
    link.push(*welcome())
    async with app.run_test(size=(100, 24), notifications=True) as pilot:
        await pilot.pause(0.1)
        link.push(p.Error(code="illegal", message="after a tied first trick you must play your highest card"))
        await pilot.pause(0.2)
        await pilot.pause()
        text = screen_text(app)
        assert "Depois de empatar a primeira" in text
        assert "tied" not in text
