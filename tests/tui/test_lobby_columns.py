"""The lobby's table list shares its width: whole columns, the title takes the rest up to
its own width (a wide terminal leaves the room over after the columns)."""
from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from tui.lobby_columns import TITLE_MIN, fit_columns

NATURAL = {"title": 30, "game": 11, "seats": 7, "points": 3, "status": 17}


def total(fit) -> int:  # type: ignore[no-untyped-def]
    return sum(fit.widths.values()) + 2 * fit.padding * len(fit.widths)


def test_wide_lists_keep_every_column_with_padding() -> None:
    fit = fit_columns(NATURAL, 76)
    assert fit.padding == 1 and list(fit.widths) == list(NATURAL)
    assert fit.widths["title"] == 76 - (11 + 7 + 3 + 17) - 2 * 5  # short of its 30: the rest
    assert total(fit) == 76


def test_a_wide_list_fits_the_columns_to_their_contents() -> None:
    fit = fit_columns(NATURAL, 176)  # the lobby at 200 columns: no 130-column title
    assert fit.padding == 1 and fit.widths == NATURAL
    assert total(fit) == sum(NATURAL.values()) + 10 < 176


def test_narrow_lists_lose_the_padding_then_the_points() -> None:
    fit = fit_columns(NATURAL, 55)
    assert fit.padding == 0 and "points" in fit.widths
    assert fit.text_width("game") == 11 and fit.text_width("status") == 17  # a gap after each but the last
    fit = fit_columns(NATURAL, 48)
    assert "points" not in fit.widths and fit.widths["title"] >= TITLE_MIN


@given(st.integers(min_value=30, max_value=300),
       st.dictionaries(st.sampled_from(["game", "seats", "points", "status"]), st.integers(1, 20)))
def test_columns_other_than_the_title_are_never_cut(available: int, sizes: dict[str, int]) -> None:
    natural = {**NATURAL, **sizes}
    fit = fit_columns(natural, available)
    for column, width in fit.widths.items():
        if column != "title":
            assert fit.text_width(column) == natural[column]
    if fit.widths["title"] >= TITLE_MIN:
        assert total(fit) <= available
        assert total(fit) == available or fit.widths["title"] - (fit.padding == 0) == natural["title"]
