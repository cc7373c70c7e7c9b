"""Deals anyone can verify: the commitment, the shuffle, and the check of a finished match.

Before a match's first deal every seat is sent a commitment, ``SHA-256(COMMIT_TAG || secret)``
of the match's 32-byte secret (``DealSeal``). Every shuffle of the match draws from that
secret alone, so the server cannot change a card once the commitment is out without the
commitment failing. When the match is over the secret is revealed (a ``DealSeal`` with
``secret``, and ``DealsProof`` for any finished match one played), and anyone can replay
every deal: ``check`` here, ``truco-ssh verify``, or their own code following
docs/FAIRNESS.md, which states the algorithm below without Python.

The random stream (``DealRandom``): block ``i`` of a draw labelled ``label`` is
``SHA-256(STREAM_TAG || secret || label || i)`` (``i`` as 8 bytes, big-endian), and each
``getrandbits(k)`` takes the top ``k`` bits of the next block. The shuffle is Python's
``random.shuffle`` over it: Fisher-Yates from the last card down, position ``j`` for card
``i`` drawn below ``i + 1`` by rejection on ``(i + 1).bit_length()`` bits. A test holds it to
a reference written from docs/FAIRNESS.md (tests/protocol/test_deal_proof.py), so a change
in Python's shuffle would be caught.

Players may add entropy of their own after seeing the commitment and before the match starts
(``AddEntropy``, or with ``JoinTable``/``QuickPlay``): the stream is then keyed by ``mixed``
of the secret and their bytes, recorded in the match's ``match_started`` and the proof.

Labels: ``first_dealer`` (the first match's first dealer, ``randrange(players)``) and
``deal/N``, where N is the index, in the match's log, of the first deal a shuffle made (a
Venezuelan deal that itself ends the hand deals again from the same stream).
"""
from __future__ import annotations

import hashlib
import hmac
import random
from dataclasses import dataclass
from typing import ClassVar, Sequence

from protocol.messages import MESSAGE_TYPES, TABLE_ID_MAX, Command, Event
from protocol.schema import limited

COMMIT_TAG = b"truco-ssh deal commitment v1\x00"
STREAM_TAG = b"truco-ssh deal stream v1\x00"
MIX_TAG = b"truco-ssh deal entropy v1\x00"
ENTROPY_MIN, ENTROPY_MAX = 8, 32  # bytes a player may add to a match's deals
SECRET_BYTES = 32
DIGEST_HEX = 64
CARD_MAX = 4  # a card's code: "12c", "10h"
FIRST_DEALER = "first_dealer"


def match_secret(table_seed: str, match_no: int) -> bytes:
    """The secret of a table's match ``match_no``: derived from the table's seed (kept with the
    table, never shown), so a restart deals what it would have dealt, and revealing one
    match's secret tells nothing of the next."""
    return hmac.new(table_seed.encode(), f"truco-ssh/match/{match_no}".encode(), hashlib.sha256).digest()


def commitment(secret: bytes) -> str:
    return hashlib.sha256(COMMIT_TAG + secret).hexdigest()


def parse_entropy(text: str) -> bytes:
    """A player's entropy as sent (hexadecimal, ``ENTROPY_MIN``-``ENTROPY_MAX`` bytes), or ValueError."""
    data = bytes.fromhex(text)
    if not ENTROPY_MIN <= len(data) <= ENTROPY_MAX:
        raise ValueError(f"entropy is {ENTROPY_MIN} to {ENTROPY_MAX} bytes, in hexadecimal")
    return data


def mixed(secret: bytes, entropy: Sequence[str]) -> bytes:
    """The key every draw of the match uses: the secret alone, or with what the players added
    (in seat order) ``SHA-256(MIX_TAG || secret || for each: its length as one byte || it)``."""
    if not entropy:
        return secret
    parts = [MIX_TAG, secret]
    for text in entropy:
        data = bytes.fromhex(text)
        parts += [bytes([len(data)]), data]
    return hashlib.sha256(b"".join(parts)).digest()


def deal_label(index: int) -> str:
    return f"deal/{index}"


