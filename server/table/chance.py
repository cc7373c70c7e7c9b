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
from typing import Sequence

import engine
import protocol as p
from protocol import deal_proof
from server.table.occupant import Occupant


class Chance:
    """The table's draws, and the entropy the players add to each match's deals."""

    def __init__(self, table_id: str, seed: str) -> None:
        self.table_id, self.seed = table_id, seed
        self.entropy: tuple[str, ...] = ()  # the current match's, in seat order

    def secret(self, match_no: int) -> bytes:
        """Match ``match_no``'s secret (committed to before it starts)."""
        return deal_proof.match_secret(self.seed, match_no)

    def seal(self, match_no: int, over: bool) -> p.DealSeal:
        """The match's commitment and the players' entropy, and its secret once the match is
        over (never before)."""
        secret = self.secret(match_no)
        return p.DealSeal(table_id=self.table_id, match_no=match_no, commitment=deal_proof.commitment(secret),
                          secret=secret.hex() if over else "", entropy=self.entropy)

    def begin(self, match_no: int, seats: Sequence[Occupant], first_dealer: int | None) -> int:
        """A match starts: the entropy its seats were given is now its own (and theirs is
        spent); the first dealer, drawn from the match's draws unless a rematch passes it on."""
        self.entropy = tuple(o.entropy for o in seats if o.entropy)
        for occupant in seats:
            occupant.entropy = ""
        if first_dealer is not None:
            return first_dealer
        return deal_proof.DealRandom(self._key(match_no), deal_proof.FIRST_DEALER).randrange(len(seats))

    def restored(self, events: Sequence[engine.Event]) -> None:
        """The current match's entropy, from its logged start."""
        started = events[0] if events else None
        self.entropy = started.entropy if isinstance(started, engine.MatchStarted) else ()

    def offered(self, match_no: int, seats: Sequence[Occupant], seat: int, entropy: str) -> p.DealSeal:
        """``seat``'s entropy for the next match: that match's commitment and what it has so far."""
        seats[seat].entropy = entropy
        secret = self.secret(match_no + 1)
        return p.DealSeal(table_id=self.table_id, match_no=match_no + 1, commitment=deal_proof.commitment(secret),
                          entropy=tuple(o.entropy for o in seats if o.entropy))

    def deal(self, match_no: int, first_event: int) -> random.Random:
        """The shuffle of a deal whose first event is logged as ``first_event``."""
        return deal_proof.DealRandom(self._key(match_no), deal_proof.deal_label(first_event))

    def _key(self, match_no: int) -> bytes:
        return deal_proof.mixed(self.secret(match_no), self.entropy)

    def bot(self, seq: int) -> random.Random:
        return random.Random(f"{self.seed}/bot/{seq}")
