"""A key-value bucket's changes, watched live, back within seconds of a NATS fault.

nats-py's ``KeyValue.watchall`` is an ordered push consumer with nats-py's default idle
heartbeat of 5 s. When its consumer is lost (the NATS node holding it restarted, lost its
power or was cut off), nats-py notices after two missed heartbeats and makes it again once;
made while JetStream has no leader, that fails and is tried only every 10 s. Meanwhile the
process's copy stands still: measured, a table opened on one process reached another
process's lobby 15.7 s after a nats-server restart (and `make chaos`, seed 1473858500,
left new terminal sessions looking at a stale table list for 30 s in a storm of faults).

Here the same kind of consumer (nats-py's own ordered consumer: made again from the last
sequence seen, so nothing is missed or seen twice) beats every ``HEARTBEAT`` seconds, so a
lost one is noticed and made again within two beats, and tried again every two beats until
JetStream answers. A consumer left behind by a remake is dropped by the server after
``IDLE_GONE``.
"""
from __future__ import annotations

from typing import Callable

from nats.aio.msg import Msg
from nats.aio.subscription import Subscription
from nats.js.api import DeliverPolicy
from nats.js.kv import KV_DEL, KV_MARKER_REASON, KV_OP, KV_PURGE, KeyValue

from server.cluster.nats_private import BucketParts, bucket_parts

HEARTBEAT = 1.0  # seconds between the server's idle heartbeats to the watch
IDLE_GONE = 30.0  # seconds after which the server drops a watch's consumer nobody reads
# What a server-placed marker (nats-server 2.11+: a key's TTL ran out, a purge) means
MARKER_OPERATIONS = {"MaxAge": KV_PURGE, "Purge": KV_PURGE, "Remove": KV_DEL}


def entry_of(msg: Msg, parts: BucketParts) -> KeyValue.Entry | None:
    """The bucket entry a stream message is (None: a marker of a kind this does not know)."""
    headers = msg.headers or {}
    op = headers.get(KV_OP)
    if op is None and KV_MARKER_REASON in headers:
        op = MARKER_OPERATIONS.get(headers[KV_MARKER_REASON])
        if op is None:
            return None
    meta = msg.metadata
    return KeyValue.Entry(
        bucket=parts.name, key=msg.subject[len(parts.prefix):], value=msg.data, revision=meta.sequence.stream,
        delta=meta.num_pending, created=meta.timestamp,  # type: ignore[arg-type]  # a datetime, as nats-py's own watcher gives
        operation=op)


async def watch(kv: KeyValue, seen: Callable[[KeyValue.Entry], None]) -> Subscription:
    """Every key's current value, then every change, to ``seen``, in order (deletes and
    purges included: their ``operation`` says so). Unsubscribe to end it."""
    parts = bucket_parts(kv)

    async def delivered(msg: Msg) -> None:
        entry = entry_of(msg, parts)
        if entry is not None:
            seen(entry)

    return await parts.js.subscribe(
        f"{parts.prefix}>", stream=parts.stream, cb=delivered, ordered_consumer=True,
        deliver_policy=DeliverPolicy.LAST_PER_SUBJECT, idle_heartbeat=HEARTBEAT, inactive_threshold=IDLE_GONE)
