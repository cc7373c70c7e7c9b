"""The New-table form with the real variant catalog: every option's chosen value is
whole on screen, at 60x20 too, in every language (QA: `quem deu perde o jogo` was cut
to `quem deu`, `francês, 28 cartas` to `francês, 28`, at 60x20)."""
from __future__ import annotations

import pytest
from textual.containers import VerticalScroll
from textual.widgets import Label, Select

import engine
import protocol as p
from tui.i18n import Translator, option_value
from tui.screens.new_table import NewTableScreen

from tests.tui.helpers import screen_text
from tests.tui.kit import lobby_with

SIZES = [(60, 20), (80, 24), (200, 50)]  # (80x24: see CASES)


def catalog() -> tuple[p.VariantInfo, ...]:
    return tuple(
        p.VariantInfo(name=v.name, title=v.title, player_counts=tuple(v.player_counts),
                      options=tuple(p.OptionInfo(name=o.name, label=o.label, kind=o.kind, default=o.default,
                                                 choices=tuple(o.choices), help=o.help) for o in v.options),
                      implemented=v.implemented)
        for v in engine.variant_catalog())


def words(text: str) -> str:
    return " ".join(text.replace("│", " ").split())


# Every language where the form is tightest, and the widest layout in the language of the
# longest words; at 80x24 every choice of every option is checked in each language
# (tests/tui/test_i18n_walk.py, test_every_option_label_and_value_fits_the_form_at_80x24).
CASES = [("en", SIZES[0]), ("es", SIZES[0]), ("pt", SIZES[0]), ("pt", SIZES[2])]


@pytest.mark.parametrize(("lang", "size"), CASES, ids=[f"{lang}-{w}x{h}" for lang, (w, h) in CASES])
async def test_every_option_label_and_value_is_whole(lang: str, size: tuple[int, int]) -> None:
    variants = catalog()
    app, link = lobby_with(lang=lang, variants=variants)
    tr = Translator(lang)
    async with app.run_test(size=size) as pilot:
        await pilot.pause(0.3)
        await pilot.press("n")
        await pilot.pause(0.3)
        assert isinstance(app.screen, NewTableScreen)
        timer = app.screen.query_one("#turn_timer", Select)
        lines = screen_text(app).split("\n")
        region = timer.region
        assert words(tr("form.timer_default")) in words(
            "\n".join(line[region.x:region.right] for line in lines[region.y:region.bottom]))
        for variant in (v for v in variants if v.implemented):
            app.screen.query_one("#variant", Select).value = variant.name
            await pilot.pause(0.3)
            scroll = app.screen.query_one("#options", VerticalScroll)
            for row in scroll.query(".form-row"):
                select = row.query_one(Select)
                label = row.query_one(Label)
                # A loaded machine may take a few frames to lay out the options of the variant
                # just chosen, and a scroll asked for before that lands on the old layout: ask
                # again each frame and read until the row is drawn where the layout says (or
                # give up and report it).
                for _ in range(200):
                    scroll.scroll_to_widget(row, animate=False)
                    await pilot.pause(0.05)
                    value = option_value(tr, select.value)
                    lines = screen_text(app).split("\n")

                    def shown(region) -> str:  # type: ignore[no-untyped-def]
                        return words("\n".join(line[region.x:region.right] for line in lines[region.y:region.bottom]))

                    label_shown, select_shown = shown(label.region), shown(select.region)
                    if words(str(label.render())) == label_shown and words(value) in select_shown:
                        break
                # The label may wrap on a narrow terminal; neither it nor the value is cut.
                assert words(str(label.render())) == label_shown, (variant.name, label_shown)
                assert words(value) in select_shown, (variant.name, value, select_shown)
