"""The bus's timings and copies, as the command line gives them: kept apart from the bus so
that reading the command line (``server/cli/main.py``) does not import the NATS client (a fifth
of a second at every start of a process that never joins a cluster)."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class BusOptions:
    """How long things take on the bus; tests shorten them."""

    lease_ttl: float = 6.0  # seconds a table's owner may be silent before another claims it
    renew_every: float = 2.0  # the owner renews its leases this often
    replicas: int = 1  # JetStream copies of the streams and buckets (3 on a 3-server cluster)
    # The settings the operator gave this process ("replicas", "lease_ttl"): those change the
    # cluster's (server/cluster/copies.py, lease.py); the others adopt what the cluster has
    asked: frozenset[str] = frozenset()
