"""Where a table's bots think: the quick levels in the table's own task (tens of
microseconds to a few milliseconds), the hard level's search (0.2-0.4 s of CPU time, 1 s of
wall time at most) in another process (server/table/search_pool.py), so it never holds the
event loop; its move comes back through the table's inbox.

The pool has a process per core; searches beyond it queue. The search is pure Python on
immutable engine values (a frozen State, its View), pickled to the worker and back.
"""
from __future__ import annotations

import asyncio
import logging
import random
from typing import Callable

import engine
from server.table import messages as m
from server.table.moves import bot_action
from server.table.search_pool import POOL

log = logging.getLogger(__name__)

SEARCHING_LEVELS = frozenset({"hard"})
_searches: set[asyncio.Task[None]] = set()  # kept until done (the loop holds tasks weakly)


class Thinker:
    """A table's bots: a move now for the quick levels, or a search started for the hard
    one (one per state of the table) whose move comes back as BotChosen."""

    def __init__(self, rules: engine.RuleSet, post: Callable[[m.TableMessage], None]) -> None:
        self.rules = rules
        self.post = post
        self.searching = -1  # the seq a search is running for

    def move(self, state: engine.State, seat: int, seq: int, level: str,
             rng: random.Random, senas: tuple[tuple[int, str], ...] = ()) -> engine.Action | None:
        """The move to apply now; None when the seat has nothing to do or a search runs.
        `senas`: the seat's partners' señas of this hand."""
        seat_view = engine.view(state, seat)
        if not seat_view.legal:
            return None
        if level in SEARCHING_LEVELS:
            if self.searching != seq:
                self.searching = seq
                search(state, seat, seq, self.rules, rng, level, self.post, senas)
            return None
        return bot_action(seat_view, self.rules, rng, senas, level=level)

    def chosen(self, state: engine.State, seat: int, action: engine.Action | None,
               rng: random.Random) -> engine.Action | None:
        """A search's move for the state it started from (the caller checked the seq); an
        illegal or missing one is replaced by the default level's move at once."""
        self.searching = -1
        seat_view = engine.view(state, seat)
        if not seat_view.legal:
            return None
        if action is None or action not in seat_view.legal:
            action = bot_action(seat_view, self.rules, rng)
        return action


def search(state: engine.State, seat: int, seq: int, rules: engine.RuleSet,
           rng: random.Random, level: str, post: Callable[[m.TableMessage], None],
           senas: tuple[tuple[int, str], ...] = ()) -> None:
    """Start the level's decision for `seat` in a search process; post BotChosen when it is
    done (with None if it failed: the table then moves for the bot at once)."""
    seat_view = engine.view(state, seat)
    worlds = engine.Worlds(state, seat)

    async def searching() -> None:
        try:
            action = await POOL.run(bot_action, seat_view, rules, rng, senas, level=level, worlds=worlds)
        except Exception as exc:  # the search's own failure: logged, the table moves on
            log.warning("bot search for seat %s failed: %r", seat, exc)
            action = None
        post(m.BotChosen(seat, seq, action))

    task = asyncio.get_running_loop().create_task(searching())
    _searches.add(task)
    task.add_done_callback(_searches.discard)
