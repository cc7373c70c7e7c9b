"""A task that swallows a cancel (as nats-py's flush does) is cancelled again until it ends:
closing a KV watch cancelled as it started waited for ever (server/cluster/tasks.py)."""
from __future__ import annotations

import asyncio

import pytest

from server.cluster.tasks import cancel_and_wait


async def _swallows(cancels: int, ended: list[str]) -> None:
    """Goes on after its first ``cancels`` cancels, as if nothing happened."""
    for _ in range(cancels):
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            pass
    try:
        await asyncio.Event().wait()
    finally:
        ended.append("ended")


@pytest.mark.parametrize("cancels", [0, 1, 3])
async def test_a_task_that_swallows_cancels_is_cancelled_until_it_ends(cancels: int) -> None:
    ended: list[str] = []
    task = asyncio.create_task(_swallows(cancels, ended))
    await asyncio.sleep(0)  # (it runs up to its first wait)
    await asyncio.wait_for(cancel_and_wait(task, again_every=0.01), 30)
    assert task.cancelled() and ended == ["ended"]


async def test_a_task_that_ends_with_an_error_as_it_is_cancelled_is_waited_for_quietly() -> None:
    async def fails_on_cancel() -> None:
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            raise RuntimeError("while stopping")

    task = asyncio.create_task(fails_on_cancel())
    await asyncio.sleep(0)
    await cancel_and_wait(task)
    assert isinstance(task.exception(), RuntimeError)
