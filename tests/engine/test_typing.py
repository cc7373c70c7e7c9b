"""The engine's working state is typed field by field (the whole project's `mypy --strict`
run is tests/test_types.py)."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


# ---------------------------------------------------------------- the working state (issue 14)

import ast  # noqa: E402
import dataclasses  # noqa: E402

import pytest  # noqa: E402

from engine import get_ruleset, new_match  # noqa: E402
from engine.core.state import HandFields, State, Work, freeze, thaw  # noqa: E402


def test_state_and_work_take_their_fields_from_one_list() -> None:
    spec = list(HandFields.__annotations__.items())
    assert [(f.name, f.type) for f in dataclasses.fields(State)] == spec
    assert issubclass(Work, HandFields) and not Work.__dict__.get("__annotations__")
    assert not dataclasses.is_dataclass(Work)  # plain attributes, read and written by name


def test_the_state_stays_frozen() -> None:
    import random

    state, _ = new_match(get_ruleset("argentino"), 2, random.Random(3))
    with pytest.raises(dataclasses.FrozenInstanceError):
        state.turn = 1  # mypy lets this pass (State takes its fields from HandFields); run time does not


def test_mypy_refuses_a_misspelt_field_of_the_working_state(tmp_path: Path) -> None:
    probe = tmp_path / "probe.py"
    probe.write_text(
        "from engine.core.state import State, thaw\n"
        "def f(state: State) -> None:\n"
        "    w = thaw(state)\n"
        "    w.truco_level = 2\n"
        "    w.truco_levl = 2\n"
        "    w.turn = 'x'\n",
        encoding="utf-8",
    )
    ran = subprocess.run([sys.executable, "-m", "mypy", "--strict", "--cache-dir", str(tmp_path / "cache"),
                          str(probe)],
                         cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert 'has no attribute "truco_levl"' in ran.stdout, ran.stdout + ran.stderr
    assert "probe.py:6: error: Incompatible types in assignment" in ran.stdout, ran.stdout
    assert "probe.py:4" not in ran.stdout, ran.stdout


def test_a_misspelt_field_is_refused_when_the_state_is_frozen() -> None:
    import random

    state, _ = new_match(get_ruleset("argentino"), 2, random.Random(3))
    w = thaw(state)
    assert freeze(w) == state
    w.truco_levl = 2  # type: ignore[attr-defined]
    with pytest.raises(AttributeError, match="truco_levl"):
        freeze(w)


# Rule code: every module that changes or reads a hand. The codecs (events, views) and the
# registry's `**options` are wire/keyword boundaries and may take Any.
RULE_DIRS = ("engine/rules", "engine/variants")
RULE_CORE = ("state", "hooks", "ledger", "tricks", "truco", "hand", "game", "hand_guide", "ruleset")


def _rule_modules() -> list[Path]:
    paths = [p for d in RULE_DIRS for p in sorted((ROOT / d).rglob("*.py"))]
    return paths + [ROOT / "engine" / "core" / f"{name}.py" for name in RULE_CORE]


def test_no_rule_function_takes_or_returns_any() -> None:
    offenders = []
    for path in _rule_modules():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            if path.name == "registry.py" and node.name == "get_ruleset":
                continue  # get_ruleset(variant, **options): options are checked by the catalog
            args = node.args.posonlyargs + node.args.args + node.args.kwonlyargs
            extra = [a for a in (node.args.vararg, node.args.kwarg) if a is not None]
            notes = [a.annotation for a in args + extra] + [node.returns]
            for note in notes:
                if note is not None and any(
                    isinstance(n, ast.Name) and n.id == "Any" for n in ast.walk(note)
                ):
                    offenders.append(f"{path.relative_to(ROOT)}:{node.lineno} {node.name}")
    assert not offenders, offenders


def test_the_a_ley_flor_keeps_its_own_record_not_fields_of_the_shared_state() -> None:
    import random

    from engine import advance, all_legal_actions
    from engine.variants.venezolano.record import VenezuelanHand

    names = {f.name for f in dataclasses.fields(State)}
    assert not {n for n in names if "ley" in n}, names
    rules = get_ruleset("venezolano", flor_declaration="a_ley")
    rng = random.Random(5)
    state, _ = new_match(rules, 2, rng)
    records = set()
    for _ in range(200):
        records.add(type(state.variant_hand))
        if state.match_over:
            break
        state, _ = advance(state, rng.choice(all_legal_actions(state)), rng)
    assert VenezuelanHand in records  # a-ley hands carry it ...
    argentine, _ = new_match(get_ruleset("argentino"), 2, rng)
    assert argentine.variant_hand is None  # ... other games never do


def test_scoring_reasons_are_an_enum_with_the_wire_values() -> None:
    import random

    from engine import PointsScored, advance, all_legal_actions
    from engine.core.events import Scoring

    rng = random.Random(8)
    state, _ = new_match(get_ruleset("argentino"), 2, rng)
    seen = []
    for _ in range(300):
        if state.match_over:
            break
        state, events = advance(state, rng.choice(all_legal_actions(state)), rng)
        seen += [e for e in events if isinstance(e, PointsScored)]
    assert seen and all(isinstance(e.reason, Scoring) for e in seen)
    assert all(type(e.to_wire()["reason"]) is str for e in seen)
