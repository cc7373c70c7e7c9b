"""The locale catalogs: every language has every key with the same placeholders, and every
key the code can ask for exists (literal keys, and the families built at run time).
"""
from __future__ import annotations

import ast
import json
import random
import re
import string
from functools import cache
from pathlib import Path
from typing import Any

import pytest

import engine
from engine.variants.senas import SENAS
from tui.i18n import LANGUAGES, LOCALES, Translator, option_label, option_value

ROOT = Path(__file__).resolve().parents[2]
CATALOGS: dict[str, dict[str, str]] = {
    lang: json.loads((LOCALES / f"{lang}.json").read_text(encoding="utf-8")) for lang in LANGUAGES
}
EN = CATALOGS["en"]
NAMESPACES = {key.split(".")[0] for key in EN}


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


def _sources() -> list[Path]:
    return sorted(p for d in ("tui", "server") for p in (ROOT / d).rglob("*.py"))


@cache
def _constants() -> tuple[set[str], set[str]]:
    """String constants of tui/ and server/ that look like keys, and the constant heads of
    f-strings that build keys (``f"error.{code}"`` gives ``error.``)."""
    literals: set[str] = set()
    heads: set[str] = set()
    looks_like_key = re.compile(r"^[a-z_]+\.[A-Za-z0-9_.\-]+$")
    for path in _sources():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        in_fstring: set[int] = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.JoinedStr):
                first = node.values[0] if node.values else None
                for part in node.values:
                    in_fstring.add(id(part))
                if isinstance(first, ast.Constant) and isinstance(first.value, str):
                    head = first.value
                    if head.split(".")[0] in NAMESPACES and head.endswith("."):
                        heads.add(head)
        for node in ast.walk(tree):
            if (isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in in_fstring
                    and looks_like_key.match(node.value) and node.value.split(".")[0] in NAMESPACES):
                # "guide.role." + role builds a key as an f-string does
                (heads if node.value.endswith(".") else literals).add(node.value)
    return literals, heads


def test_every_literal_key_in_the_code_exists() -> None:
    literals, _ = _constants()
    assert literals, "the scan found no keys at all"
    missing = sorted(k for k in literals if k not in EN)
    assert not missing, f"keys used in tui/ or server/ but missing from en.json: {missing}"


def _server_codes(pattern: str) -> set[str]:
    codes: set[str] = set()
    for path in (ROOT / "server").rglob("*.py"):
        codes |= set(re.findall(pattern, path.read_text(encoding="utf-8")))
    return codes


def _played_words() -> dict[str, set[str]]:
    """Calls, reasons and rules that random matches of every variant and size produce."""
    seen: dict[str, set[str]] = {"call": set(), "reason": set(), "rule": set()}
    for spec in engine.variant_catalog():
        for n in spec.player_counts:
            for seed in range(3):
                options: dict[str, Any] = {}
                for opt in spec.options:  # the shortest match: more hands ends in less time
                    if opt.name == "match_games":
                        options["match_games"] = 1
                    if opt.name == "target":
                        options["target"] = min(c for c in opt.choices if isinstance(c, int))
                rules = engine.get_ruleset(spec.name, **options)
                rng = random.Random(seed)
                state, events = engine.new_match(rules, n, rng)
                for _ in range(3000):
                    for event in events:
                        wire = event.to_wire()
                        if wire.get("call"):
                            seen["call"].add(str(wire["call"]))
                        if wire.get("reason"):
                            seen["reason"].add(str(wire["reason"]))
                        if wire.get("rule"):
                            seen["rule"].add(str(wire["rule"]))
                    if state.match_over:
                        break
                    legal = [a for s in range(n) for a in engine.legal_actions(state, s)]
                    state, events = engine.advance(state, rng.choice(legal), rng)
    return seen


def _function_source(package: str, name: str) -> str:
    """The body of the one function called ``name`` in the package (wherever it lives)."""
    for path in sorted((ROOT / package).rglob("*.py")):
        source = path.read_text(encoding="utf-8")
        match = re.search(rf"\n(\s*)def {name}\(", source)
        if match:
            indent = match.group(1).strip("\n")
            return source[match.end():].split(f"\n{indent}def ", 1)[0]
    raise AssertionError(f"no function {name} in {package}/")


