"""The chance of winning a game from the points each side still needs (the hard level values
its playouts with it, engine/bots/hard.py).

A point is worth more near the end: at 0-0 of a game to 15 one point moves the chance of
winning by a few per cent; with the other side on 14 the hand that gives them one point ends
the game. Playouts valued in plain points (plus or minus the target when the hand ends the
game) miss everything in between, so a truco or envido decision near the end was weighed as
at the start. The model is a race: each hand one side, either with even odds, scores a
number of points drawn from HAND_POINTS (a rough reading of bot games: most hands are worth
1 or 2, a few carry an envido or a raised truco).
"""

from __future__ import annotations

from functools import lru_cache

# (points a hand gives the side that scores, share of hands)
HAND_POINTS = ((1, 0.35), (2, 0.3), (3, 0.17), (4, 0.1), (6, 0.08))
LIMIT = 64  # needs beyond this are read as LIMIT (no variant's target is that high)


@lru_cache(maxsize=1)
def _table() -> tuple[tuple[float, ...], ...]:
    """win[a][b]: the chance that the side needing `a` points wins against one needing `b`."""
    win = [[0.0] * (LIMIT + 1) for _ in range(LIMIT + 1)]
    for a in range(LIMIT + 1):
        for b in range(LIMIT + 1):
            if a == 0:
                win[a][b] = 1.0
            elif b == 0:
                win[a][b] = 0.0
            else:
                win[a][b] = sum(0.5 * p * (win[max(a - k, 0)][b] + win[a][max(b - k, 0)])
                                for k, p in HAND_POINTS)
    return tuple(tuple(row) for row in win)


def win_chance(need_us: int, need_them: int) -> float:
    """The chance of winning the game needing `need_us` points against `need_them`."""
    a = min(max(need_us, 0), LIMIT)
    b = min(max(need_them, 0), LIMIT)
    if a == 0 and b == 0:
        return 0.5
    return _table()[a][b]


def point_scale(target: int) -> float:
    """How many points of the game's first hand one unit of win chance is worth: playout
    values stay in points-like units (hard's thresholds read them so)."""
    t = min(max(target, 1), LIMIT)
    step = win_chance(t - 1, t) - win_chance(t, t)
    return 1.0 / step if step > 0 else float(t)
