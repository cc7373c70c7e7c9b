"""The one translation function every user-facing string goes through.

Catalogs are JSON files in ``tui/locales``; a key missing from a language falls
back to English, then to the key itself (so a missing string is visible, not a crash).
Game calls (truco, envido, quiero...) keep their traditional words in every language.

Plurals: a key may have ``KEY.one`` and ``KEY.other`` twins, used when the count (the value
``n``, else ``points``) is 1 or not, so "Falta 1 jugador" and "Faltan 2 jugadores" both read
right (``KEY`` itself stays for any other use).
"""
from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any, Mapping, Sequence

LOCALES = Path(__file__).parent / "locales"
LANGUAGES: dict[str, str] = {"en": "English", "es": "Español", "pt": "Português"}
DEFAULT_LANGUAGE = "en"


@cache
def _catalog(lang: str) -> dict[str, str]:
    path = LOCALES / f"{lang}.json"
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}


class Translator:
    def __init__(self, lang: str = DEFAULT_LANGUAGE) -> None:
        self.lang = lang if lang in LANGUAGES else DEFAULT_LANGUAGE

    def __call__(self, key: str, **values: Any) -> str:
        count = _count(values)
        if count is not None:
            form = f"{key}.one" if count == 1 else f"{key}.other"
            key = form if self.has_default(form) else key
        text = _catalog(self.lang).get(key) or _catalog(DEFAULT_LANGUAGE).get(key) or key
        return text.format(**values) if values else text

    def has(self, key: str) -> bool:
        return key in _catalog(self.lang)

    def has_default(self, key: str) -> bool:
        return key in _catalog(DEFAULT_LANGUAGE)


def names_said(tr: Translator, names: Sequence[str]) -> str:
    """Names as a sentence lists them: "Bot 1 y Bot 3", "ana, beto and Bot 2"."""
    if len(names) < 2:
        return "".join(names)
    return tr("table.pair", a=", ".join(names[:-1]), b=names[-1])


def _count(values: Mapping[str, Any]) -> object:
    return values.get("n", values.get("points"))


def option_label(tr: Translator, name: str, fallback: str) -> str:
    """A table option's name in the player's language (the catalog's English for an unknown one)."""
    key = f"option.{name}"
    return tr(key) if tr.has_default(key) else fallback


def option_help(tr: Translator, variant: str, name: str, fallback: str) -> str:
    """What a table option means, for this variant (the same name means different things)."""
    key = f"option_help.{variant}.{name}"
    return tr(key) if tr.has_default(key) else fallback


def option_value(tr: Translator, value: object) -> str:
    """A table option's value as a player reads it: yes/no, a word, or the number."""
    if isinstance(value, bool):
        return tr("form.yes") if value else tr("form.no")
    key = f"value.{value}"
    return tr(key) if isinstance(value, str) and tr.has_default(key) else str(value)


def language_from_env(env: Mapping[str, str]) -> str:
    """The language a client's locale asks for (LC_ALL, LC_MESSAGES, LANG), else English."""
    for var in ("LC_ALL", "LC_MESSAGES", "LANG"):
        value = env.get(var, "")
        if value and value not in ("C", "POSIX") and not value.startswith("C."):
            code = value.split(".")[0].split("_")[0].split("@")[0].lower()
            return code if code in LANGUAGES else DEFAULT_LANGUAGE
    return DEFAULT_LANGUAGE


def next_language(lang: str) -> str:
    codes = list(LANGUAGES)
    return codes[(codes.index(lang) + 1) % len(codes)] if lang in codes else DEFAULT_LANGUAGE
