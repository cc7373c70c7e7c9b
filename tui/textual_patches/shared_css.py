"""One parse of the stylesheets for every session in the process.

Each SSH session runs its own Textual App, and each App parses the same CSS (the app's
and every widget's DEFAULT_CSS) into its own rule sets: about a fifth of a session's
start-up CPU and a few hundred KB of memory per session, all identical. The parse only
depends on the CSS text, where it was read from, its flags and the theme variables, and
the rule sets are not changed after parsing, so they are shared here under exactly that
key. Textual 8.2.8 keeps a per-stylesheet cache of the same shape
(``Stylesheet._parse_rules``); this widens it to the process. Textual is pinned exactly
in pyproject.toml; tests/tui/test_shared_css.py checks the sharing and that a different
theme still gets its own rules.

Patched: ``textual.css.stylesheet.Stylesheet._parse_rules``.
Upstream would need: a process-wide (class-level) parse cache in ``Stylesheet``, keyed
as here, or a way to hand an App already-parsed rule sets.
"""
from __future__ import annotations

from typing import Any

from textual.css.stylesheet import Stylesheet

_textual_parse_rules = Stylesheet._parse_rules
_PARSED: dict[tuple[Any, ...], list[Any]] = {}
_MAX_ENTRIES = 4096  # a bound, not a working size: a few dozen sources x a few themes


# The theme's variables (a couple of hundred) as a small number: the same variables, the
# same number. Sorting and hashing them for each of a parse's few dozen sources was a tenth
# of a millisecond each, 2 ms of a session's start (py-spy over tests/bench/connect_bench.py).
_VARIABLES: dict[tuple[tuple[str, str], ...], int] = {}
_MEMO = "_truco_variables_token"  # on a Stylesheet: (its variables dict, generation, number)
_generation = 0  # both caches emptied: every number handed out before is forgotten


def _variables_token(stylesheet: Stylesheet) -> int:
    # Textual replaces a stylesheet's variables dict (set_variables), never changes it in place.
    memo = getattr(stylesheet, _MEMO, None)
    if memo is not None and memo[0] is stylesheet._variables and memo[1] == _generation:
        return int(memo[2])
    key = tuple(sorted(stylesheet._variables.items()))
    token = _VARIABLES.setdefault(key, len(_VARIABLES))
    setattr(stylesheet, _MEMO, (stylesheet._variables, _generation, token))
    return token


def _parse_rules(self: Stylesheet, css: str, read_from: Any, is_default_rules: bool = False,
                 tie_breaker: int = 0, scope: str = "") -> list[Any]:
    global _generation
    key = (css, read_from, is_default_rules, tie_breaker, scope, _variables_token(self))
    rules = _PARSED.get(key)
    if rules is None:
        rules = _textual_parse_rules(self, css, read_from, is_default_rules, tie_breaker, scope)
        if len(_PARSED) >= _MAX_ENTRIES or len(_VARIABLES) >= _MAX_ENTRIES:
            _PARSED.clear()
            _VARIABLES.clear()
            _generation += 1
            key = (*key[:-1], _variables_token(self))
        _PARSED[key] = rules
    return rules


def install() -> None:
    """Replace ``Stylesheet._parse_rules``; a second call changes nothing."""
    Stylesheet._parse_rules = _parse_rules  # type: ignore[method-assign]
