"""ASCII output for terminals without UTF-8 (server/session/ascii_out.py)."""
from __future__ import annotations

from hypothesis import given, strategies as st
from rich.cells import cell_len

from server.session.ascii_out import to_ascii, wants_ascii


def test_only_a_plain_terminal_without_a_utf8_locale_gets_ascii() -> None:
    assert wants_ascii("vt100", {})
    assert wants_ascii("vt220", {"LANG": "es_AR.ISO-8859-1"})
    assert not wants_ascii("vt100", {"LANG": "es_AR.UTF-8"})
    assert not wants_ascii("vt100", {"LC_ALL": "en_US.utf8", "LANG": "C"})
    assert not wants_ascii("xterm-256color", {})


def test_screen_characters_become_ascii_of_the_same_width() -> None:
    assert to_ascii("Salón · Mesas ▼ 1ª ╭─┤│╰ ▃▋") == "Salon - Mesas v 1. +-+|+ ##"
    assert to_ascii("\x1b[1mPeñarol\x1b[0m") == "\x1b[1mPenarol\x1b[0m"  # escapes untouched
    assert to_ascii("名字") == "????"  # two wide characters keep their four cells
    assert to_ascii("plain ascii") == "plain ascii"


@given(st.text())
def test_any_text_becomes_ascii_that_fills_the_same_cells(text: str) -> None:
    out = to_ascii(text)
    assert out.isascii()
    printable = "".join(c for c in text if c.isprintable())
    assert cell_len(to_ascii(printable)) == cell_len(printable)
