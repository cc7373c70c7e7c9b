"""What a bot's partners signalled to it (señas) before a decision: the per-decision input
every level accepts, so that partner signals reach the levels without changing their
signatures. Empty here: the señas lane (engine/bots/senas.py) fills it; levels that do not
read it ignore it."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Signals:
    # (partner seat, signal name) pairs seen in this hand, oldest first.
    seen: tuple[tuple[int, str], ...] = ()
