"""The current values of a key-value bucket's keys, read once and whole.

nats-py's watcher says "no more current values" (its None) from the consumer's pending
count when it has received nothing yet (nats/js/kv.py, ``watch``): the consumer pushes its
values and answers that count separately, and on a loaded machine the answer can come
first (0 pending: all sent), so the None comes before the values. A scan that stops at it
misses them: a rating read back as absent, once in CI. Here the values are read with a
pull consumer, which sends nothing until asked: its pending count when it is made is the
number of current values, and exactly that many are fetched. The bucket's stream and key
prefix are nats-py's private attributes (``nats_private.bucket_parts``).
"""
from __future__ import annotations

import logging

from nats.errors import TimeoutError as NatsTimeout
from nats.js.api import AckPolicy, ConsumerConfig, DeliverPolicy
from nats.js.kv import KV_DEL, KV_PURGE, KeyValue

from server.cluster.kvwatch import entry_of
from server.cluster.nats_private import BucketParts, bucket_parts

log = logging.getLogger(__name__)

BATCH = 256  # values fetched per request
FETCH_WAIT = 5.0  # seconds for a batch the consumer has pending
IDLE_GONE = 60.0  # seconds after which the server drops a consumer left behind


async def current_values(kv: KeyValue, keys: str = ">", whole: bool = False) -> list[KeyValue.Entry]:
    """The current value of every key ``keys`` matches (a NATS subject filter), deleted and
    purged keys left out; in stream order. With ``whole``, values that do not come (the
    stream's leader changing under the scan, e.g. after the NATS nodes lost their power) raise
    nats' TimeoutError, for the caller to scan again (``bus.retrying``), instead of a part:
    a table index read in part would leave tables whose logs exist unrestored."""
    parts = bucket_parts(kv)
    js = parts.js
    info = await js.add_consumer(parts.stream, config=ConsumerConfig(
        filter_subject=f"{parts.prefix}{keys}", deliver_policy=DeliverPolicy.LAST_PER_SUBJECT,
        ack_policy=AckPolicy.NONE, inactive_threshold=IDLE_GONE, mem_storage=True))
    left = int(info.num_pending or 0)
    found: list[KeyValue.Entry] = []
    if left == 0:
        await _drop(parts, info.name)
        return found
    sub = await js.pull_subscribe_bind(consumer=info.name, stream=parts.stream)
    try:
        while left > 0:
            try:
                msgs = await sub.fetch(min(left, BATCH), timeout=FETCH_WAIT)
            except NatsTimeout:  # the rest expired or was purged meanwhile, or the leader changed
                log.warning("kv scan of %s: %d values did not come%s", parts.stream, left,
                            "; it is read again" if whole else "")
                if whole:
                    raise
                break
            left -= len(msgs)
            for msg in msgs:
                entry = entry_of(msg, parts)
                if entry is not None and entry.operation not in (KV_DEL, KV_PURGE):
                    found.append(entry)
    finally:
        await sub.unsubscribe()
        await _drop(parts, info.name)
    return found


async def _drop(parts: BucketParts, consumer: str | None) -> None:
    """Delete the scan's consumer now (else the server drops it after ``IDLE_GONE``)."""
    if consumer is None:
        return
    try:
        await parts.js.delete_consumer(parts.stream, consumer)
    except Exception as exc:  # gone already, or the bus is going away: it expires anyway
        log.debug("kv scan: consumer %s not deleted: %s", consumer, exc)
