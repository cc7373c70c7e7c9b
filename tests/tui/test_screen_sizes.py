"""The lobby, the New-table form and the help at 60x20, 80x24 and 200x50 in every
language, with 16-character names: what a player reads there is whole and on screen."""
from __future__ import annotations

import pytest
from textual.containers import VerticalScroll
from textual.widgets import Button, Label, Static

import protocol as p
from tui.app import TrucoApp
from tui.i18n import Translator
from tui.screens.help import HelpScreen
from tui.screens.lobby import LobbyScreen
from tui.screens.new_table import NewTableScreen

from tests.tui.table_states import LONG_NAMES
from tests.tui.helpers import screen_text
from tests.tui.kit import FakeLink, welcome

SIZES = [(60, 20), (80, 24), (200, 50)]
LANGS = ["en", "es", "pt"]
TABLE = p.TableInfo(table_id="t1", title="la mesa larga de los sábados", variant="argentino",
                    owner=LONG_NAMES[1], seats=(LONG_NAMES[1], None), options={"target": 15})


def on_screen(app: TrucoApp, widget_id: str) -> str:
    region = app.screen.query_one(widget_id).region
    assert region.right <= app.size.width and region.bottom <= app.size.height, widget_id
    lines = screen_text(app).split("\n")
    return "\n".join(line[region.x:region.right] for line in lines[region.y:region.bottom])


async def started(lang: str) -> tuple[TrucoApp, FakeLink]:
    link = FakeLink()
    app = TrucoApp(link, LONG_NAMES[0], lang)
    link.push(*welcome(LONG_NAMES[0]), p.TableUpdated(table=TABLE))
    return app, link


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("lang", LANGS)
async def test_lobby_names_and_the_table_line_are_whole(lang: str, size: tuple[int, int]) -> None:
    app, link = await started(lang)
    async with app.run_test(size=size) as pilot:
        await pilot.pause(0.5)
        assert isinstance(app.screen, LobbyScreen)
        assert LONG_NAMES[0] in on_screen(app, "#players")
        assert LONG_NAMES[0] in on_screen(app, "#title-bar")
        # The selected table's line keeps its end (it wraps on a narrow terminal).
        described = str(app.screen.query_one("#status-line", Static).render())
        assert TABLE.title in described  # the line about the selected table...
        assert on_screen(app, "#status-line").split() == described.split()  # ...shown whole


FINISHED_PRIVATE = p.TableInfo(table_id="t3", title="y", variant="paulista", owner="y", private=True,
                               status="finished", seats=("y", "z"), options={})
PLAYING_PRIVATE = p.TableInfo(table_id="t2", title="x", variant="venezolano", owner="x", private=True,
                              status="playing", seats=("x", "y", "z", "w"), options={})


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("lang", LANGS)
async def test_lobby_table_list_keeps_game_seats_and_status_whole(lang: str, size: tuple[int, int]) -> None:
    app, link = await started(lang)
    link.push(p.TableUpdated(table=PLAYING_PRIVATE), p.TableUpdated(table=FINISHED_PRIVATE))
    tr = Translator(lang)
    async with app.run_test(size=size) as pilot:
        await pilot.pause(0.5)
        shown = on_screen(app, "#tables")
        for word in (tr("lobby.col.game"), tr("lobby.col.seats"), tr("lobby.col.status"),
                     tr("variant.argentino"), "1/2", tr("lobby.private_waiting"),
                     tr("variant.venezolano"), "4/4"):
            assert word in shown, (word, shown)
        # A status is whole: "playing (private)", or on a narrow list just "private".
        assert shown.count("(") == shown.count(")"), shown
        if size[0] >= 80:  # the points column goes first when the room runs out
            assert tr("lobby.col.points") in shown and "15" in shown
            assert tr("lobby.table_status.playing") in shown and tr("lobby.table_status.finished") in shown
        # The selected table's line always names its points.
        assert "15" in on_screen(app, "#status-line")


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("lang", LANGS)
async def test_new_table_form_labels_and_buttons_are_whole(lang: str, size: tuple[int, int]) -> None:
    app, link = await started(lang)
    async with app.run_test(size=size) as pilot:
        await pilot.pause(0.3)
        await pilot.press("n")
        await pilot.pause(0.3)
        assert isinstance(app.screen, NewTableScreen)
        text = screen_text(app)
        lines = text.split("\n")
        for label in app.screen.query(".form-label").results(Label):
            region = label.region
            if region.height and region.bottom <= len(lines):  # the options scroll; the ones in view are whole
                # (an option's label wraps at 60 columns rather than cut its value)
                shown = " ".join(line[region.x:region.right] for line in lines[region.y:region.bottom])
                assert " ".join(str(label.render()).split()) == " ".join(shown.split())
        for button in app.screen.query(Button):
            assert button.region.height and button.region.right <= size[0]
            assert str(button.label) in text
        assert Translator(lang)("form.create") in text


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("lang", LANGS)
async def test_help_fits_and_scrolls_to_its_end(lang: str, size: tuple[int, int]) -> None:
    app, link = await started(lang)
    async with app.run_test(size=size) as pilot:
        await pilot.pause(0.3)
        await pilot.press("question_mark")
        await pilot.pause(0.3)
        assert isinstance(app.screen, HelpScreen)
        tr = Translator(lang)
        assert tr("help.title") in on_screen(app, "#help")
        body = app.screen.query_one(VerticalScroll)
        body.scroll_end(animate=False)
        await pilot.pause(0.2)
        last_words = tr("help.stats").split()[-2:]  # the help's last part (tui/screens/help.py)
        shown = on_screen(app, "#help")
        assert " ".join(last_words) in " ".join(shown.replace("│", " ").split())
        assert tr("key.close") in shown  # the key bar under the text, inside the screen
