"""Ctrl-C and SIGTERM stop a server (its ``stop`` event) while it runs."""
from __future__ import annotations

import asyncio
import signal
import threading

STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)


def catch_stop_signals(stop: asyncio.Event) -> bool:
    """Have the stop signals set ``stop``; False where they cannot be caught: signals reach
    only the main thread, and tests run servers in others and stop them by the event."""
    if threading.current_thread() is not threading.main_thread():
        return False
    loop = asyncio.get_running_loop()
    for sig in STOP_SIGNALS:
        loop.add_signal_handler(sig, stop.set)
    return True


def release_stop_signals(caught: bool) -> None:
    if caught:
        loop = asyncio.get_running_loop()
        for sig in STOP_SIGNALS:
            loop.remove_signal_handler(sig)
