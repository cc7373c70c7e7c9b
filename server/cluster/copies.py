"""How many copies JetStream keeps of the cluster's streams and buckets, as the operator asks.

The streams are made by the first process that needs each, with its ``--replicas``. A later
process started with another ``--replicas`` (given on its command line) changes every one of
them to that many copies (JetStream moves the data while the cluster runs), and says so; one
started without it leaves them as they are. So `--replicas 3` on a cluster first started
with one copy takes effect, instead of silently doing nothing.
"""
from __future__ import annotations

import dataclasses
import logging

from nats.js.errors import NotFoundError

from server.cluster.bus import (
    DIRECTORY_BUCKET, EVENTS_STREAM, LEASE_BUCKET, NAMES_BUCKET, PRESENCE_BUCKET, Bus, retrying,
)
from server.cluster.chat import CHAT_STREAM
from server.cluster.eventlog import READ_WITHIN
from server.cluster.jsstore import GAMES_BUCKET, META_BUCKET, SENAS_BUCKET, TABLES_BUCKET
from server.cluster.ratings import RATINGS_BUCKET, STATS_BUCKET
from server.cluster.table_chat import CHAT_BUCKET

log = logging.getLogger(__name__)



def cluster_streams() -> list[str]:
    """Every stream the cluster keeps (the key-value buckets are streams named ``KV_<bucket>``)."""
    buckets = (LEASE_BUCKET, NAMES_BUCKET, PRESENCE_BUCKET, DIRECTORY_BUCKET, TABLES_BUCKET, GAMES_BUCKET,
               META_BUCKET, SENAS_BUCKET, RATINGS_BUCKET, STATS_BUCKET, CHAT_BUCKET)
    return [EVENTS_STREAM, CHAT_STREAM, *(f"KV_{bucket}" for bucket in buckets)]


async def keep_copies(bus: Bus) -> dict[str, int]:
    """Each of the cluster's streams (those made so far) and its copies, after making them
    ``--replicas`` if the operator gave it to this process (otherwise the streams it creates
    later get as many copies as the cluster's keep)."""
    wanted = bus.options.replicas if "replicas" in bus.options.asked else None
    copies: dict[str, int] = {}
    for name in cluster_streams():
        try:
            info = await retrying(lambda: bus.js.stream_info(name), f"reading stream {name}", READ_WITHIN)
        except NotFoundError:
            continue  # not made yet: it is made with ``bus.options.replicas``
        have = info.config.num_replicas or 1
        if wanted is not None and have != wanted:
            await bus.js.update_stream(dataclasses.replace(info.config, num_replicas=wanted))
            log.warning("cluster: %s now keeps %d copies (it kept %d): --replicas %d", name, wanted, have, wanted)
            have = wanted
        copies[name] = have
    if wanted is None and copies:  # what this process creates later has as many
        bus.options = dataclasses.replace(bus.options, replicas=max(copies.values()))
    if copies and len(set(copies.values())) > 1:
        log.warning("cluster: the streams keep different numbers of copies (%s); start a process "
                    "with --replicas N to make them all N", ", ".join(f"{k} {v}" for k, v in sorted(copies.items())))
    return copies
