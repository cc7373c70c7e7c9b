"""Every private part of nats-py the cluster touches, in one place, checked at start-up.

nats-py has no public way to do two things the cluster needs: write the commands still
queued for its flusher before a PING (``bus.settle``: a SUB just made reaches the server
before anyone is told of it), and reach the stream, subject prefix and JetStream context
of a key-value bucket (``kvscan.current_values``: a bucket's current values read whole by
a pull consumer, not by nats-py's watch, which can say "no more values" before they come;
``kvwatch.watch``: its changes, by a consumer that beats faster than nats-py's watch).
Each goes through a function here, and no other module of ``server/`` names a private
attribute of nats-py's ``Client`` or ``KeyValue`` (tests/cluster/test_nats_private.py reads
them all). :func:`check` refuses to start on a nats-py this was not written for
(pyproject.toml pins the same version) or one that lacks any of :data:`PRIVATE_NAMES`,
rather than fail on a player's table later.
"""
from __future__ import annotations

import inspect
from dataclasses import dataclass

from nats.aio.client import Client
from nats.js import JetStreamContext
from nats.js.kv import KeyValue

from server.fences import check_fence

PINNED_NATS_PY = "2.16."  # pyproject.toml: nats-py==2.16.0

# (where, name): every private name used below, for the check and the test.
PRIVATE_NAMES: tuple[tuple[str, str], ...] = (
    ("Client", "_flush_pending"),
    ("KeyValue", "_js"), ("KeyValue", "_stream"), ("KeyValue", "_pre"), ("KeyValue", "_name"),
)


def check(installed: str | None = None) -> None:
    """Raise RuntimeError unless the installed nats-py (or ``installed``) is the pinned one
    and has every private name used here."""
    check_fence("nats-py", "server/cluster/nats_private.py", PINNED_NATS_PY, PRIVATE_NAMES, _has, installed)


def _has(where: str, name: str) -> bool:
    cls: type = {"Client": Client, "KeyValue": KeyValue}[where]
    # Attributes set in __init__ are not on the class: read them from its source.
    return hasattr(cls, name) or f"self.{name}" in inspect.getsource(vars(cls)["__init__"])


async def flush_pending(nc: Client) -> None:
    """Write what ``nc`` has queued for its flusher task now."""
    await nc._flush_pending(force_flush=True)


@dataclass(frozen=True)
class BucketParts:
    """What a key-value bucket is made of in JetStream."""

    js: JetStreamContext
    stream: str  # KV_<bucket>
    prefix: str  # the subject prefix of its keys ($KV.<bucket>.)
    name: str  # the bucket's name


def bucket_parts(kv: KeyValue) -> BucketParts:
    return BucketParts(js=kv._js, stream=kv._stream, prefix=kv._pre, name=kv._name)
