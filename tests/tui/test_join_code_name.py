"""`ssh CODE@host`: the name screen says which table the player is joining and does not
offer the code as their name."""
from __future__ import annotations

import pytest
from textual.widgets import Input

import protocol as p
from tui.app import TrucoApp
from tui.i18n import Translator
from tui.screens.choose_name import ChooseNameScreen

from tests.tui.helpers import screen_text
from tests.tui.kit import FakeLink


@pytest.mark.parametrize("lang", ["en", "es", "pt"])
async def test_the_name_screen_of_a_join_link(lang: str) -> None:
    link = FakeLink()
    app = TrucoApp(link, "k7m2qx", lang)
    link.push(p.NameRefused(name="K7M2QX", reason="join_code"))
    async with app.run_test(size=(60, 20)) as pilot:
        await pilot.pause(0.3)
        assert link.sent[0] == p.ClaimName(name="k7m2qx", lang=lang)  # the server decides
        assert isinstance(app.screen, ChooseNameScreen)
        said = Translator(lang)("name.reason.join_code", name="K7M2QX")
        assert " ".join(said.split()) in " ".join(screen_text(app).replace("│", " ").split())
        box = app.screen.query_one(Input)
        assert box.value == ""  # the code is no name to suggest
        await pilot.press(*"beto", "enter")
        await pilot.pause(0.1)
        assert link.sent[-1] == p.ClaimName(name="beto", lang=lang)
