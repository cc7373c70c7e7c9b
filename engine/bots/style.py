"""A bot's tunables as one frozen value, so that levels differ by data, not by copies of the
moves (engine/bots/moves.py reads them from `Seat.style`). The defaults are the rule-based
bot of issue 6 (`engine.choose_action`); `normal` moves them with the score."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Style:
    truco_call: tuple[float, float, float] = (0.68, 0.78, 0.86)  # equity to call step 1, 2, 3+
    truco_bluff: float = 0.06  # chance to open truco with a weak hand on one's own turn
    truco_slowplay: float = 0.15  # chance to hold back a strong truco for a later turn
    caller_discount: float = 0.82  # a truco call against us means the caller's cards are better
    read_discount: float = 1.0  # ... once the caller's cards were drawn from its calling range
    envido_call: float = 0.62  # envido win chance needed to open
    envido_raise: float = 0.82  # ... to raise an envido bet
    envido_bluff: float = 0.04
    # Open with the falta envido only when winning it wins the game: a falta is mostly
    # refused (1 point), where a plain envido with the same hand is mostly taken (2).
    falta_to_win: bool = False
    flor_raise_at: float = 0.80
    flor_concede_at: float = 0.18
    accept_margin: float = 0.0  # added to the expected gain of taking a bet (>0: braver)
    # Reading an envido bet of the other team: its value is taken from the top of the range
    # (from the quantile the bet suggests, moved by caller_shift) with weight caller_weight,
    # from any hand otherwise (a bluff).
    caller_weight: float = 0.65
    caller_shift: float = 0.0
    # At 4 and 6 players, a seat with a partner still to play in the trick leaves the trick
    # to him (engine/bots/moves.py `_team_card`); the issue 6 bot plays each seat alone.
    team_play: bool = False


DEFAULT = Style()