def _count_rules() -> set[str]:
    """How a hand's envido is counted (the hand guide's count_rule), for every variant."""
    return {engine.get_ruleset(v.name).count_rule for v in engine.variant_catalog()}


def _refusals() -> set[str]:
    """The reasons the lobby gives for refusing a name (the returns of Names.refusal)."""
    body = _function_source("server/lobby", "refusal")
    return set(re.findall(r'return "([a-z_]+)"', body)) | {"unusable"}


@cache
def dynamic_keys() -> dict[str, set[str]]:
    """Every key each f-string family of the code can build, from the data that feeds it."""
    catalog = engine.variant_catalog()
    played = _played_words()
    engine_src = "\n".join(p.read_text(encoding="utf-8") for p in (ROOT / "engine").rglob("*.py"))
    columns = set()
    for name in ("lobby.py", "history.py"):
        columns |= set(re.findall(r'\("([a-z]+)", \d+\)', (ROOT / "tui/screens" / name).read_text()))
    families = {
        "variant.": {v.name for v in catalog},
        "option.": {o.name for v in catalog for o in v.options},
        "option_help.": {f"{v.name}.{o.name}" for v in catalog for o in v.options},
        "value.": {str(c) for v in catalog for o in v.options for c in o.choices if isinstance(c, str)},
        "call.": {c.value for c in engine.Call} | played["call"],
        "reason.": played["reason"] | set(re.findall(r'reason="([a-z_]+)"', engine_src)),
        "rule.": played["rule"] | set(re.findall(r'"(V-[A-Z]+\d+)"', engine_src)),
        "error.": _server_codes(r'(?:_error|\.error)\(\s*\w+,\s*"([a-z_]+)"') | _server_codes(r'Error\(code="([a-z_]+)"'),
        "notice.": _server_codes(r'Notice\(code="([a-z_]+)"') | _server_codes(r'notice: str = "([a-z_]+)"'),
        "lobby.table_status.": {"waiting", "full", "playing", "finished"},
        "name.reason.": _refusals(),
        "lobby.col.": columns & {"title", "game", "seats", "points", "status"},
        "history.col.": columns & {"when", "title", "game", "players", "score"},
        # Families of other parts of the TUI, checked where the code builds them.
        "log.": {"envido_puntos", "piedras"},  # a Venezuelan envite with its piedras
        "log.covered.": {"time", "away"},  # the bot moved for a player (timer, away)
        "log.covered_play.": {"time", "away"},
        "log.covered_call.": {"time", "away"},
        "table.hand.": {"eleven", "blind", "pica_pica"},  # a special hand's name
        # The engine's refusal codes, and the ones the table screen adds.
        "refusal.": set(re.findall(r'Reason\(\s*"([a-z_]+)"', engine_src)) | {"not_your_turn_who", "not_now"},
        # The ? guide of a hand: its special cards, how its envido and flor count.
        "guide.role.": {"pieza", "manilha", "perico", "perica"},
        "guide.count.": _count_rules() | {"none"},
        "guide.flor.": _count_rules() - {"none"},  # (no flor line where the envido is not counted)
        # Señas: each one's name, and its gesture in each variant; the table option's modes.
        "sena_name.": {s.code for v in SENAS.values() for s in v},
        "sena_gesture.": {f"{name}.{s.code}" for name, v in SENAS.items() for s in v},
        "senas.mode.": {"fair", "private"},
    }
    _, heads = _constants()
    always = {"variant.", "option.", "option_help.", "value.", "call.", "reason.", "rule.", "error.",
              "notice.", "name.reason."}
    return {head: names for head, names in families.items() if head in always or head in heads}


# Families whose key is optional: the code falls back to a general key when it is absent.
OPTIONAL_HEADS = {"table.face_up.", "call.paulista."}


def test_every_key_family_built_at_run_time_is_known_to_this_test() -> None:
    _, heads = _constants()
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
    played = _played_words()
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
