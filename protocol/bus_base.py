"""The base of the messages that travel only between server processes (protocol/bus.py)."""
from __future__ import annotations

from protocol.messages import Message


class BusMessage(Message):
    """Published by one server process for the others."""
