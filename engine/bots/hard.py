"""The `hard` level: information-set search over the rest of the hand.

For a decision the seat must take (a card to play, a bet to answer, calls on its own turn):
  1. draw the other seats' hidden cards so they agree with everything public
     (engine/bots/infer.py `sample_hands`: cards played, envido values said, flores sung),
     a pending bet of the other side making the hands it would be made with likelier, as
     the normal level reads it (engine/bots/reads.py);
  2. build that world (engine/core/worlds.py: the table's state with every hidden card
     replaced by the drawn ones, so nothing hidden leaks into it);
  3. for each legal move, apply it with the engine's own `apply` and play the hand out with
     the `normal` level for every seat (without its card inference, for speed), with the
     same random stream for every move (common random numbers: the moves are compared on
     the same futures);
  4. value a playout by how much it moves the chance of winning the game (engine/bots/odds.py:
     a point near the end is worth more than one at the start, a hand that ends the game is
     a win or a loss), in points of a first hand; keep the normal level's move unless
     another beats it, world by world, by more than its noise (`_pick`).

Decisions it does not search (an optional initiative off one's turn, the flor round, a table
without a `Worlds`) are the normal level's. The search is bounded by a number of worlds and a
time limit (0.4 s of CPU time by default, 1 s of wall time at most, checked before every
playout: the issue's budget is 0.5 s per decision on one core); the table runs it off the
event loop (server/table/bots.py). With `time_limit=None` the result is a function of the
view and the rng alone (the tests).
"""

from __future__ import annotations

import random
import time
from typing import Any

from engine.bots import infer, normal, odds, reads
from engine.bots.bot import choose_action, is_obliged
from engine.bots.seat import UNKNOWN, call_family
from engine.bots.signals import Signals
from engine.core.actions import Action
from engine.core.calls import Call
from engine.core.errors import IllegalAction
from engine.core.game import apply, legal_actions
from engine.core.ruleset import RuleSet
from engine.core.views import View, view as seat_view
from engine.core.worlds import NoWorld, Worlds

WORLDS = 300  # drawn deals per decision, at most: the CPU budget ends the search (at 120 hard stopped at ~120 ms of its 400)
# Seconds of the deciding thread's CPU time per decision, checked before every playout (a
# playout takes a few ms): the budget is 0.5 s on one core, less a margin for the
# normal level's own choice and the drawing. CPU time, so that a busy machine does not make
# the bot weaker; WALL_LIMIT caps the wall time all the same, so a table is never held long.
TIME_LIMIT = 0.4
WALL_LIMIT = 1.0
MAX_STEPS = 200  # actions in one playout (a hand takes a few dozen at most)
PREFER_NORMAL = 0.05  # points: the least advantage that moves hard off the normal move
CAUTION = 1.0  # standard errors an advantage must clear (see _pick)


def choose(view: View, rules: RuleSet, rng: random.Random, *,
           worlds: Worlds | None = None, signals: Signals | None = None,
           strict: bool = False, n_worlds: int = WORLDS,
           time_limit: float | None = TIME_LIMIT,
           wall_limit: float | None = WALL_LIMIT) -> Action | None:
    """`time_limit`: CPU seconds of the search (None: no clock at all, `n_worlds` only);
    `wall_limit`: wall seconds at most (None: no wall cap, for a benchmark on a busy
    machine that measures the bot under its CPU budget)."""
    deadline = None if time_limit is None else _Deadline(time_limit, wall_limit)
    base = normal.choose(view, rules, rng, signals=signals, strict=strict)
    if (worlds is None or base is None or view.phase != "play"
            or view.flor_status not in ("none", "done") or not is_obliged(view, rules)):
        return base
    moves = _candidates(view, rules)
    if len(moves) <= 1:
        return base if base in moves or not moves else moves[0]
    try:
        worlds.check()
    except NoWorld:
        return base
    try:
        best = _search(view, rules, rng, worlds, moves, base, n_worlds, deadline)
    except Exception:
        if strict:
            raise
        return base
    return best


def _candidates(view: View, rules: RuleSet) -> list[Action]:
    """The legal moves worth comparing: every one of a known family (calls this bot does
    not understand are left to the normal level), without duplicates."""
    out: list[Action] = []
    for a in view.legal:
        if call_family(a.call, rules) == UNKNOWN or a.call is Call.MALDON:
            continue
        if a not in out:
            out.append(a)
    return out


