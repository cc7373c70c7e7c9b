"""Look-alike characters folded together, so that two names that look the same are one name.

A small table in the spirit of Unicode's confusables (UTS #39): Cyrillic, Greek and other
letters that render like Latin ones, and the digit/letter pairs people mistake in a
terminal font. Case is folded too, so "Аlice" (Cyrillic А) and "alice" collide.
"""
from __future__ import annotations

_SINGLE = {
    # Cyrillic
    "А": "A", "В": "B", "Е": "E", "К": "K", "М": "M", "Н": "H", "О": "O", "Р": "P", "С": "C",
    "Т": "T", "Х": "X", "У": "Y", "Ѕ": "S", "І": "l", "Ј": "J", "Ԛ": "Q", "Ԝ": "W", "Ү": "Y",
    "а": "a", "в": "b", "е": "e", "к": "k", "м": "m", "н": "h", "о": "o", "р": "p", "с": "c",
    "т": "t", "х": "x", "у": "y", "ѕ": "s", "і": "i", "ј": "j", "ԁ": "d", "ԛ": "q", "ԝ": "w",
    "һ": "h", "ӏ": "l", "ү": "y", "ɡ": "g", "ь": "b", "п": "n", "г": "r",
    # Greek
    "Α": "A", "Β": "B", "Ε": "E", "Ζ": "Z", "Η": "H", "Ι": "l", "Κ": "K", "Μ": "M", "Ν": "N",
    "Ο": "O", "Ρ": "P", "Τ": "T", "Υ": "Y", "Χ": "X", "ο": "o", "ν": "v", "ι": "i", "κ": "k",
    "ρ": "p", "τ": "t", "υ": "u", "χ": "x", "α": "a", "ε": "e",
    # Latin look-alikes and digits
    "ı": "i", "ȷ": "j", "ℓ": "l", "ł": "l", "ø": "o", "ð": "d", "ß": "ss",
    "0": "o", "1": "l", "|": "l", "5": "s",
}
_PAIRS = (("rn", "m"), ("vv", "w"), ("cl", "d"))
# Case is folded first, so the table needs only the lower-case forms (upper-case entries
# above document what they cover and are folded too).
_TABLE = str.maketrans({k.casefold(): v.casefold() for k, v in _SINGLE.items() if len(k.casefold()) == 1})


def skeleton(text: str) -> str:
    """``text`` case-folded, with every look-alike replaced by one representative."""
    folded = text.casefold().translate(_TABLE)
    for pair, single in _PAIRS:
        folded = folded.replace(pair, single)
    return folded
