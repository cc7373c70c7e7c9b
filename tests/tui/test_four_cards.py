"""The 3-player Uruguayan mano holds four cards until he discards one: all four are drawn
(the hand panel is sized for three and must not cut the fourth)."""
from __future__ import annotations

import engine
from engine.testing import scenario
from tests.tui.helpers import screen_text
from tests.tui.kit import table_shown, update_for, variant_app


async def test_the_solo_mano_sees_all_four_cards() -> None:
    # Dealer 2, so seat 0 is the mano playing alone, with four cards; the 11e is a pieza (muestra 10e).
    state, _ = scenario({0: "6o 7b 1o 11e"}, n=3, dealer=2, variant="uruguayo", face_up="10e", flor=False)
    assert len(engine.view(state, 0).own_cards) == 4
    app, link = await variant_app(state, 0, "uruguayo", lang="es")
    async with table_shown(app, link, update_for(state, 0, 3, names=("ana", "beto", "carla"))):
        text = screen_text(app)
        for top in ("│6   O│", "│7   B│", "│1   O│", "│11  E│"):
            assert top in text, text
        assert "   4" in text  # the fourth card's key under it
