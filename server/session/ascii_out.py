"""Output for terminals that cannot show UTF-8: every character becomes ASCII of the same width.

A terminal that says it is a vt100 (or dumb, vt220...) and whose locale does not say UTF-8
would print the bytes of "·", "ñ" or a box corner as garbage and lose its place on the
line. Such sessions get the same screen with each non-ASCII character replaced by ASCII
that takes as many cells as Textual laid out for it: letters lose their accents, lines and
blocks become - | + #, a wide character becomes two "?", a zero-width one disappears.
Escape sequences are ASCII already, so they pass through untouched.
"""
from __future__ import annotations

import unicodedata
from functools import lru_cache
from typing import Mapping

from rich.cells import cell_len

PLAIN_TERMS = ("dumb", "vt100", "vt102", "vt220", "vt52")  # no colour, no UTF-8 line drawing

_NAMED = {
    "·": "-", "•": "*", "…": ".", "ª": ".", "º": ".", "▼": "v", "▲": "^", "▶": ">", "◀": "<",
    "■": "#", "□": "#", "“": '"', "”": '"', "‘": "'", "’": "'", "–": "-", "—": "-", "¡": "!",
    "¿": "?", "⏱": "T", "→": ">", "←": "<", "×": "x", "★": "*",
}


def wants_ascii(term: str, env: Mapping[str, str]) -> bool:
    """A plain terminal type, and a locale that does not promise UTF-8."""
    if term not in PLAIN_TERMS:
        return False
    for var in ("LC_ALL", "LC_CTYPE", "LANG"):
        value = env.get(var, "")
        if value:
            return "utf-8" not in value.lower() and "utf8" not in value.lower()
    return True


@lru_cache(maxsize=4096)
def _ascii(char: str) -> str:
    width = cell_len(char)
    if width == 0:
        return ""
    if char in _NAMED:
        return _NAMED[char]
    base = unicodedata.normalize("NFKD", char).encode("ascii", "ignore").decode()
    if len(base) == 1 and width == 1:
        return base
    name = unicodedata.name(char, "")
    if "BOX DRAWINGS" in name:
        if " AND " in name or "ARC" in name:  # corners and junctions
            return "+"
        if "HORIZONTAL" in name:
            return "-"
        if "VERTICAL" in name:
            return "|"
        return "+"
    if "BLOCK" in name or "SHADE" in name:
        return "#"
    return "?" * width


def to_ascii(text: str) -> str:
    if text.isascii():
        return text
    return "".join(c if c.isascii() else _ascii(c) for c in text)
