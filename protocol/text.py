"""Cleaning of untrusted text: names, chat lines, table titles.

Everything a client types passes through here before anyone else sees it, so
that no byte chosen by one player can act as a terminal control sequence, a
bidi trick or an invisible character on another player's screen.
"""
from __future__ import annotations

import re
import unicodedata

from protocol.confusables import skeleton

# Categories never shown: controls (C0, C1, DEL), format (bidi overrides,
# zero-width joiners), surrogates, private use, unassigned, line/paragraph
# separators.
_DROPPED_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})
_SPACES = re.compile(r"\s+")
NAME_MIN, NAME_MAX = 1, 16
_NAME_PUNCTUATION = frozenset("_.-")

# Default usernames of SSH clients and system accounts: nobody means these as
# a display name, so the player is asked to choose one.
RESERVED_NAMES = frozenset(
    {
        "root", "admin", "administrator", "user", "ubuntu", "debian", "pi", "guest",
        "ec2-user", "git", "nobody", "anonymous", "system", "server", "truco", "test",
        "operator", "sysadmin", "support", "centos", "fedora", "vagrant", "oracle",
    }
)
RESERVED_KEYS = frozenset(skeleton(n) for n in RESERVED_NAMES)


def clean_text(text: str, max_len: int) -> str:
    """One line of visible text: normalised, controls dropped, spaces folded, capped."""
    text = unicodedata.normalize("NFC", text)
    kept = []
    for ch in text:
        if ch in "\t\r\n":
            kept.append(" ")
        elif unicodedata.category(ch) not in _DROPPED_CATEGORIES:
            kept.append(ch)
    return _SPACES.sub(" ", "".join(kept)).strip()[:max_len].rstrip()


def _name_char_ok(ch: str) -> bool:
    if ch in _NAME_PUNCTUATION:
        return True
    category = unicodedata.category(ch)
    return category.startswith("L") or category == "Nd"


def valid_name(name: str) -> bool:
    """Letters, digits and ``_ . -``, 1 to 16 characters, already in NFC."""
    return (
        NAME_MIN <= len(name) <= NAME_MAX
        and unicodedata.normalize("NFC", name) == name
        and all(_name_char_ok(ch) for ch in name)
    )


def name_key(name: str) -> str:
    """What two names must not share: case, compatibility forms and look-alikes folded."""
    return skeleton(unicodedata.normalize("NFKC", name))


def usable_name(name: str) -> bool:
    return valid_name(name) and name_key(name) not in RESERVED_KEYS


def name_stem(raw: str) -> str:
    """The best valid name hidden in ``raw`` (possibly empty): bad characters dropped."""
    text = unicodedata.normalize("NFC", raw)
    return "".join(ch for ch in text if _name_char_ok(ch))[:NAME_MAX]
