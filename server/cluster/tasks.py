"""Stopping the cluster's tasks: nats-py swallows a cancel that reaches some of its awaits."""
from __future__ import annotations

import asyncio
from typing import Any


async def cancel_and_wait(task: asyncio.Task[Any], again_every: float = 0.5) -> None:
    """Cancel ``task`` and wait until it has ended, cancelling it again while it runs on.

    nats-py swallows a cancel that reaches some of its awaits (its flush ends in
    ``except asyncio.CancelledError: pass``): a task cancelled there goes on as if nothing
    happened. A KV watch cancelled as it was starting then waited for news for ever, and
    so did whoever closed it (seen once in tests/cluster/test_front.py)."""
    while not task.done():
        task.cancel()
        await asyncio.wait({task}, timeout=again_every)
    if not task.cancelled():
        task.exception()  # (retrieved: an error it ended with is not reported again)
