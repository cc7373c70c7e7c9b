"""What the public table says about the hidden cards, and hidden cards drawn to agree with it.

Everything here reads a seat's `View` only. The clues used, seat by seat:
  * the cards it played in this hand are part of its three;
  * an envido value it declared is the envido of its three cards;
  * a flor it announced means its three cards make a flor; with flor in play and the flor
    round over (or never opened), a seat that did not announce one holds none (a holder must
    sing it, except where flor is optional or declared a ley: then nothing is inferred).

`sample_hands` draws the other seats' held cards consistent with those clues (the
information-set sampling of the `hard` level); `beliefs` turns them into the estimates the
`normal` level's heuristics read (engine/bots/seat.py `Beliefs`).
"""

from __future__ import annotations

import dataclasses
import random
from dataclasses import dataclass

from engine.bots.seat import ACCEPT, ENVIDO_BET, Beliefs, Seat, call_family, card_tables
from engine.bots.hand_index import HAND, HandIndex, hand_index
from engine.bots.style import DEFAULT
from engine.core.cards import Card
from engine.core.ruleset import FlorDeclaration, RuleSet
from engine.core.views import View

OPP_SAMPLES = 16  # drawn hands behind the normal level's card beliefs
MAX_TRIES = 30  # redraws before a clue that cannot be met is dropped
CALLER_DRAWS = 40  # drawn hands behind the reading of a truco caller's cards
# Weight of a drawn caller hand that would have made the call, against 1 for one that would
# not (a bluff, or a caller that plays otherwise): the rule-based bot bluffs about 1 in 17.
CALLED_RANGE = 12
QUIET_WEIGHT = 10  # ... of a value the silent opponent would not have bet on (_quiet_below)


@dataclass(frozen=True, slots=True)
class Clue:
    """What is known of one other seat's hand (codes of cards)."""

    seat: int
    played: tuple[int, ...]
    held: int  # cards it still holds
    envido: int | None  # the value it declared
    flor: bool | None  # True: it sang one; False: it holds none; None: unknown

    @property
    def narrowing(self) -> bool:
        return self.envido is not None or self.flor is True


def clues(view: View, rules: RuleSet) -> list[Clue]:
    """One clue per other seat that still holds cards in this hand."""
    me = view.viewer
    played: dict[int, list[int]] = {}
    for trick in view.tricks:
        for seat, card in trick:
            played.setdefault(seat, []).append(card.code)
    for seat, card in view.current_trick:
        played.setdefault(seat, []).append(card.code)
    declared = {seat: value for seat, value in view.envido_declarations if value is not None}
    flor_silence = (
        rules.flor
        and not rules.flor_optional
        and rules.flor_declaration is not FlorDeclaration.A_LEY
        and view.flor_status in ("none", "done")
        and view.phase == "play"
    )
    out = []
    for seat in range(view.n_players):  # seats out of a pica-pica duel hold cards too
        held = view.hand_sizes[seat]
        if seat == me or held == 0:
            continue
        mine = tuple(played.get(seat, ()))
        full = len(mine) + held == HAND
        flor: bool | None = None
        if rules.flor and full:
            if seat in view.flor_announced:
                flor = True
            elif flor_silence:
                flor = False
        envido = declared.get(seat) if full and rules.envido_ladder else None
        out.append(Clue(seat, mine, held, envido, flor))
    return out


def hidden_pool(view: View, rules: RuleSet) -> list[Card]:
    """The cards this seat has not seen in this hand (held by others or undealt)."""
    seen = {c.code for c in view.own_cards}
    for trick in view.tricks:
        seen.update(c.code for _, c in trick)
    seen.update(c.code for _, c in view.current_trick)
    if view.face_up is not None:
        seen.add(view.face_up.code)
    return [c for c in rules.deck if c.code not in seen]


def _candidates(clue: Clue, index: HandIndex, pool: set[int]) -> list[tuple[int, ...]] | None:
    """The held cards (codes) a narrowed seat may have, given the cards still free; None
    when the index lists no narrower set (a face-up game, no card seen, nothing to narrow by)."""
    base = (index.with_card(clue.played[0]) if clue.played
            else index.every_hand(clue.envido, clue.flor))
    if base is None:
        return None
    if not clue.played:  # (every hand of an envido value or a flor: the common case, thousands)
        envido, flor_wanted, held = clue.envido, clue.flor, clue.held
        return [codes for codes, value, flor in base
                if (envido is None or value == envido) and (flor_wanted is None or flor == flor_wanted)
                and len(codes) == held and pool.issuperset(codes)]
    played = set(clue.played)
    out = []
    for codes, value, flor in base:
        if clue.envido is not None and value != clue.envido:
            continue
        if clue.flor is not None and flor != clue.flor:
            continue
        if not played.issubset(codes):
            continue
        rest = tuple(c for c in codes if c not in played)
        if len(rest) == clue.held and pool.issuperset(rest):
            out.append(rest)
    return out


