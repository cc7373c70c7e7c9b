"""What the bot knows of its seat: the call families, cached card tables, the seat's
situation read from its view and the chance estimates (engine/bots/bot.py decides)."""

from __future__ import annotations

import random
from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from typing import Any

from engine.core.calls import Call
from engine.core.cards import Card
from engine.core.ruleset import RuleSet
from engine.core.views import View
from engine.bots.style import DEFAULT, Style


# ---------------------------------------------------------------- families

PLAY = "play"
TRUCO = "truco"
ACCEPT = "accept"
DECLINE = "decline"
ENVIDO_BET = "envido_bet"
DECLARE = "declare"
SON_BUENAS = "son_buenas"
FLOR_ANNOUNCE = "flor_announce"
FLOR_ACCEPT = "flor_accept"
FLOR_RAISE = "flor_raise"
FLOR_CONCEDE = "flor_concede"
FLOR_PASS = "flor_pass"
MAZO = "mazo"
ASK_FLOR = "ask_flor"  # "pido flor" before answering a truco (Venezuelan, 001 L48)
UNKNOWN = "unknown"

# Optional initiatives: a seat whose legal actions are only these may wait (return None).
INITIATIVES = frozenset({TRUCO, ENVIDO_BET, MAZO})

# Tunables (probabilities and thresholds on the 0..1 estimates above); a bot reads them
# from its Style (engine/bots/style.py, whose defaults are these).
TRUCO_CALL = (0.68, 0.78, 0.86)  # equity needed to call the 1st, 2nd, 3rd+ truco step
TRUCO_BLUFF = 0.06  # chance to open truco with a weak hand on one's own turn
TRUCO_SLOWPLAY = 0.15  # chance to hold back a strong truco for a later turn
CALLER_DISCOUNT = 0.82  # a truco call against us means the caller's cards are better
ENVIDO_CALL = 0.62  # envido win chance needed to open
ENVIDO_RAISE = 0.82  # ... to raise an envido bet
ENVIDO_BLUFF = 0.04
FLOR_RAISE_AT = 0.80
FLOR_CONCEDE_AT = 0.18
SAMPLE_HANDS = 600


def call_family(call: Call, rules: RuleSet) -> str:
    """The family of a call under `rules`; calls unknown to this module by their name."""
    if call is Call.PLAY:
        return PLAY
    for step in rules.truco_ladder:
        if step.call is call:
            return TRUCO
    name = call.value
    if name == "quiero":
        return ACCEPT
    if name == "no_quiero":
        return DECLINE
    if name == "mazo":
        return MAZO
    if name == "declare_envido":
        return DECLARE
    if name == "son_buenas":
        return SON_BUENAS
    if call is Call.PEDIR_FLOR:
        return ASK_FLOR
    for estep in rules.envido_ladder:
        if estep.call is call:
            return ENVIDO_BET
    if "flor" in name or "ley" in name:
        if "no_quiero" in name or "achic" in name:
            return FLOR_CONCEDE
        if "quiero" in name:
            return FLOR_ACCEPT
        if "contra" in name or "resto" in name:
            return FLOR_RAISE
        if "pass" in name:
            return FLOR_PASS
        return FLOR_ANNOUNCE
    return UNKNOWN


_RAISE_WORDS = ("truco", "vale", "envid", "falta", "resto", "contra", "seis", "six",
                "nueve", "nine", "doce", "twelve", "juego", "piedra", "igualar", "pintan")
_DECLINE_WORDS = ("no_quiero", "achic", "mazo", "fold", "me_voy")


def _reads_like_raise(call: Call) -> bool:
    return any(w in call.value for w in _RAISE_WORDS)


def _reads_like_decline(call: Call) -> bool:
    return any(w in call.value for w in _DECLINE_WORDS)


def _reads_like_accept(call: Call) -> bool:
    return "quiero" in call.value and not _reads_like_decline(call)


