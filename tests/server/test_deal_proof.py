"""Deals anyone can verify (issue 34): every viewer gets the match's commitment before its
first deal and its secret at the end, and the proof read off the log replays every deal
of a whole match in every game, checked against what a seat was really dealt. A tampered
log, secret or commitment is caught."""
from __future__ import annotations

import dataclasses
import random
from pathlib import Path

import pytest

import engine
import protocol as p
from protocol import deal_proof
from server.store import EventRow, GameRecord, Store, TableRecord
from server.table import Occupant, TableActor
from server.table.proof import deals_proof
from tests.server.test_table import FAST, Viewers, play_as_the_bot_would, short_options, until

KEY = "SHA256:ana"


def cases() -> list[tuple[str, int]]:
    """Every implemented game, at its smallest and its largest table."""
    out = []
    for spec in engine.variant_catalog():
        if spec.implemented:
            out += sorted({(spec.name, min(spec.player_counts)), (spec.name, max(spec.player_counts))})
    return out


async def play_a_match(tmp_path: Path, variant: str, players: int, seed: str,
                       entropy: str = "") -> tuple[Viewers, p.DealsProof]:
    """A whole match: ana (connection 1) at seat 0, bots at the others; ``entropy``: hers."""
    store = Store(tmp_path / "db.sqlite3")
    await store.open()
    try:
        seats = [Occupant("ana", 1, fingerprint=KEY, entropy=entropy)] + [Occupant(f"Bot {i}", i + 1, bot=True)
                                                          for i in range(1, players)]
        await store.create_table(TableRecord("t", "x", variant, short_options(variant), "ana", False, "", 0,
                                             [o.to_record() for o in seats], seed))
        viewers = Viewers()
        actor = TableActor("t", variant, short_options(variant), seats, viewers.send, pace=FAST, seed=seed,
                           store=store)
        actor.start()
        rng = random.Random(seed)
        while not actor.finished:  # ana plays as the bot would
            state, seq = actor.state, actor.seq
            if state is not None and not state.match_over and engine.legal_actions(state, 0):
                await play_as_the_bot_would(actor, 0, rng)
            else:
                await until(lambda: actor.seq > seq or actor.finished)
        await actor.stop()
        found = await store.game_log("t", 1, KEY, "ana")
        assert found is not None
        proof = deals_proof(*found)
        assert proof is not None
        return viewers, proof
    finally:
        await store.close()


def seen_by(viewers: Viewers, conn: int) -> tuple[list[p.DealSeal], list[p.Message]]:
    frames = viewers.frames[conn]
    return [m for m in frames if isinstance(m, p.DealSeal)], frames


@pytest.mark.parametrize(("variant", "players"), cases())
async def test_a_whole_match_s_deals_replay_from_the_secret_its_commitment_promised(
        tmp_path: Path, variant: str, players: int) -> None:
    viewers, proof = await play_a_match(tmp_path, variant, players, seed=f"proof-{variant}-{players}")
    seals, frames = seen_by(viewers, 1)
    # The commitment came before anything was dealt; the secret only after the last deal.
    first_update = next(i for i, m in enumerate(frames) if isinstance(m, p.TableUpdate))
    assert frames.index(seals[0]) < first_update and seals[0].secret == ""
    last_deal = max(i for i, m in enumerate(frames) if isinstance(m, p.TableUpdate)
                    and any(isinstance(e, p.HandDealt) for e in m.events))
    revealed = [i for i, m in enumerate(frames) if isinstance(m, p.DealSeal) and m.secret]
    assert revealed and revealed[0] > last_deal and frames[revealed[0]].secret == proof.secret
    # What seat 0 was dealt, deal by deal, as its screen showed it.
    dealt = [e.hands[0] for m in frames if isinstance(m, p.TableUpdate) for e in m.events
             if isinstance(e, p.HandDealt)]
    assert len(dealt) == len(proof.deals) > 0
    verdict = deal_proof.check(proof, seen_commitment=seals[0].commitment, own_hands=dealt, seat=0)
    assert verdict.holds, verdict.problems
    assert verdict.deals == len(proof.deals)


