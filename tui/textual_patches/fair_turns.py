"""A widget's message queue gives the event loop back after a few milliseconds of work.

Textual 8.2.8's ``MessagePump._process_messages_loop`` takes the next message with
``await self._get_message()``, which returns at once, without going back to the event loop,
while the queue holds one. A widget with a backlog therefore handles all of it in one run:
in a server every player's session shares that loop, so one session's burst of events (a
pasted text, keys typed ahead, a flood) held everyone's input, table updates and log commits
for as long as it took: 108 ms in one run of a chat input's queue under a paste flood
(``tests/bench/flood_bench.py --kinds paste``, asyncio's debug report of slow callbacks).
Here a pump that has been handling messages for :data:`SLICE` seconds without waiting lets
the loop run everything else that is ready first (``asyncio.sleep(0)``), then goes on with
its queue in the same order. The session's input gate (server/session/input_gate.py)
charges each of those shorter runs to the session as it happens.

Patched: ``textual.message_pump.MessagePump._get_message``.
Upstream would need: a yield in ``_process_messages_loop`` after a time slice.
"""
from __future__ import annotations

import asyncio
from time import perf_counter
from typing import Any, Callable, Coroutine

from textual.message import Message
from textual.message_pump import MessagePump

#: Seconds of back-to-back messages a pump handles before the rest of the loop has a turn.
SLICE = 0.004
_RUN_STARTED = "_truco_run_started"  # when the pump last came back from the event loop
_original: Callable[[MessagePump], Coroutine[Any, Any, Message]] | None = None


async def _get_message(self: MessagePump) -> Message:
    assert _original is not None
    if self._message_queue.empty() and self._pending_message is None:
        message = await _original(self)  # it waits: the loop runs everything else meanwhile
        setattr(self, _RUN_STARTED, perf_counter())
        return message
    if perf_counter() - getattr(self, _RUN_STARTED, 0.0) > SLICE:
        await asyncio.sleep(0)
        setattr(self, _RUN_STARTED, perf_counter())
    return await _original(self)


def install() -> None:
    """Replace ``_get_message``; a second call changes nothing."""
    global _original
    if _original is not None:
        return
    _original = MessagePump._get_message
    MessagePump._get_message = _get_message  # type: ignore[method-assign]