def unknown_rank(call: Call) -> int:
    """Preference among calls this module does not know (lower is preferred): a plain
    acceptance, a neutral call, an acceptance with a raise, a refusal, a raise."""
    accept, raise_, decline = (_reads_like_accept(call), _reads_like_raise(call),
                               _reads_like_decline(call))
    if accept and not raise_:
        return 0
    if not (accept or raise_ or decline):
        return 1
    if accept:
        return 2
    if decline:
        return 3
    return 4


# ---------------------------------------------------------------- cached tables


class _Tables:
    """Per (rule set, face-up card): trick strength by card code, and sorted samples of
    envido and flor values of random hands."""

    __slots__ = ("rules", "strength", "envido", "flor")

    def __init__(self, rules: RuleSet, face_up: Card | None) -> None:
        self.rules = rules
        deck = [c for c in rules.deck if c != face_up]
        self.strength = {c.code: rules.strength(c, face_up) for c in rules.deck}
        sampler = random.Random(0x7B0C)  # fixed: the tables are a property of the rules
        envido: list[int] = []
        flor: list[int] = []
        per = 3
        for _ in range(SAMPLE_HANDS):
            hand = tuple(sampler.sample(deck, per))
            fv = rules.flor_fn(hand, face_up) if rules.flor else None
            if fv is not None:
                flor.append(int(fv))
            else:
                envido.append(int(rules.envido(hand, face_up)))
        if rules.flor:
            # Every hand of one suit is a flor in every Spanish-deck variant: add them all.
            by_suit: dict[Any, list[Card]] = {}
            for c in deck:
                by_suit.setdefault(c.suit, []).append(c)
            for cards in by_suit.values():
                for i, a in enumerate(cards):
                    for j in range(i + 1, len(cards)):
                        for k in range(j + 1, len(cards)):
                            fv = rules.flor_fn((a, cards[j], cards[k]), face_up)
                            if fv is not None:
                                flor.append(int(fv))
        self.envido = sorted(envido) or [0]
        self.flor = sorted(flor) or [0]


_TABLES: dict[tuple[int, int], _Tables] = {}


def card_tables(rules: RuleSet, face_up: Card | None) -> _Tables:
    key = (id(rules), -1 if face_up is None else face_up.code)
    found = _TABLES.get(key)
    if found is None or found.rules is not rules:
        if len(_TABLES) > 512:
            _TABLES.clear()
        found = _TABLES[key] = _Tables(rules, face_up)
    return found


def share_below(sorted_values: Sequence[int], value: int, lo: int = 0) -> float:
    """Share of sorted_values[lo:] below `value`, ties counting half."""
    n = len(sorted_values) - lo
    if n <= 0:
        return 0.5
    below = bisect_left(sorted_values, value, lo) - lo
    equal = bisect_right(sorted_values, value, lo) - lo - below
    return (below + 0.5 * equal) / n


# ---------------------------------------------------------------- the seat's situation


class Beliefs:
    """What a level infers about the hidden cards (engine/bots/infer.py): the strengths of
    the cards the opponents may still hold (None: every unseen card alike) and, per
    opponent, the envido values it may hold (None: any hand alike). Sorted lists.
    `read_caller`: the opponent's cards were drawn among the hands that would have made the
    truco bet waiting for our answer (its strength is counted: no further discount)."""

    __slots__ = ("opponent_cards", "envido_by_seat", "read_caller")

    def __init__(self, opponent_cards: list[int] | None,
                 envido_by_seat: dict[int, list[int]], read_caller: bool = False) -> None:
        self.opponent_cards = opponent_cards
        self.envido_by_seat = envido_by_seat
        self.read_caller = read_caller


