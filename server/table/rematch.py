"""Who a rematch waits for.

Everyone who holds a seat is asked. A player who is away (dropped, or not back since a
restart) does not keep the others waiting for the whole seat hold: once every player
present has asked, the table waits ``away_grace`` for the absent ones (as it does for
their moves), then starts the rematch with their seats still held for them; a bot
covers their decisions until they are back. If they come back before that, the rematch
waits for their answer like anyone's, and they see the final score first.
"""
from __future__ import annotations

import engine
from server.table.occupant import Occupant


def human_seats(seats: list[Occupant]) -> list[int]:
    return [i for i, o in enumerate(seats) if not o.bot]


def absent_voters(seats: list[Occupant], votes: set[int]) -> list[int]:
    """The away seats the rematch waits for, once every player present has asked for it."""
    present = [i for i, o in enumerate(seats) if not o.bot and not o.away]
    absent = [i for i, o in enumerate(seats) if not o.bot and o.away and i not in votes]
    if not votes or not absent or any(i not in votes for i in present):
        return []
    return absent


def agreed(state: engine.State | None, seats: list[Occupant], votes: set[int]) -> bool:
    """The match is over and every human still at the table asked for a rematch."""
    if state is None or not state.match_over or not votes:
        return False
    return set(human_seats(seats)) <= votes


def replace_the_departed(seats: list[Occupant]) -> None:
    """Before a new match: a seat whose person left is played by a bot of its own name
    (a match is never played, nor rated, in the name of someone who is gone)."""
    taken = {o.name for o in seats}
    free_names = (f"Bot {n}" for n in range(1, 99) if f"Bot {n}" not in taken)
    for occupant in seats:
        if occupant.was_human and occupant.bot:
            occupant.replaced_by_bot(next(free_names))