def sample_hands(view: View, rules: RuleSet, rng: random.Random,
                 found: list[Clue] | None = None) -> dict[int, tuple[Card, ...]]:
    """The cards each other seat holds, drawn at random among the deals that agree with
    every clue (clues that no deal can meet together are dropped one by one)."""
    return Sampler(view, rules, found).draw(rng)


class Sampler:
    """`sample_hands` for many draws from one view: the hands a narrowed seat may hold are
    listed once, each draw only filters them."""

    def __init__(self, view: View, rules: RuleSet, found: list[Clue] | None = None) -> None:
        self.found = clues(view, rules) if found is None else found
        self.by_code = {c.code: c for c in hidden_pool(view, rules)}
        self.index = hand_index(rules, view.face_up)
        self._options: dict[tuple[Clue, ...], dict[int, list[tuple[int, ...]] | None]] = {}

    def _narrowed(self, active: list[Clue]) -> dict[int, list[tuple[int, ...]] | None]:
        key = tuple(active)
        found = self._options.get(key)
        if found is None:
            pool = set(self.by_code)
            found = self._options[key] = {
                c.seat: _candidates(c, self.index, pool) for c in active if c.narrowing}
        return found

    def draw(self, rng: random.Random) -> dict[int, tuple[Card, ...]]:
        by_code = self.by_code
        active = list(self.found)
        for _ in range(MAX_TRIES * 2):
            drawn = _draw(active, self._narrowed(active), self.index, by_code, rng)
            if drawn is not None:
                return {seat: tuple(by_code[c] for c in codes) for seat, codes in drawn.items()}
            # Drop the strongest clue of a seat and try again (a bluffed or odd declaration).
            narrowed = [c for c in active if c.narrowing or c.flor is False]
            if not narrowed:
                break
            drop = narrowed[rng.randrange(len(narrowed))]
            active = [c if c is not drop else Clue(c.seat, c.played, c.held, None, None)
                      for c in active]
        free = list(by_code)
        rng.shuffle(free)
        out = {}
        for c in self.found:
            out[c.seat] = tuple(by_code[x] for x in free[:c.held])
            free = free[c.held:]
        return out


def _draw(active: list[Clue], narrowed: dict[int, list[tuple[int, ...]] | None],
          index: HandIndex, by_code: dict[int, Card],
          rng: random.Random) -> dict[int, tuple[int, ...]] | None:
    for _ in range(MAX_TRIES):
        free = set(by_code)
        drawn: dict[int, tuple[int, ...]] = {}
        ok = True
        # Narrowed seats first: their few possible hands must not be taken by others.
        for clue in sorted(active, key=lambda c: not c.narrowing):
            found = narrowed.get(clue.seat)
            options = None if found is None else [h for h in found if free.issuperset(h)]
            if options is not None:
                if not options:
                    ok = False
                    break
                pick: tuple[int, ...] | None = options[rng.randrange(len(options))]
            else:
                pick = _plain_pick(clue, index, free, rng)
            if pick is None:
                ok = False
                break
            drawn[clue.seat] = pick
            free.difference_update(pick)
        if ok:
            return drawn
    return None


def _plain_pick(clue: Clue, index: HandIndex, free: set[int],
                rng: random.Random) -> tuple[int, ...] | None:
    ordered = sorted(free)
    if len(ordered) < clue.held:
        return None
    for _ in range(MAX_TRIES):
        pick = tuple(rng.sample(ordered, clue.held))
        if clue.flor is not False or len(clue.played) + len(pick) != HAND:
            return pick
        if not index.is_flor(clue.played + pick):
            return pick
    return None


def beliefs(view: View, rules: RuleSet, rng: random.Random,
            read_bets: bool = True) -> Beliefs | None:
    """The normal level's estimates, or None when the table says nothing beyond what the
    plain heuristics assume (no declaration, no flor, no card of an opponent to read).
    `read_bets=False`: a truco bet is not read as the hand that would make it."""
    found = clues(view, rules)
    me = view.viewer
    assert me is not None
    team = view.teams[me]
    opps = [c for c in found if view.teams[c.seat] != team]
    cards: list[int] | None = None
    called = truco_caller(view, opps) if read_bets else None
    if called is not None:
        cards = caller_cards(view, rules, rng, found, called)
    if cards is None and any(c.narrowing for c in found):
        strength = card_tables(rules, view.face_up).strength
        pooled: list[int] = []
        sampler = Sampler(view, rules, found)
        for _ in range(OPP_SAMPLES):
            hands = sampler.draw(rng)
            for c in opps:
                pooled.extend(strength[card.code] for card in hands.get(c.seat, ()))
        cards = sorted(pooled) or None
    envido: dict[int, list[int]] = {}
    if view.envido_status in ("open", "betting") and _envido_decision(view, rules):
        # An opponent's cards on the table narrow its envido: every hand that holds them.
        pool = {c.code for c in hidden_pool(view, rules)}
        for c in opps:
            if not c.played or len(c.played) + c.held != HAND:
                continue
            index = hand_index(rules, view.face_up)
            values = _envido_values(c, index, pool, _quiet_below(view, rules, c))
            if values:
                envido[c.seat] = values
    if cards is None and not envido:
        return None
    return Beliefs(cards, envido, read_caller=called is not None and cards is not None)