class Seat:
    """What the bot derives from the view once per decision; `style` holds the level's
    tunables and `beliefs` what it inferred about the hidden cards."""

    def __init__(self, view: View, rules: RuleSet, style: Style = DEFAULT,
                 beliefs: Beliefs | None = None) -> None:
        assert view.viewer is not None
        self.view = view
        self.rules = rules
        self.style = style
        self.beliefs = beliefs
        self.me = me = view.viewer
        self.team = team = view.teams[me]
        self.tables = tables = card_tables(rules, view.face_up)
        strength = tables.strength

        def card_strength(card: Card) -> int:
            return strength[card.code]

        self.s = card_strength
        in_hand = view.players
        self.n_opp = sum(1 for p in in_hand if view.teams[p] != team)
        self.n_mate = sum(1 for p in in_hand if view.teams[p] == team and p != me)
        played: list[Card] = []
        mine_played: list[Card] = []
        for trick in view.tricks:
            for seat, card in trick:
                played.append(card)
                if seat == me:
                    mine_played.append(card)
        for seat, card in view.current_trick:
            played.append(card)
            if seat == me:
                mine_played.append(card)
        gone = {c.code for c in played}
        gone.update(c.code for c in view.own_cards)
        if view.face_up is not None:
            gone.add(view.face_up.code)
        # Cards from earlier hands that were shown are back in the deck: not excluded.
        self.unseen = sorted(strength[c.code] for c in rules.deck if c.code not in gone)
        if beliefs is not None and beliefs.opponent_cards:
            self.unseen = beliefs.opponent_cards
        self.my_cards = tuple(view.own_cards) + tuple(mine_played)
        self.hand = sorted(view.own_cards, key=self.s, reverse=True)  # best first
        results = view.trick_results
        self.won = sum(1 for r in results if r == team)
        self.lost = sum(1 for r in results if r is not None and r != team)
        self.pardas = sum(1 for r in results if r is None)
        my_score, their_score = view.scores[team], view.scores[1 - team]
        self.my_score, self.their_score = my_score, their_score
        self.target = view.target

    # -- cards

    def pct(self, strength: int) -> float:
        """Chance that one unseen card is weaker than `strength` (ties half)."""
        return share_below(self.unseen, strength)

    def trick_chance(self, strength: int, opps: int, mates: int) -> float:
        """Chance the team takes a trick where our best card so far has `strength` and
        `opps` opponents and `mates` partners still play unseen cards."""
        p = self.pct(strength) ** opps if opps else 1.0
        if strength < 0:
            p = 0.0
        help_share = 1.0 / (opps + 1) if opps else 0.0
        return 1.0 - (1.0 - p) * (1.0 - help_share) ** mates

    def table(self) -> tuple[int, int, int, int]:
        """(best strength of ours on the table, of theirs, opponents still to play,
        partners still to play) in the current trick."""
        view, team = self.view, self.team
        ours = theirs = -1
        done = set()
        for seat, card in view.current_trick:
            done.add(seat)
            st = self.s(card)
            if view.teams[seat] == team:
                ours = max(ours, st)
            else:
                theirs = max(theirs, st)
        opps = sum(1 for p in view.players if p not in done and view.teams[p] != team)
        mates = sum(1 for p in view.players
                    if p not in done and view.teams[p] == team and p != self.me)
        return ours, theirs, opps, mates

    def card_trick_chance(self, card_strength: int) -> float:
        """Chance the team takes the current trick if this seat plays a card of that
        strength now (the seat has not played to this trick)."""
        ours, theirs, opps, mates = self.table()
        best = max(ours, card_strength)
        if best > theirs:
            return self.trick_chance(best, opps, mates)
        if best == theirs:
            return 0.5 * self.trick_chance(best, opps, mates)
        # Behind on the table: only a partner still to play can take it.
        if not mates:
            return 0.0
        return 1.0 - (1.0 - self.pct(theirs + 1) * (1.0 - self.pct(theirs))) ** mates

    def equity(self) -> float:
        """Chance of winning the hand from here (the truco decisions' input)."""
        view = self.view
        chances: list[float] = []
        cards = [self.s(c) for c in self.hand]
        played_now = any(seat == self.me for seat, _ in view.current_trick)
        if view.current_trick or cards:
            if played_now:
                ours, theirs, opps, mates = self.table()
                if ours > theirs:
                    chances.append(self.trick_chance(ours, opps, mates))
                elif ours == theirs:
                    chances.append(0.5 * self.trick_chance(ours, opps, mates))
                else:
                    chances.append(0.0 if not mates else
                                   1.0 - (1.0 - self.pct(theirs + 1) * 0.5) ** mates)
            elif cards:
                chances.append(self.card_trick_chance(cards.pop(0)))
        for st in cards:
            chances.append(self.trick_chance(st, self.n_opp, self.n_mate))
        return _hand_chance(self.won, self.lost, self.pardas, chances, view.trick_results,
                            self.team)

    # -- envido and flor

    def envido_value(self) -> int:
        return int(self.rules.envido(self.my_cards, self.view.face_up))

    def flor_value(self) -> int | None:
        if not self.rules.flor:
            return None
        fv = self.rules.flor_fn(self.my_cards, self.view.face_up)
        return None if fv is None else int(fv)

    def team_chance(self, single: float, opps: int, mates: int) -> float:
        """The team's best value wins, given one opponent's value is beaten with
        probability `single` and partners hold unknown values."""
        p = single ** opps if opps else 1.0
        help_share = 1.0 / (opps + 1) if opps else 0.0
        return 1.0 - (1.0 - p) * (1.0 - help_share) ** mates

    def envido_chance(self, value: int, caller_quantile: float | None = None) -> float:
        values = self.tables.envido
        single = share_below(values, value)
        known = self.beliefs.envido_by_seat if self.beliefs is not None else {}
        if known:
            # Opponents whose possible values are narrowed by what they showed: the chance to
            # beat each of them, the others read from random hands.
            view = self.view
            opps = [p for p in view.players if view.teams[p] != self.team]
            singles = [share_below(known[p], value) if p in known else single for p in opps]
            prod = 1.0
            for x in singles:
                prod *= x
            single = prod ** (1.0 / len(singles)) if singles else single
        if caller_quantile is not None:
            # The other team's call: its values are likelier in the top of the range, but
            # it may be a bluff (mix with the plain estimate).
            lo = min(int(caller_quantile * len(values)), len(values) - 1)
            w = self.style.caller_weight
            single = w * share_below(values, value, lo) + (1.0 - w) * single
        return self.team_chance(single, self.n_opp, self.n_mate)

    def falta_points(self) -> int:
        return max(self.target - max(self.my_score, self.their_score), 1)


