"""The key bar never loses a key: where one line is too narrow (the lobby at 60 columns)
it breaks between keys onto a second line, and a key is never split from its words."""
from __future__ import annotations

import pytest

from tests.tui.helpers import screen_text
from tests.tui.kit import lobby_app
from tui.widgets.keybar import key_line


def test_key_line_breaks_between_keys_only() -> None:
    pairs = [("n", "Nueva"), ("j", "Entrar"), ("?", "Ayuda"), ("q", "Salir")]
    assert key_line(pairs).plain == "n Nueva  j Entrar  ? Ayuda  q Salir"
    assert key_line(pairs, 20).plain == "n Nueva  j Entrar\n? Ayuda  q Salir"


@pytest.mark.parametrize("lang", ["en", "es", "pt"])
async def test_the_lobby_key_bar_keeps_every_key_at_60_columns(lang: str) -> None:
    app, _link = await lobby_app(lang=lang)
    async with app.run_test(size=(60, 20)) as pilot:
        await pilot.pause(0.3)
        bar = app.screen.query_one("#lobby-keys" if app.screen.query("#lobby-keys") else "KeyBar")
        rows = screen_text(app).splitlines()[bar.region.y:bar.region.bottom]
        shown = " ".join(rows)
        for key in ("n ", "j ", "p ", "s ", "t ", "? ", "q "):
            assert key in shown, (key, rows)
        assert bar.region.height <= 3 and bar.region.bottom <= 20  # every key, on at most three rows
