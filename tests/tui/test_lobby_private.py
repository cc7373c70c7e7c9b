"""A private table's mark is seen in the lobby's status column at 80 columns (it was cut:
"esperando (privada)" does not fit, and the table list showed "esperando…")."""
from __future__ import annotations

import pytest

import protocol as p

from tests.tui.helpers import screen_text
from tests.tui.kit import lobby_app


@pytest.mark.parametrize(("lang", "word"), [("en", "private"), ("es", "privada"), ("pt", "privada")])
async def test_a_waiting_private_table_says_private_in_the_lobby(lang: str, word: str) -> None:
    app, link = await lobby_app(lang=lang)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause(0.1)
        link.push(p.TableUpdated(table=p.TableInfo(
            table_id="t1", title="la mesa", variant="argentino", owner="beto", seats=("beto", None),
            options={}, private=True, status="waiting")))
        link.push(p.TableUpdated(table=p.TableInfo(
            table_id="t2", title="abierta", variant="argentino", owner="carla", seats=("carla", None),
            options={}, status="waiting")))
        await pilot.pause(0.2)
        rows = screen_text(app).splitlines()
        private = next(r for r in rows if "la mesa" in r)
        public = next(r for r in rows if "abierta" in r)
        assert f" {word} " in private and "…" not in private
        assert word not in public


@pytest.mark.parametrize(("lang", "full", "waiting"), [("en", "full", "waiting"), ("es", "completa", "esperando"),
                                                       ("pt", "cheia", "esperando")])
async def test_a_full_waiting_room_says_full_in_the_lobby(lang: str, full: str, waiting: str) -> None:
    """Every seat taken, the game not started (its creator has not pressed Enter): j cannot
    seat anyone there, so the lobby does not call it waiting."""
    app, link = await lobby_app(lang=lang)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause(0.1)
        link.push(p.TableUpdated(table=p.TableInfo(
            table_id="t1", title="sala llena", variant="argentino", owner="beto",
            seats=("beto", "ana", "Bot 1", "carla"), options={}, status="waiting", owner_starts=True)))
        link.push(p.TableUpdated(table=p.TableInfo(
            table_id="t2", title="con lugar", variant="argentino", owner="dani",
            seats=("dani", None, None, None), options={}, status="waiting", owner_starts=True)))
        await pilot.pause(0.2)
        rows = screen_text(app).splitlines()
        assert f" {full}" in next(r for r in rows if "sala llena" in r and "│" in r)  # the list, not the line above
        assert f" {waiting}" in next(r for r in rows if "con lugar" in r and "│" in r)
