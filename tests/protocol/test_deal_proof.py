"""The deal stream and shuffle as docs/FAIRNESS.md states them, for anyone to reimplement:
a reference written from the document, without ``random``, must draw exactly what the
server deals with (``DealRandom`` with Python's shuffle)."""
from __future__ import annotations

import hashlib

from hypothesis import given, settings
from hypothesis import strategies as st

from protocol import deal_proof


class ReferenceStream:
    """docs/FAIRNESS.md, "The stream": block i is SHA-256(tag, secret, label, i as 8 bytes)."""

    def __init__(self, secret: bytes, label: str) -> None:
        self.prefix, self.block = b"truco-ssh deal stream v1\x00" + secret + label.encode(), 0

    def bits(self, k: int) -> int:  # the top k bits of the next block (k <= 256 here)
        digest = hashlib.sha256(self.prefix + self.block.to_bytes(8, "big")).digest()
        self.block += 1
        return int.from_bytes(digest, "big") >> (256 - k)

    def below(self, n: int) -> int:
        k = n.bit_length()
        r = self.bits(k)
        while r >= n:
            r = self.bits(k)
        return r


def reference_shuffle(deck: list[str], secret: bytes, label: str) -> list[str]:
    """docs/FAIRNESS.md, "The shuffle": Fisher-Yates from the last card down."""
    stream, cards = ReferenceStream(secret, label), list(deck)
    for i in range(len(cards) - 1, 0, -1):
        j = stream.below(i + 1)
        cards[i], cards[j] = cards[j], cards[i]
    return cards


@settings(max_examples=200, database=None)
@given(secret=st.binary(min_size=32, max_size=32), label=st.text(max_size=12),
       size=st.integers(min_value=1, max_value=52))
def test_the_shuffle_is_the_one_the_document_states(secret: bytes, label: str, size: int) -> None:
    deck = [f"c{i}" for i in range(size)]
    assert deal_proof.shuffled(deck, secret, label) == reference_shuffle(deck, secret, label)


@given(secret=st.binary(min_size=32, max_size=32), players=st.integers(min_value=2, max_value=8))
def test_the_first_dealer_is_the_documented_draw(secret: bytes, players: int) -> None:
    drawn = deal_proof.DealRandom(secret, deal_proof.FIRST_DEALER).randrange(players)
    assert drawn == ReferenceStream(secret, "first_dealer").below(players)


def test_secrets_differ_by_match_and_by_seed_and_commitments_are_their_hashes() -> None:
    one, two = deal_proof.match_secret("seed", 1), deal_proof.match_secret("seed", 2)
    assert one != two != deal_proof.match_secret("other", 2) and len(one) == deal_proof.SECRET_BYTES
    assert deal_proof.commitment(one) == hashlib.sha256(b"truco-ssh deal commitment v1\x00" + one).hexdigest()


def test_wide_draws_take_several_blocks_and_stay_in_range() -> None:
    rng = deal_proof.DealRandom(b"s" * 32, "x")
    assert 0 <= rng.getrandbits(300) < 2**300 and 0 <= rng.random() < 1
    assert rng.getrandbits(0) == 0


@given(secret=st.binary(min_size=32, max_size=32),
       entropy=st.lists(st.binary(min_size=8, max_size=32), max_size=6))
def test_the_players_entropy_is_mixed_in_as_the_document_states(secret: bytes, entropy: list[bytes]) -> None:
    if entropy:
        expected = hashlib.sha256(b"truco-ssh deal entropy v1\x00" + secret
                                  + b"".join(bytes([len(e)]) + e for e in entropy)).digest()
    else:
        expected = secret
    assert deal_proof.mixed(secret, [e.hex() for e in entropy]) == expected