def bets_refused(view: View) -> tuple[int, int]:
    """(hands of this game the other side won because this seat's side refused its bet,
    hands of this game): a truco refused that ended the hand, or an envido refused (the
    other side scored the single point of a refused envido). The rule-based bot wins about
    four hands in ten so; a player that bets whatever it holds wins far more."""
    me = view.viewer
    assert me is not None
    team = view.teams[me]
    refused = 0
    for hand in view.history:
        if hand.reason == "truco_declined" and hand.winner_team not in (None, team):
            refused += 1
        elif hand.envido is not None and hand.envido[0] != team and hand.envido[1] == 1:
            refused += 1
    return refused, len(view.history)



def hands_left(view: View) -> int:
    """Hands of this game the other side gave up (went to the mazo). The rule-based bot
    never does in a duel; a side that does plays otherwise, and its bets say less (against
    a random player, reading its trucos as the bot's made the normal level refuse them:
    81-89 % of games won where the plain bot won 91-95 %)."""
    me = view.viewer
    assert me is not None
    team = view.teams[me]
    return sum(1 for hand in view.history
               if hand.reason == "mazo" and hand.winner_team == team)

def truco_caller(view: View, opps: list[Clue]) -> int | None:
    """The seat whose truco-ladder bet waits for this seat's answer, when it is the only
    opponent still in the hand (a duel: its cards are then the whole of the other side)."""
    seat = view.truco_pending_seat
    me = view.viewer
    assert me is not None
    if seat is None or view.truco_pending_by == view.teams[me] or view.truco_pending_level is None:
        return None
    in_hand = [c.seat for c in opps if c.seat in view.players]
    return seat if in_hand == [seat] else None


def caller_cards(view: View, rules: RuleSet, rng: random.Random, found: list[Clue],
                 caller: int) -> list[int] | None:
    """The strengths of the cards the truco caller may hold, read from its call: hands are
    drawn among those that agree with the table, and each is weighed by whether the
    rule-based bot (engine/bots/bot.py, default tunables) holding it would have made this
    call: its hand equity reaching the step's threshold, or a bluff. None when no draw fits."""
    strength = card_tables(rules, view.face_up).strength
    sampler = Sampler(view, rules, found)
    pooled: list[int] = []
    for _ in range(CALLER_DRAWS):
        held = sampler.draw(rng).get(caller, ())
        if not held:
            continue
        weight = truco_caller_weight(view, rules, caller, held)
        pooled.extend(strength[card.code] for card in held for _ in range(weight))
    return sorted(pooled) or None


def truco_caller_weight(view: View, rules: RuleSet, caller: int, held: tuple[Card, ...]) -> int:
    """How much likelier the pending truco-ladder call makes the hand `held` for `caller`:
    CALLED_RANGE when the rule-based bot holding it would have made the call (its equity
    reaching the step's threshold), 1 when only a bluff would."""
    level = view.truco_pending_level
    assert level is not None
    calls = DEFAULT.truco_call
    threshold = calls[min(max(level - 1, 0), len(calls) - 1)]
    theirs = dataclasses.replace(view, viewer=caller, own_cards=held, legal=())
    return CALLED_RANGE if Seat(theirs, rules).equity() >= threshold else 1


def _envido_decision(view: View, rules: RuleSet) -> bool:
    """An envido call or answer is among the seat's choices (else its envido estimate is
    never read, and the hands behind it need not be built)."""
    return any(call_family(a.call, rules) in (ENVIDO_BET, ACCEPT) for a in view.legal)


def _quiet_below(view: View, rules: RuleSet, clue: Clue) -> int | None:
    """An opponent alone against this seat played a card while the envido was open and
    nobody bet: the rule-based bot would have opened it with a value worth betting, so its
    value is most likely below the one it opens with (returned); None when nothing can be read
    so (more players, a bet made, a flor that would have been sung instead)."""
    if view.envido_calls or view.envido_status != "open" or len(view.players) != 2:
        return None
    if not clue.played or clue.seat in view.flor_announced or clue.seat in view.ley_seats:
        return None
    table = card_tables(rules, view.face_up).envido
    return table[min(int(DEFAULT.envido_call * len(table)), len(table) - 1)]


def _envido_values(clue: Clue, index: HandIndex, pool: set[int],
                   quiet_below: int | None = None) -> list[int]:
    """The envido values of the hands the seat may hold (a value listed once per hand; with
    `quiet_below`, the values under it QUIET_WEIGHT times: see `_quiet_below`)."""
    played = set(clue.played)
    values = []
    for codes, value, flor in index.with_card(clue.played[0]):
        if clue.flor is False and flor:
            continue
        if not played.issubset(codes):
            continue
        if all(c in pool or c in played for c in codes):
            weight = QUIET_WEIGHT if quiet_below is not None and value < quiet_below else 1
            values.extend([value] * weight)
    return sorted(values)
