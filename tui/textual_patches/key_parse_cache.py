"""The input parser's cache of key sequences keeps no session alive.

Textual 8.2.8's ``XTermParser._parse_extended_key`` is an ``lru_cache(maxsize=1024)`` on a
method: every key holds the parser it was called on, and every key sequence a session
types (plain letters included) goes through it. A parser holds its parse generator, whose
frame holds the last key event read, and a key event holds the App that made it (Textual's
message sender): so up to 1024 closed sessions, each with its whole widget tree and
rendered lines, stayed alive after their players left. In the load bench (25 tables)
24 closed Apps were still there after every player had gone; every full pass of the
garbage collector walked them (docs/DEVELOPMENT.md, "The collector's pauses").

Here the parse is cached by the sequence alone (the result never depended on the parser:
it reads the sequence and a pure helper), and the cached key events are made outside any
App's context, so they name no sender. Textual copies a cached event before it yields it,
as it did.

Patched: ``textual._xterm_parser.XTermParser._parse_extended_key``.
Upstream would need: a module-level cache keyed by the sequence, made without a sender.
"""
from __future__ import annotations

import contextvars
from functools import lru_cache
from typing import Any

from textual import events

from tui.textual_private import XTermParser

#: Distinct sequences kept (Textual's bound, now for every session together).
SEQUENCES_KEPT = 1024

_original: Any = None
_parser: Any = None  # one parser that parses for the cache, never fed any input


@lru_cache(SEQUENCES_KEPT)
def parse_sequence(sequence: str) -> list[events.Key] | None:
    """Textual's parse of one key sequence, its events made with no App as their sender."""
    return contextvars.Context().run(_original, _parser, sequence)  # type: ignore[no-any-return]


def _parse_extended_key(self: XTermParser, sequence: str) -> list[events.Key] | None:
    return parse_sequence(sequence)


def install() -> None:
    """Replace the method; a second call changes nothing."""
    global _original, _parser
    if _original is not None:
        return
    cached = XTermParser._parse_extended_key
    cached.cache_clear()  # (anything cached before the patch is let go)
    _original = cached.__wrapped__
    _parser = XTermParser(False)
    XTermParser._parse_extended_key = _parse_extended_key  # type: ignore[method-assign,assignment]
