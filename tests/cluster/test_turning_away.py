"""A process of a cluster turns new players away while its own lease is in doubt, and lets
them in again once it renewed it (server/cluster/node.py, ``Node._turning_away``)."""
from __future__ import annotations

import time
from types import SimpleNamespace

from server.cluster.front import FrontEnd
from server.cluster.lease import FRESH_SHARE, Lease
from server.cluster.node import Node

TTL = 6.0


def node_with(lease: Lease | None) -> FrontEnd:
    bus = SimpleNamespace(owner="proc-a", options=SimpleNamespace(lease_ttl=TTL), reach=None)
    front = FrontEnd.__new__(FrontEnd)  # (only its ``standing`` is read here)
    node = Node(config=None, bus=bus, leases=None, names=None, presence=None,  # type: ignore[arg-type]
                front=front, tables=None, stop=None)  # type: ignore[arg-type]
    node.front_lease = lease
    return front


def test_new_players_are_welcome_while_the_lease_is_fresh() -> None:
    front = node_with(Lease("front-proc-a", 3, time.time()))
    assert front.turning_away() == ""


def test_new_players_are_refused_once_the_lease_was_not_renewed_for_most_of_its_ttl() -> None:
    lease = Lease("front-proc-a", 3, time.time())
    front = node_with(lease)
    lease.renewed_at = time.monotonic() - TTL * FRESH_SHARE - 0.1  # cut off from NATS meanwhile
    assert "reconnecting to its cluster" in front.turning_away()
    lease.renewed_at = time.monotonic()  # renewed again
    assert front.turning_away() == ""


def test_a_lost_or_missing_lease_refuses() -> None:
    assert "reconnecting" in node_with(None).turning_away()
    lost = Lease("front-proc-a", 3, time.time(), lost=True)
    assert "reconnecting" in node_with(lost).turning_away()