async def test_a_tampered_deal_secret_or_commitment_is_caught(tmp_path: Path) -> None:
    viewers, proof = await play_a_match(tmp_path, "argentino", 2, seed="tamper")
    seals, _ = seen_by(viewers, 1)
    assert deal_proof.check(proof, seals[0].commitment).holds

    deal = proof.deals[1]
    swapped = (deal.hands[1][0],) + deal.hands[0][1:]  # seat 0 given a card seat 1 had
    forged = dataclasses.replace(deal, hands=(swapped,) + deal.hands[1:])
    tampered = dataclasses.replace(proof, deals=proof.deals[:1] + (forged,) + proof.deals[2:])
    assert deal_proof.check(tampered).problems == (deal_proof.Problem("hands", 2),)

    other = deal_proof.match_secret("another seed", 1)  # a secret chosen afterwards
    assert deal_proof.Problem("commitment") in deal_proof.check(
        dataclasses.replace(proof, secret=other.hex()), seals[0].commitment).problems
    # ... even with a commitment to match it: not the one sent before the match
    forged_seal = dataclasses.replace(proof, secret=other.hex(), commitment=deal_proof.commitment(other))
    assert deal_proof.check(forged_seal, seals[0].commitment).problems[0] == deal_proof.Problem("not_seen")

    dealt = [e.hands[0] for m in viewers.frames[1] if isinstance(m, p.TableUpdate) for e in m.events
             if isinstance(e, p.HandDealt)]
    dealt[0] = tuple(reversed(dealt[0])) if len(set(dealt[0])) > 1 else dealt[0]
    assert deal_proof.check(proof, own_hands=dealt, seat=0).problems == (deal_proof.Problem("own_hand", 1),)
    assert str(deal_proof.Problem("own_hand", 1)) == "deal 1: the log's hand for this seat is not the one it was dealt"


def test_a_deal_that_ends_its_hand_deals_again_from_the_same_stream_and_the_proof_follows() -> None:
    """A Venezuelan deal can end the hand by itself (estar cantando), and engine.deal deals
    again from the same rng before anyone acts: the proof must label that second deal with
    the first one's stream, and any deal after an action with its own."""
    rules = engine.get_ruleset("venezolano")
    secret = deal_proof.match_secret("redeal", 1)
    deck = [str(c) for c in rules.deck]

    def hand_dealt(rng: random.Random, dealer: int) -> dict[str, object]:
        cards = list(deck)
        rng.shuffle(cards)
        hands, up, _ = deal_proof.dealt_hands(cards, 2, dealer, 3, False, True)
        return {"type": "hand_dealt", "dealer": dealer, "hands": [list(h) for h in hands], "face_up": up}

    first = deal_proof.DealRandom(secret, "deal/2")
    later = deal_proof.DealRandom(secret, "deal/6")
    dealer = deal_proof.DealRandom(secret, deal_proof.FIRST_DEALER).randrange(2)
    data = [{"type": "match_started", "options": {}, "n_players": 2, "first_dealer": dealer},
            hand_dealt(first, 0), {"type": "points_scored"}, hand_dealt(first, 1),
            {"type": "acted"}, hand_dealt(later, 0)]
    rows = [EventRow(seq, 1, d) for seq, d in enumerate(data, 1)]
    game = GameRecord("t", 1, "venezolano", "x", ["a", "b"], [0, 0], None, 3, 0, deal_secret=secret.hex())
    proof = deals_proof(game, rows)
    assert proof is not None and [d.label for d in proof.deals] == ["deal/2", "deal/2", "deal/6"]
    assert deal_proof.check(proof).holds


async def test_a_players_entropy_goes_into_every_shuffle_and_into_the_proof(tmp_path: Path) -> None:
    mine = "5eed" * 8  # 16 bytes of ana's own
    viewers, proof = await play_a_match(tmp_path, "argentino", 2, seed="entropy", entropy=mine)
    seals, _ = seen_by(viewers, 1)
    assert seals[0].entropy == (mine,) and proof.entropy == (mine,)
    assert deal_proof.check(proof, seals[0].commitment).holds
    # Without her bytes the secret alone deals other cards: the server did use them.
    assert not deal_proof.check(dataclasses.replace(proof, entropy=())).holds
