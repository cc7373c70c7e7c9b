"""Messages the widgets post up to their screen (instead of taking callbacks)."""
from __future__ import annotations

from dataclasses import dataclass

from textual.message import Message


@dataclass
class CardPicked(Message):
    """A card of the hand was clicked: its index in the hand (0 is the leftmost)."""

    index: int


@dataclass
class CallPicked(Message):
    """A cell of the calls grid was clicked: its index among the cells."""

    index: int


@dataclass
class Redraw(Message):
    """A panel whose content depends on its width was resized: draw it again."""