class DealRandom(random.Random):
    """A ``random.Random`` whose bits come from SHA-256 of the secret and a label (see above):
    the same secret and label give the same draws in any language."""

    def __init__(self, secret: bytes, label: str) -> None:
        self._prefix = STREAM_TAG + secret + label.encode()
        self._block = 0
        super().__init__()

    def seed(self, *args: object, **kwargs: object) -> None:  # the stream has no other seed
        pass

    def getstate(self) -> tuple[bytes, int]:  # type: ignore[override]
        return self._prefix, self._block

    def setstate(self, state: tuple[bytes, int]) -> None:  # type: ignore[override]
        self._prefix, self._block = state

    def getrandbits(self, k: int) -> int:
        if k < 0:
            raise ValueError("number of bits must be non-negative")
        value, have = 0, 0
        while have < k:  # a draw of more than 256 bits takes the next blocks too
            block = hashlib.sha256(self._prefix + self._block.to_bytes(8, "big")).digest()
            self._block += 1
            value, have = (value << 256) | int.from_bytes(block, "big"), have + 256
        return value >> (have - k)

    def random(self) -> float:
        return self.getrandbits(53) / (1 << 53)


def shuffled(deck: Sequence[str], secret: bytes, label: str) -> list[str]:
    cards = list(deck)
    DealRandom(secret, label).shuffle(cards)
    return cards


# -- the messages -----------------------------------------------------------------------

@dataclass(frozen=True)
class DealSeal(Event):
    """To every viewer of a table: match ``match_no``'s commitment before its first deal (and
    on joining), then, once the match is over, its ``secret`` (hex) too."""

    TYPE: ClassVar[str] = "deal_seal"
    table_id: str = limited(max_len=TABLE_ID_MAX)
    match_no: int = limited(lo=1, hi=2**31)
    commitment: str = limited(max_len=DIGEST_HEX)
    secret: str = limited("", max_len=DIGEST_HEX)
    entropy: tuple[str, ...] = limited((), max_len=2 * ENTROPY_MAX, max_items=8)  # the players', in seat order


@dataclass(frozen=True)
class AddEntropy(Command):
    """A seated player's random bytes (hexadecimal) for the table's next match, sent after
    seeing its commitment (``TableInfo.commitment``, or a ``DealSeal``) and before it starts:
    the match's shuffles then draw on them too, so not even the server chose the cards.
    ``JoinTable`` and ``QuickPlay`` carry the same, for a seat that starts the match."""

    TYPE: ClassVar[str] = "add_entropy"
    table_id: str = limited(max_len=TABLE_ID_MAX)
    entropy: str = limited(max_len=2 * ENTROPY_MAX)


@dataclass(frozen=True)
class ProveDeals(Command):
    """Ask for the proof of one's own finished match (answered with ``DealsProof``)."""

    TYPE: ClassVar[str] = "prove_deals"
    table_id: str = limited(max_len=TABLE_ID_MAX)
    match_no: int = limited(lo=1, hi=2**31)


@dataclass(frozen=True)
class DealRecord:
    """One deal as the log holds it: ``hands[seat]`` in the order the cards came to the seat."""

    label: str = limited(max_len=24)
    dealer: int = limited(lo=0, hi=7)
    hands: tuple[tuple[str, ...], ...] = limited(max_len=CARD_MAX, max_items=8)
    face_up: str = limited("", max_len=CARD_MAX)  # "" where the game turns no card up


@dataclass(frozen=True)
class DealsProof(Event):
    """Everything ``check`` needs to replay a finished match's deals: the secret, the deck in
    its fixed order, how the cards are given out, and every deal the log holds."""

    TYPE: ClassVar[str] = "deals_proof"
    table_id: str = limited(max_len=TABLE_ID_MAX)
    match_no: int = limited(lo=1, hi=2**31)
    variant: str = limited(max_len=20)
    players: int = limited(lo=2, hi=8)
    commitment: str = limited(max_len=DIGEST_HEX)
    secret: str = limited(max_len=DIGEST_HEX)
    deck: tuple[str, ...] = limited(max_len=CARD_MAX, max_items=64)
    cards_per_hand: int = limited(3, lo=1, hi=8)
    mano_extra: bool = False  # the mano gets one more card (the Uruguayan game alone at two)
    face_up: bool = False  # a card is turned up after the hands
    first_dealer: int = limited(0, lo=0, hi=7)
    dealer_drawn: bool = False  # the first dealer was drawn (label ``first_dealer``)
    deals: tuple[DealRecord, ...] = limited((), max_items=4096)
    entropy: tuple[str, ...] = limited((), max_len=2 * ENTROPY_MAX, max_items=8)  # the players', in seat order


MESSAGE_TYPES.update({cls.TYPE: cls for cls in (DealSeal, AddEntropy, ProveDeals, DealsProof)})


