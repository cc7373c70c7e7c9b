"""What a leaver is told (issue 34), in the player's language: before leaving (the leave
dialog says what leaving rated matches costs), after (this leave's wait and the next one's),
and when a wait refuses a seat."""
from __future__ import annotations

import dataclasses

import protocol as p
from tui.screens.table_dialogs import ConfirmLeaveScreen

from tests.tui.helpers import screen_text, toasts, until
from tests.tui.kit import FakeLink, lobby_with, seated_app, table_shown, two_player_state, update_for, variant_info


async def test_the_leave_notices_and_the_wait_are_said_in_spanish() -> None:
    app, link = lobby_with(lang="es")
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await pilot.pause(0.2)
        link.push(p.Notice(code="left_rated", text=f"0 {p.LEAVER_WAITS[0]}"))
        await pilot.pause(0.2)
        assert any("Si dejás otro hoy, vas a esperar 5 min" in t for t in toasts(app)), toasts(app)
        link.push(p.Notice(code="left_rated", text="5 15"))
        await pilot.pause(0.2)
        assert any("Podés volver a jugar con gente en 5 min; si dejás otro hoy, serían 15 min" in t
                   for t in toasts(app)), toasts(app)
        link.push(p.Error(code="leaver_wait", message="x", reason="4"))
        await pilot.pause(0.2)
        assert any("podés volver a jugar con gente en 4 min" in t for t in toasts(app)), toasts(app)


async def test_the_leave_dialog_says_the_waits_before_anyone_leaves() -> None:
    app, _ = lobby_with(lang="pt")
    async with app.run_test(size=(60, 20)) as pilot:
        await pilot.pause(0.2)
        app.push_screen(ConfirmLeaveScreen())
        await pilot.pause(0.2)
        text = screen_text(app)  # whole at 60x20, wrapped in the dialog's frame
        assert "5 min para jogar com gente de novo (depois 15," in text and "60)." in text, text


async def _leave_dialog_text(rated: bool) -> str:
    """What the leave dialog says to ana at a 2-seat table in play, rated or not."""
    state, events, seat = two_player_state()[1], [], 0
    link = FakeLink()
    app = await seated_app(link, seat, table=dataclasses.replace(variant_info("argentino"), rated=rated))
    async with table_shown(app, link, update_for(state, seat, 2, events), size=(60, 20)) as pilot:
        await pilot.press("l")
        await until(pilot, lambda: isinstance(app.screen, ConfirmLeaveScreen), "the leave question")
        await pilot.pause()
        rows = (row.split("│")[1] if row.count("│") >= 2 else "" for row in screen_text(app).splitlines())
        return " ".join(" ".join(rows).split())  # the dialog's words, its lines joined


async def test_the_leave_dialog_speaks_of_waits_only_at_a_rated_table() -> None:
    # A bot or a guest at the table: leaving is no loss, and no wait follows (server/lobby/leavers.py).
    unrated = await _leave_dialog_text(rated=False)
    assert "A bot plays your seat until the match ends." in unrated and "rated" not in unrated, unrated
    rated = await _leave_dialog_text(rated=True)
    assert "Leaving a rated match is a loss" in rated and "5 min" in rated, rated