def _hand_chance(
    won: int, lost: int, pardas: int, chances: Sequence[float],
    results: Sequence[int | None], team: int,
) -> float:
    """Chance of winning the hand given independent chances for the remaining tricks.

    Two tricks win; after a parda the next decided trick wins; ties with equal tricks go to
    whoever took the first trick (a good reading of every variant's table)."""
    first = next((r for r in results if r is not None), None)
    total = 0.0

    def walk(i: int, w: int, lo: int, prob: float, first_winner: int | None) -> None:
        nonlocal total
        if prob <= 0.0:
            return
        decided = _decided(w, lo, pardas, first_winner, team)
        if decided is not None:
            if decided:
                total += prob
            return
        if i == len(chances):
            # Out of tricks, undecided: whoever won the first trick (else a coin).
            if first_winner is None:
                total += 0.5 * prob
            elif first_winner == team:
                total += prob
            return
        c = chances[i]
        walk(i + 1, w + 1, lo, prob * c, team if first_winner is None else first_winner)
        walk(i + 1, w, lo + 1, prob * (1 - c), (1 - team) if first_winner is None else first_winner)

    walk(0, won, lost, 1.0, first)
    return total


def _decided(won: int, lost: int, pardas: int, first: int | None, team: int) -> bool | None:
    if pardas:
        if won > lost:
            return True
        if lost > won:
            return False
        return None
    if won >= 2:
        return True
    if lost >= 2:
        return False
    return None
