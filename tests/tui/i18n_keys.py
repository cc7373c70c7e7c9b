"""Every locale key the code builds at run time, family by family (``f"call.{call}"``...),
from the data that feeds each family: the variant catalog, random matches of every variant,
the engine's and the server's sources. Read by tests/tui/test_i18n.py (every key of every
family exists) and tests/tui/test_i18n_walk.py (the screens say them in each language).
"""
from __future__ import annotations

import ast
import hashlib
import json
import os
import random
import re
from functools import cache
from pathlib import Path
from typing import Any

import engine
from protocol.deal_proof import PROBLEMS
from protocol.moderation import REPORT_REASONS
from tui.screens.operators import VIEWS
from engine.variants.senas import SENAS
from tui.hand_points import RAISES
from tui.i18n import LOCALES

ROOT = Path(__file__).resolve().parents[2]
# The first part of every key ("table", "log", "call"...): a string that starts with one and
# a dot may be a key.
NAMESPACES = {key.split(".")[0] for key in json.loads((LOCALES / "en.json").read_text(encoding="utf-8"))}


def _sources() -> list[Path]:
    return sorted(p for d in ("tui", "server") for p in (ROOT / d).rglob("*.py"))


@cache
def key_constants() -> tuple[set[str], set[str]]:
    """String constants of tui/ and server/ that look like keys, and the constant heads of
    f-strings that build keys (``f"error.{code}"`` gives ``error.``). Parsing every source
    takes about 3 s of CPU: the answer is kept on disk for these very sources, so that the
    suite's workers parse them once between them, not once each."""
    sources = [(path, path.read_bytes()) for path in _sources()]
    parser = Path(__file__).read_bytes()  # (a change of this parser is a new answer too)
    digest = hashlib.sha256(parser + b"".join(str(p).encode() + b"\0" + data for p, data in sources)).hexdigest()[:24]
    kept = ROOT / ".pytest_cache" / f"i18n-key-constants-{digest}.json"
    try:
        literals, heads = json.loads(kept.read_text(encoding="utf-8"))
        return set(literals), set(heads)
    except (OSError, ValueError):
        pass
    found = _parse_key_constants(sources)
    kept.parent.mkdir(parents=True, exist_ok=True)
    partial = kept.with_suffix(f".{os.getpid()}.tmp")
    partial.write_text(json.dumps([sorted(found[0]), sorted(found[1])]), encoding="utf-8")
    os.replace(partial, kept)  # (whole or not at all, for a worker reading it meanwhile)
    return found


def _parse_key_constants(sources: list[tuple[Path, bytes]]) -> tuple[set[str], set[str]]:
    literals: set[str] = set()
    heads: set[str] = set()
    looks_like_key = re.compile(r"^[a-z_]+\.[A-Za-z0-9_.\-]+$")
    for _, data in sources:
        tree = ast.parse(data.decode("utf-8"))
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


def _server_codes(pattern: str) -> set[str]:
    codes: set[str] = set()
    for path in (ROOT / "server").rglob("*.py"):
        codes |= set(re.findall(pattern, path.read_text(encoding="utf-8")))
    return codes


def played_words() -> dict[str, set[str]]:
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
    played = played_words()
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
        "stats.col.": set(re.findall(r'\("([a-z]+)", \d+\)', (ROOT / "tui/screens/stats.py").read_text())),
        # Señas: each one's name, and its gesture in each variant; the table option's modes.
        "sena_name.": {s.code for v in SENAS.values() for s in v},
        "sena_gesture.": {f"{name}.{s.code}" for name, v in SENAS.items() for s in v},
        "senas.mode.": {"fair", "private"},
        # Families of other parts of the TUI, checked where the code builds them.
        "log.": {"envido_puntos", "piedras"},  # a Venezuelan envite with its piedras
        "reason.declined.": set(RAISES),  # a refused raise, named in the points line
        # A raise said as the answer to the bet it raises ("Quiero retruco"); the others are
        # said alike either way (Brazilian "Seis"), and the Venezuelan "quiero y" forms are
        # its own (call.venezolano.answer.*).
        "call.answer.": {"retruco", "vale_cuatro"},
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
        # An operator's reports (tui/operator_report.py): their columns and flags.
        "operator.col.": set(re.findall(r'"([a-z]+)"', "".join(re.findall(
            r'tr\(f"operator\.col\.\{c\}"\) for c in \(([^)]*)\)', (ROOT / "tui/operator_report.py").read_text())))),
        "operator.": {"operator", "muted"},
        "hear.": {"everyone", "partners", "nobody"},  # a player's chat setting (tui/app.py)
        "proof.problem.": set(PROBLEMS),  # what a check of the deals found (tui/proof_text.py)
        # The operators' screen (tui/screens/operators.py): its lists, and what each action asks
        "operator.view.": set(VIEWS),
        "operator.reason_": set(REPORT_REASONS),
        "operator.empty.": set(VIEWS),
        "operator.ask.": {"ban", "mute", "ban_minutes", "mute_minutes"},
    }
    _, heads = key_constants()
    always = {"variant.", "option.", "option_help.", "value.", "call.", "reason.", "rule.", "error.",
              "notice.", "name.reason."}
    return {head: names for head, names in families.items() if head in always or head in heads}
