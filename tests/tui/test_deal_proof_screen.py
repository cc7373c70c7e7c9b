"""Pilot tests of the deals' proof on screen (issue 34): the table's log says the deals are
sealed (with the commitment's first digits) and, at the end, where to check them; in My
games `v` asks for the proof, and the dialog says, in the player's language, whether every
deal holds and whether the commitment is the one this session saw before the match."""
from __future__ import annotations

import dataclasses

import protocol as p
from protocol import deal_proof
from tui.screens.help import HelpScreen
from tui.screens.history import HistoryScreen

from tests.tui.helpers import screen_text
from tests.tui.kit import FakeLink, lobby_with, seated_app, table_shown, two_player_state, update_for

GAME = p.GameSummary(table_id="t9", match_no=1, variant="argentino", title="la revancha",
                     seats=("ana", "beto"), scores=(30, 12), winner=0, hands=2)
SECRET = deal_proof.match_secret("a table's seed", 1)
DECK = tuple(f"{n}{s}" for s in "eocb" for n in (1, 2, 3, 4, 5, 6, 7, 10, 11, 12))


def a_proof() -> p.DealsProof:
    """Two honest deals of a 2-player match, as the server's proof gives them."""
    deals = []
    for seq, dealer in ((2, 0), (9, 1)):
        label = deal_proof.deal_label(seq)
        hands, _, _ = deal_proof.dealt_hands(deal_proof.shuffled(DECK, SECRET, label), 2, dealer, 3, False, False)
        deals.append(p.DealRecord(label=label, dealer=dealer, hands=tuple(hands)))
    return p.DealsProof(table_id="t9", match_no=1, variant="argentino", players=2,
                        commitment=deal_proof.commitment(SECRET), secret=SECRET.hex(), deck=DECK,
                        deals=tuple(deals))


async def show_proof(lang: str, proof: p.DealsProof, seen: bool) -> str:
    app, link = lobby_with(lang=lang)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause(0.2)
        if seen:  # this session was at the table when the match began
            link.push(p.DealSeal(table_id="t9", match_no=1, commitment=proof.commitment))
        await pilot.press("h")
        await pilot.pause(0.2)
        assert isinstance(app.screen, HistoryScreen)
        link.push(p.GamesList(games=(GAME,)))
        await pilot.pause(0.2)
        await pilot.press("v")
        await pilot.pause(0.1)
        assert link.sent[-1] == p.ProveDeals(table_id="t9", match_no=1)
        link.push(proof)
        await pilot.pause(0.3)
        assert isinstance(app.screen, HelpScreen)
        return screen_text(app)


async def test_an_honest_proof_holds_and_the_commitment_is_the_one_this_session_saw() -> None:
    text = await show_proof("es", a_proof(), seen=True)
    assert "Los 2 repartos salieron del secreto" in text
    assert "Es el compromiso que esta sesión vio antes del primer reparto" in text


async def test_a_tampered_deal_is_named_and_an_unseen_start_is_said() -> None:
    proof = a_proof()
    deal = proof.deals[1]
    forged = dataclasses.replace(deal, hands=(deal.hands[1], deal.hands[0]))
    text = await show_proof("pt", dataclasses.replace(proof, deals=(proof.deals[0], forged)), seen=False)
    assert "NÃO batem" in text and "distribuição 2: as mãos não são as que o segredo dá" in text
    assert "Esta sessão não viu a partida começar" in text


async def test_the_table_log_says_the_deals_are_sealed_and_then_where_to_check_them() -> None:
    _, state, events = two_player_state()
    link = FakeLink()
    app = await seated_app(link)
    commitment = deal_proof.commitment(SECRET)
    link.push(p.DealSeal(table_id="t1", match_no=1, commitment=commitment))  # before the first update
    async with table_shown(app, link, update_for(state, 0, 3, events), size=(60, 20)) as pilot:
        assert f"Deals sealed {commitment[:16]}" in screen_text(app)
        link.push(p.DealSeal(table_id="t1", match_no=1, commitment=commitment, secret=SECRET.hex()))
        await pilot.pause(0.2)
        assert "Deals unsealed: check them in My games (v)" in screen_text(app)
        assert app.seals[("t1", 1)] == commitment  # what a later proof is held to
