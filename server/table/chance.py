"""A table's randomness: its deals, its first dealer and its bots' draws.

Each table has a random seed (stored with the table, never shown). Each match's deals draw
from that match's secret (``protocol.deal_proof``: derived from the seed, committed to every
viewer before the first deal and revealed at the end, so that anyone can check every deal),
in a stream labelled with the ``seq`` of the deal's first event; bots draw from
``Random(f"{seed}/bot/{seq}")``, where ``seq`` is the number of events logged so far. The
state itself is rebuilt from the log by ``engine.replay`` (deals are events, no rng
needed); the seed only matters for what comes next, and because every draw is keyed by
``seq`` a table restored after a crash deals exactly what it would have dealt without one.
No rng state has to be saved, and a restore never depends on how many numbers were drawn
before.
"""
from __future__ import annotations

import random
from dataclasses import dataclass

import protocol as p
from protocol import deal_proof


@dataclass(frozen=True)
class Chance:
    table_id: str
    seed: str

    def secret(self, match_no: int) -> bytes:
        """Match ``match_no``'s secret: every shuffle of it draws from it alone."""
        return deal_proof.match_secret(self.seed, match_no)

    def seal(self, match_no: int, over: bool) -> p.DealSeal:
        """The match's commitment, and its secret once the match is over (never before)."""
        secret = self.secret(match_no)
        return p.DealSeal(table_id=self.table_id, match_no=match_no,
                          commitment=deal_proof.commitment(secret), secret=secret.hex() if over else "")

    def first_dealer(self, match_no: int, players: int) -> int:
        return deal_proof.DealRandom(self.secret(match_no), deal_proof.FIRST_DEALER).randrange(players)

    def deal(self, match_no: int, first_event: int) -> random.Random:
        """The shuffle of a deal whose first event is logged as ``first_event``."""
        return deal_proof.DealRandom(self.secret(match_no), deal_proof.deal_label(first_event))

    def bot(self, seq: int) -> random.Random:
        return random.Random(f"{self.seed}/bot/{seq}")
