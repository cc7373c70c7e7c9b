"""The input parser's cache of key sequences keeps no session alive
(tui/textual_patches/key_parse_cache.py): a parser and the App whose keys it read are freed
when the session lets them go, and every sequence parses as Textual parses it."""
from __future__ import annotations

import contextvars
import gc
import weakref

import pytest
from textual._context import active_message_pump

from tui.textual_private import XTermParser
from tui.textual_patches import key_parse_cache

# Plain keys, arrows, a function key, and the kitty keyboard protocol's forms (a modifier, a
# functional key, text with its code points).
SEQUENCES = ("a", "\x1b[A", "\x1b[1;5C", "\x1b[15~", "\x1b[97;5u", "\x1b[13u", "\x1b[97;2;65u",
             "\x1b[57399u", "\x1b[27u", "not a sequence")


class _Sender:
    """Stands for the App in whose context a session's keys are read."""


def _read_in_a_session(parser: XTermParser, sender: _Sender, data: str) -> list[str]:
    def read() -> list[str]:
        active_message_pump.set(sender)  # what a session's context holds while it reads
        return [event.key for event in parser.feed(data)]
    return contextvars.Context().run(read)


def test_a_parser_and_its_app_are_freed_after_the_keys_are_read() -> None:
    sender, parser = _Sender(), XTermParser(False)
    assert _read_in_a_session(parser, sender, "a\x1b[A\x1b[97;5u") == ["a", "up", "ctrl+a"]
    parser_gone, sender_gone = weakref.ref(parser), weakref.ref(sender)
    del parser, sender
    gc.collect()
    # Textual's own cache held the parser in its keys, and the parser the last key read,
    # whose sender is the session's App: both stayed, for up to 1024 sequences.
    assert parser_gone() is None
    assert sender_gone() is None


def test_cached_events_name_no_sender() -> None:
    sender = _Sender()
    _read_in_a_session(XTermParser(False), sender, "\x1b[1;5C")
    cached = key_parse_cache.parse_sequence("\x1b[1;5C")
    assert cached and all(event._sender is None for event in cached)


@pytest.mark.parametrize("sequence", SEQUENCES)
def test_every_sequence_parses_as_textual_parses_it(sequence: str) -> None:
    ours = XTermParser(False)._parse_extended_key(sequence)
    textuals = key_parse_cache._original(XTermParser(False), sequence)
    assert (ours is None) == (textuals is None)
    if ours is not None:
        assert [(k.key, k.character) for k in ours] == [(k.key, k.character) for k in textuals]


def test_the_method_is_replaced() -> None:
    assert XTermParser._parse_extended_key is key_parse_cache._parse_extended_key
