"""The host's table screen gives the whole ssh line that joins it (as `truco-ssh host`
printed it: address and port), whole on one row at every width and in every language."""
from __future__ import annotations

import pytest

import protocol as p
from server.lan.host import join_commands
from tui.i18n import Translator

from tests.tui.helpers import screen_text, until
from tests.tui.kit import lobby_with

SIZES = [(60, 20), (80, 24), (200, 50)]
PRIVATE = p.TableInfo(table_id="t1", title="los jueves", variant="argentino", owner="ana",
                      seats=("ana", None), options={}, status="waiting", bots=(False, False),
                      private=True)


def test_the_commands_are_the_invitations() -> None:
    assert join_commands("KCA6KL", ["192.168.1.20", "fe80::1"], 2300) == (
        "ssh -p 2300 KCA6KL@192.168.1.20", "ssh -p 2300 KCA6KL@[fe80::1]")
    assert join_commands("KCA6KL", [], 22) == ("ssh KCA6KL@127.0.0.1",)


@pytest.mark.parametrize("lang", ["en", "es", "pt"])
@pytest.mark.parametrize("size", SIZES)
async def test_the_host_sees_the_whole_join_command(lang: str, size: tuple[int, int]) -> None:
    app, link = lobby_with(PRIVATE, lang=lang, then=(p.Seated(table_id="t1", seat=0, code="KCA6KL"),))
    commands = join_commands("KCA6KL", ["192.168.1.20", "10.0.0.7"], 2300)
    app.join_commands = {"KCA6KL": commands}
    async with app.run_test(size=size) as pilot:
        await until(pilot, lambda: commands[-1] in screen_text(app), "the join commands",
                    seen=lambda: screen_text(app))
        rows = [row.strip() for row in screen_text(app).splitlines()]
        for command in commands:
            assert command in rows  # whole, on a row of its own
        assert "KCA6KL@…" not in screen_text(app)
        said = Translator(lang)("table.code_how_commands")
        assert said.split()[0] in screen_text(app)


async def test_a_session_without_the_address_says_where_the_code_goes() -> None:
    app, link = lobby_with(PRIVATE, then=(p.Seated(table_id="t1", seat=0, code="KCA6KL"),))
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: "ssh KCA6KL@…" in screen_text(app), "where the code goes",
                    seen=lambda: screen_text(app))
