"""How a table turns what happens into engine actions and records: a bot's move for a seat, the first dealer of a rematch, a finished match's record.

Pure functions of the table's data; the actor applies and logs what they return.
"""
from __future__ import annotations

import logging
import random
import time

import engine
from engine.bots.senas import choose_with_senas
from protocol.text import name_key
from server.store import GameRecord
from server.table.occupant import Occupant

log = logging.getLogger(__name__)


def bot_action(seat_view: engine.View, rules: engine.RuleSet, rng: random.Random,
               partner_senas: tuple[tuple[int, str], ...] = (),
               level: str = engine.BOT_DEFAULT_LEVEL,
               worlds: engine.Worlds | None = None) -> engine.Action:
    """The bot's move at `level` for a seat the table waits on (``seat_view.legal`` is not
    empty), its partners' señas of this hand weighed (engine/bots/senas.py); `worlds` lets
    the hard level search (server/table/bots.py runs it off the loop)."""

    def at_level(view: engine.View, rules: engine.RuleSet, rng: random.Random) -> engine.Action | None:
        return engine.choose_for_level(level, view, rules, rng, worlds=worlds)

    action = choose_with_senas(seat_view, rules, rng, partner_senas, choose=at_level, level=level)
    if action is None:
        # The bot would rather wait, but the table waits on this seat: make the
        # least committal move (a card, else an acceptance, else whatever is legal).
        by_call = {a.call: a for a in seat_view.legal}
        action = next(
            (a for a in seat_view.legal if a.call is engine.Call.PLAY),
            by_call.get(engine.Call.QUIERO, seat_view.legal[0]),
        )
    return action


def next_first_dealer(events: list[engine.Event], n_seats: int) -> int | None:
    """A rematch deals first from the seat after the last match's first dealer, so its
    first mano is the seat after the last match's first mano; a first match draws it.
    The previous match start is the first of ``events`` (also after a restore from the log)."""
    started = events[0] if events else None
    if not isinstance(started, engine.MatchStarted):
        return None
    return (started.first_dealer + 1) % n_seats


def game_record(table_id: str, match_no: int, variant: str, title: str, seats: list[Occupant],
                state: engine.State, deal_secret: str) -> tuple[GameRecord, list[tuple[int, str, str | None]]]:
    """A finished match's record, and (seat, name key, fingerprint) of each person who played.
    ``deal_secret``: the match's (hex), kept for the proof of its deals (protocol/deal_proof.py)."""
    game = GameRecord(
        table_id=table_id, match_no=match_no, variant=variant, title=title,
        seats=[o.name for o in seats], scores=list(state.scores), winner=state.winner,
        hands=state.deal_no,  # one per hand_dealt (the events may start at a snapshot)
        finished_at=int(time.time()),
        # left for good before the end (a bot finished for them): a rated loss for them
        abandoned=tuple(i for i, o in enumerate(seats) if o.was_human and o.bot),
        deal_secret=deal_secret,
    )
    log.info("table %s: match %s over, scores %s", table_id, match_no, game.scores, extra={"table": table_id})
    return game, [(i, name_key(o.name), o.fingerprint) for i, o in enumerate(seats) if o.was_human]