def _search(view: View, rules: RuleSet, rng: random.Random, worlds: Worlds,
            moves: list[Action], base: Action, n_worlds: int,
            deadline: _Deadline | None) -> Action:
    me = view.viewer
    assert me is not None
    mine, theirs = _score_sides(view, me)
    sampler = infer.Sampler(view, rules)
    # The other side's pending bet, read as the normal level reads it (engine/bots/reads.py),
    # unless that side is seen betting on anything (normal reads nothing then either)
    read = None if normal.bluffed(view) else reads.pending(view, rules, normal.style_for(view))
    if base not in moves:
        moves = [base, *moves]
    b = moves.index(base)
    values: list[list[float | None]] = [[] for _ in moves]  # per move, per world
    for _ in range(n_worlds):
        hands = sampler.draw(rng) if read is None else read.draw(lambda: sampler.draw(rng), rng)
        seed = rng.getrandbits(32)
        try:
            world = worlds.make(hands)
        except NoWorld:
            continue  # a draw that had to drop a clue the engine holds it to: another one
        for i, move in enumerate(moves):
            if deadline is not None and deadline.passed():
                return moves[_pick(values, b)]  # the rows stay aligned world by world
            try:
                after, _ = apply(world, move)
            except IllegalAction:
                values[i].append(None)
                continue
            end = _play_out(after, rules, random.Random(seed))
            values[i].append(_value(world, end, mine, theirs, view.target))
    return moves[_pick(values, b)]


class _Deadline:
    __slots__ = ("cpu", "wall")

    def __init__(self, cpu_seconds: float, wall_seconds: float | None) -> None:
        self.cpu = time.thread_time() + cpu_seconds
        self.wall = (float("inf") if wall_seconds is None
                     else time.perf_counter() + max(wall_seconds, cpu_seconds))

    def passed(self) -> bool:
        return time.thread_time() > self.cpu or time.perf_counter() > self.wall


def _pick(values: list[list[float | None]], base: int) -> int:
    """The move whose advantage over the normal level's move (paired world by world) is
    largest once its noise is counted: mean difference minus CAUTION standard errors. With
    a few dozen worlds the best-looking of several moves is often only the luckiest; the
    normal move stays unless another beats it clearly."""
    best, best_score = base, PREFER_NORMAL
    for i, row in enumerate(values):
        if i == base:
            continue
        diffs = [v - w for v, w in zip(row, values[base]) if v is not None and w is not None]
        n = len(diffs)
        if n < 2:
            continue
        mean = sum(diffs) / n
        var = sum((d - mean) ** 2 for d in diffs) / (n - 1)
        score = mean - CAUTION * (var / n) ** 0.5
        if score > best_score:
            best, best_score = i, score
    return best


def _score_sides(view: View, me: int) -> tuple[list[int], list[int]]:
    """Indexes of the score entries credited to this seat's side, and of the others."""
    holders = view.score_holders
    if holders and len(holders) == len(view.scores):
        mine = [i for i, seats in enumerate(holders) if me in seats]
    else:
        mine = [view.teams[me]]
    theirs = [i for i in range(len(view.scores)) if i not in mine]
    return mine, theirs


def _value(before: Any, after: Any, mine: list[int], theirs: list[int], target: int) -> float:
    """The playout's change in the chance of winning the game (engine/bots/odds.py), in
    points of a game's first hand: a point near the end weighs what it is worth there."""
    return odds.point_scale(target) * (_chance(after, mine, theirs, target)
                                       - _chance(before, mine, theirs, target))


def _chance(state: Any, mine: list[int], theirs: list[int], target: int) -> float:
    top_mine = max(state.scores[i] for i in mine)
    top_theirs = max((state.scores[i] for i in theirs), default=0)
    if state.game_winner is not None or state.match_over:
        if top_mine >= target and top_mine >= top_theirs:
            return 1.0
        if top_theirs >= target:
            return 0.0
    return odds.win_chance(target - top_mine, target - top_theirs)


def _play_out(state: Any, rules: RuleSet, rng: random.Random) -> Any:
    """Play to the end of the hand with the normal level at every seat (no inference)."""
    hand = state.deal_no
    for _ in range(MAX_STEPS):
        if state.needs_deal or state.match_over or state.deal_no != hand:
            return state
        seats = [s for s in range(state.n) if legal_actions(state, s)]
        if not seats:
            return state
        rng.shuffle(seats)
        chosen = None
        first_view = None
        for seat in seats:
            v = seat_view(state, seat, lean=True)  # the bot reads no guide field
            first_view = first_view or v
            chosen = choose_action(v, rules, rng, style=normal.style_for(v))
            if chosen is not None:
                break
        if chosen is None:
            assert first_view is not None
            legal = first_view.legal
            chosen = next((a for a in legal if a.call is Call.PLAY),
                          next((a for a in legal if a.call is Call.QUIERO), legal[0]))
        state, _ = apply(state, chosen)
    return state
