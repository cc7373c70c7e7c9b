"""Help text wraps under its descriptions (tui/widgets/hanging.py), and the help dialog is
as tall as what it shows."""
from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from rich.cells import cell_len
from textual.containers import VerticalScroll

from tests.tui.helpers import screen_text, until
from tests.tui.kit import lobby_with
from tui.i18n import Translator
from tui.screens.help import HelpScreen
from tui.widgets.hanging import MIN_TEXT, hang_column, hang_lines

WORDS = st.text(st.sampled_from("abcdeñáü"), min_size=1, max_size=12)
LINES = st.lists(st.tuples(st.integers(0, 4), st.lists(WORDS, min_size=1, max_size=6),
                           st.lists(WORDS, max_size=25)), min_size=1, max_size=6)


def compose(lines: list[tuple[int, list[str], list[str]]]) -> str:
    """Entries like the help's: an indent, a key column, two spaces or more, a description."""
    return "\n".join(" " * indent + " ".join(key) + ("   " + " ".join(words) if words else "")
                     for indent, key, words in lines)


@given(LINES, st.integers(20, 120))
def test_every_word_kept_in_order_and_no_line_too_wide(lines: list[tuple[int, list[str], list[str]]],
                                                        width: int) -> None:
    text = compose(lines)
    wrapped = hang_lines(text, width)
    assert " ".join(wrapped).split() == text.split()
    for line in wrapped:
        assert cell_len(line) <= width or " " not in line.strip(), (line, width)


@given(LINES, st.integers(40, 120))
def test_a_continuation_starts_under_its_description(lines: list[tuple[int, list[str], list[str]]],
                                                     width: int) -> None:
    for entry in compose(lines).split("\n"):
        column = hang_column(entry)
        if column + MIN_TEXT > width:
            continue  # too little room beside the key column: it hangs under the indent instead
        wrapped = hang_lines(entry, width)
        for line in wrapped[1:]:
            assert line[:column].strip() == "" and line[column:column + 1] != " ", (entry, line)


def test_a_line_the_text_continues_is_joined_then_wrapped_again() -> None:
    text = "  p       quick play: choose\n          the game\n  w       watch"
    assert hang_lines(text, 80) == ["  p       quick play: choose the game", "  w       watch"]


@pytest.mark.parametrize("lang", ["en", "es", "pt"])
@pytest.mark.parametrize("size", [(60, 20), (80, 24), (200, 50)])
async def test_the_help_dialog_hangs_its_lines_and_fits_them(lang: str, size: tuple[int, int]) -> None:
    app, _ = lobby_with(lang=lang)
    tr = Translator(lang)
    async with app.run_test(size=size) as pilot:
        await pilot.press("question_mark")
        await until(pilot, lambda: isinstance(app.screen, HelpScreen), "the help open")
        await pilot.pause()
        rows = screen_text(app).splitlines()
        quick = next(i for i, row in enumerate(rows) if "  p  " in row)
        column = rows[quick].index("  p  ") + hang_column(rows[quick][rows[quick].index("  p  "):])
        next_row = rows[quick + 1]
        assert next_row[column - 1] == " " and next_row[column] != " ", (rows[quick], next_row)
        box = app.screen.query_one("#help")
        scroll = app.screen.query_one(VerticalScroll)
        assert box.region.height <= scroll.region.height + 4  # frame, key bar and its margin
        assert tr("help.title") in screen_text(app)
