"""Who sits in a seat: a person (connected or away) or a bot."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

import engine
import protocol as p
from protocol import deal_proof


@dataclass
class Occupant:
    name: str
    conn_id: int | None  # None while a bot plays the seat
    bot: bool = False
    away: bool = False  # a human whose connection dropped; the seat is held for them
    fingerprint: str | None = None  # the key that may reclaim the seat
    resume: str = ""  # the code a guest reclaims the seat with
    was_human: bool = False  # a person sat here (for "my games"), even if a bot plays on
    level: str = "normal"  # the bot's level (engine.BOT_LEVELS) when a bot plays the seat
    entropy: str = ""  # the person's random bytes (hex) for the next match's deals (p.AddEntropy)

    def __post_init__(self) -> None:
        if not self.bot:
            self.was_human = True

    # The lobby and the table hold the same occupants: these are the only ways a seat changes
    # hands, whichever of them sees it first.
    def leave(self) -> None:
        """The person left for good: a bot plays the seat from now on."""
        self.conn_id, self.bot, self.away = None, True, False

    def left_from(self, conn_id: int) -> bool:
        """The person on ``conn_id`` left: a bot plays on (True), unless the seat is held for
        them again on another connection since (False: it stays theirs)."""
        if self.held and self.conn_id != conn_id:
            return False
        self.leave()
        return True

    def replaced_by_bot(self, name: str) -> None:
        """A new match begins without the person who left: the bot that played on for them
        becomes a bot of its own, so the match is neither played nor rated in their name."""
        if self.was_human and self.bot:
            self.name, self.was_human, self.fingerprint, self.resume = name, False, None, ""

    def drop(self) -> None:
        """The person's connection dropped: the seat is held for them."""
        self.conn_id, self.away = None, True

    def back(self, conn_id: int) -> None:
        """The person is back on connection ``conn_id``."""
        self.conn_id, self.away, self.bot = conn_id, False, False

    def release(self) -> None:
        """The hold ran out: a bot plays the seat for good."""
        self.away, self.bot = False, True

    def info(self) -> p.SeatInfo:
        return p.SeatInfo(name=self.name, bot=self.bot, away=self.away,
                          level=self.level if self.bot else "")

    @property
    def held(self) -> bool:
        """A human's seat, whether connected or away (not given to a bot for good)."""
        return not self.bot

    def to_record(self) -> dict[str, Any]:
        return {"name": self.name, "fp": self.fingerprint, "resume": self.resume,
                "bot": self.bot, "human": self.was_human, "level": self.level, "entropy": self.entropy}

    @classmethod
    def from_record(cls, d: dict[str, Any]) -> "Occupant":
        bot = bool(d.get("bot"))
        o = cls(name=str(d["name"]), conn_id=None, bot=bot, away=not bot,
                fingerprint=d.get("fp"), resume=str(d.get("resume") or ""))
        o.was_human = bool(d.get("human", not bot))
        level = str(d.get("level") or "normal")
        o.level = level if level in engine.BOT_LEVELS else "normal"
        o.entropy = str(d.get("entropy") or "")[:2 * deal_proof.ENTROPY_MAX]
        return o


def rated_seats(seats: Sequence[Occupant | None]) -> bool:
    """Every seat a person with a key of their own: a rated match (server/store/ratings.py)."""
    keys = [o.fingerprint for o in seats if o is not None and not o.bot and o.fingerprint]
    return len(keys) == len(seats) and len(set(keys)) == len(keys)