# -- the check ----------------------------------------------------------------------------

def dealt_hands(cards: Sequence[str], players: int, dealer: int, per: int,
                mano_extra: bool, face_up: bool) -> tuple[list[tuple[str, ...]], str, int]:
    """The hands a shuffled deck gives (one card at a time, from the seat after the dealer),
    the face-up card ("" if none) and how many cards were used."""
    hands: list[tuple[str, ...]] = [()] * players
    for i in range(players):
        seat = (dealer + 1 + i) % players
        hands[seat] = tuple(cards[i + k * players] for k in range(per))
    used = players * per
    if mano_extra:
        mano = (dealer + 1) % players
        hands[mano] = hands[mano] + (cards[used],)
        used += 1
    up = ""
    if face_up:
        up, used = cards[used], used + 1
    return hands, up, used


# What ``check`` can find, in English (a screen says it in its player's language by code)
PROBLEMS = {
    "secret_format": "the secret is not 32 bytes in hexadecimal",
    "entropy_format": "the players' entropy is not hexadecimal",
    "commitment": "the secret does not match the commitment",
    "not_seen": "the commitment is not the one sent before the match",
    "first_dealer": "the first dealer is not the one the secret draws",
    "hands": "deal {deal}: the hands are not the ones the secret deals",
    "face_up": "deal {deal}: the face-up card is not the one the secret deals",
    "own_hand": "deal {deal}: the log's hand for this seat is not the one it was dealt",
}


@dataclass(frozen=True)
class Problem:
    code: str  # a key of PROBLEMS
    deal: int = 0  # the deal it is about (1-based), 0 for the whole match

    def __str__(self) -> str:
        return PROBLEMS[self.code].format(deal=self.deal)


@dataclass(frozen=True)
class Verdict:
    """What ``check`` found: ``problems`` is empty when everything holds."""

    deals: int
    problems: tuple[Problem, ...]

    @property
    def holds(self) -> bool:
        return not self.problems


SEEN_MIN = 16  # hex digits of a commitment a person may note and compare (64 bits)


def seen(noted: str, commitment: str) -> bool:
    """``noted`` is ``commitment``, or its first ``SEEN_MIN`` digits or more (as a table shows it)."""
    noted = noted.strip().lower()
    return len(noted) >= SEEN_MIN and commitment.startswith(noted)


def check(proof: DealsProof, seen_commitment: str = "",
          own_hands: Sequence[tuple[str, ...] | None] = (), seat: int | None = None) -> Verdict:
    """Replay every deal of ``proof`` from its secret. ``seen_commitment``: the one the checker
    was sent before the match, or its first ``SEEN_MIN`` digits (else the proof's own is taken); ``own_hands`` with ``seat``: the
    hands the checker was dealt, deal by deal (None: a deal it was not shown, as in a blind
    hand), compared with the log's too."""
    try:
        secret = bytes.fromhex(proof.secret)
    except ValueError:
        secret = b""
    if len(secret) != SECRET_BYTES:
        return Verdict(0, (Problem("secret_format"),))
    problems: list[Problem] = []
    try:
        key = mixed(secret, proof.entropy)
    except ValueError:
        return Verdict(0, (Problem("entropy_format"),))
    if commitment(secret) != proof.commitment:
        problems.append(Problem("commitment"))
    if seen_commitment and not seen(seen_commitment, proof.commitment):
        problems.append(Problem("not_seen"))
    if proof.dealer_drawn:
        if DealRandom(key, FIRST_DEALER).randrange(proof.players) != proof.first_dealer:
            problems.append(Problem("first_dealer"))
    streams: dict[str, DealRandom] = {}
    for n, deal in enumerate(proof.deals, 1):
        rng = streams.setdefault(deal.label, DealRandom(key, deal.label))
        cards = list(proof.deck)
        rng.shuffle(cards)
        hands, up, _ = dealt_hands(cards, proof.players, deal.dealer, proof.cards_per_hand,
                                   proof.mano_extra, proof.face_up)
        if tuple(hands) != deal.hands:
            problems.append(Problem("hands", n))
        if up != deal.face_up:
            problems.append(Problem("face_up", n))
        if seat is not None and n <= len(own_hands) and own_hands[n - 1] is not None:
            if seat >= len(deal.hands) or deal.hands[seat] != own_hands[n - 1]:
                problems.append(Problem("own_hand", n))
    return Verdict(len(proof.deals), tuple(problems))
