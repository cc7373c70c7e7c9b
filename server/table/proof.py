"""The proof of a finished match's deals (protocol/deal_proof.py), read off its log."""
from __future__ import annotations

import engine
import protocol as p
from protocol import deal_proof
from server.store import EventRow, GameRecord


def deals_proof(game: GameRecord, rows: list[EventRow]) -> p.DealsProof | None:
    """The proof of ``game`` from its logged events (None: its log has no start, or the
    record keeps no secret, as for matches finished before the secrets were kept)."""
    started = next((r.data for r in rows if r.data.get("type") == "match_started"), None)
    if started is None or not game.deal_secret:
        return None
    rules = engine.get_ruleset(game.variant, **dict(started.get("options") or {}))
    players = int(started["n_players"])
    deals: list[p.DealRecord] = []
    label, acted = "", True
    for row in rows:
        kind = row.data.get("type")
        if kind == "acted":
            acted = True
        elif kind == "hand_dealt":
            # A deal that ends the hand by itself deals again from the same stream, before
            # anyone acts (engine.deal); any other deal is a shuffle of its own.
            if acted:
                label, acted = deal_proof.deal_label(row.seq), False
            deals.append(p.DealRecord(label=label, dealer=int(row.data["dealer"]),
                                      hands=tuple(tuple(h) for h in row.data["hands"]),
                                      face_up=row.data.get("face_up") or ""))
    secret = bytes.fromhex(game.deal_secret)
    return p.DealsProof(
        table_id=game.table_id, match_no=game.match_no, variant=game.variant, players=players,
        commitment=deal_proof.commitment(secret), secret=game.deal_secret,
        deck=tuple(str(card) for card in rules.deck), cards_per_hand=rules.cards_per_hand,
        mano_extra=rules.solo_mano_three and players == 3, face_up=rules.has_face_up,
        first_dealer=int(started["first_dealer"]), dealer_drawn=game.match_no == 1,
        deals=tuple(deals), entropy=tuple(str(e) for e in started.get("entropy") or ()),
    )
