"""A rule-based bot: one decision for one seat, from that seat's `View` only (issue 6).

    action = choose_action(view, rules, rng)   # -> Action from view.legal, or None

Pure: no I/O, no clock, no global randomness (every random choice uses the injected `rng`),
and it never sees a `State`, so it cannot read hidden cards. It keeps no memory between
decisions, so a bot can take over any seat at any moment (a player who leaves mid-game).

`None` means "nothing I want to do now": it is returned only when the seat is not obliged
to act (no card to play, no bet of the other team to answer, nothing to declare or announce)
and its legal actions are only optional initiatives (an opening truco or envido call, the
mazo) that the bot does not want to take. Some seat is always obliged, so a driver asks the
awaiting seats in turn and applies the first action it gets.

Calls are handled by family, so that calls added by later variants are understood from
the RuleSet (the truco and envido ladders) or, failing that, from their wire names:

    PLAY          a card                         ACCEPT / DECLINE   quiero / no quiero
    TRUCO         a step of rules.truco_ladder   ENVIDO_BET         a step of rules.envido_ladder
    DECLARE       declare an envido value        SON_BUENAS         concede the envido
    FLOR_*        announce / accept / raise / concede / pass a flor
    MAZO          give up the hand               UNKNOWN            anything else

Unknown calls are never chosen while something understood is legal; a seat facing only
unknown calls prefers one that reads like an acceptance, then anything that is not a raise.

Heuristics (all estimates are from the seat's own cards and the public table):
  * card strength = the share of still-unseen cards it beats (ties count half), from
    `rules.strength` with the face-up card, so muestras and manilhas are handled;
  * hand equity = chance of winning the hand from the cards still held, the tricks already
    decided and the cards on the table, with partners and opponents modelled as unseen cards;
  * envido / flor strength = the share of random hands (sampled once per rule set and face-up
    card with a fixed internal seed) the seat's value beats, sharpened when the other team's
    call suggests a strong hand;
  * bets are accepted when the expected gain beats the sure loss of declining, never declined
    when declining itself would hand the other team the game, and accepted more carefully when
    losing the bet would;
  * cards: the last player of a trick wins it with the lowest card that does, or throws his
    lowest card when his team already holds it or it cannot be won; leaders lead a middle card
    to the first trick and their best card when the trick decides the hand;
  * a small, seeded share of bluffs (a weak envido or truco call) keeps it from being readable.
"""

from __future__ import annotations

import random
from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Sequence
from typing import Any

from engine.core.actions import Action
from engine.core.calls import Call
from engine.core.cards import Card
from engine.core.ruleset import RuleSet
from engine.core.views import View

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
_INITIATIVES = frozenset({TRUCO, ENVIDO_BET, MAZO})

# Tunables (probabilities and thresholds on the 0..1 estimates above).
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


def _unknown_rank(call: Call) -> int:
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


def _tables(rules: RuleSet, face_up: Card | None) -> _Tables:
    key = (id(rules), -1 if face_up is None else face_up.code)
    found = _TABLES.get(key)
    if found is None or found.rules is not rules:
        if len(_TABLES) > 512:
            _TABLES.clear()
        found = _TABLES[key] = _Tables(rules, face_up)
    return found


def _share_below(sorted_values: Sequence[int], value: int, lo: int = 0) -> float:
    """Share of sorted_values[lo:] below `value`, ties counting half."""
    n = len(sorted_values) - lo
    if n <= 0:
        return 0.5
    below = bisect_left(sorted_values, value, lo) - lo
    equal = bisect_right(sorted_values, value, lo) - lo - below
    return (below + 0.5 * equal) / n


# ---------------------------------------------------------------- the seat's situation


class _Seat:
    """What the bot derives from the view once per decision."""

    def __init__(self, view: View, rules: RuleSet) -> None:
        assert view.viewer is not None
        self.view = view
        self.rules = rules
        self.me = me = view.viewer
        self.team = team = view.teams[me]
        self.tables = tables = _tables(rules, view.face_up)
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
        return _share_below(self.unseen, strength)

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
        single = _share_below(values, value)
        if caller_quantile is not None:
            # The other team's call: its values are likelier in the top of the range, but
            # it may be a bluff (mix with the plain estimate).
            lo = min(int(caller_quantile * len(values)), len(values) - 1)
            single = 0.65 * _share_below(values, value, lo) + 0.35 * single
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


# ---------------------------------------------------------------- the decision


def choose_action(
    view: View, rules: RuleSet, rng: random.Random, *, strict: bool = False
) -> Action | None:
    """The bot's action for `view.viewer`: an element of `view.legal`, or None when the seat
    is not obliged to act and chooses to wait (see the module docstring).

    Never raises for a seat with legal actions: if the heuristics fail (a call this module
    does not know in a shape it does not expect), a conservative legal action is returned.
    `strict=True` lets such errors propagate (tests).
    """
    legal = view.legal
    if view.viewer is None or not legal:
        return None
    try:
        chosen = _decide(view, rules, rng)
        if chosen is not None and chosen not in legal:
            raise AssertionError(f"bot chose an illegal action {chosen}")
        return chosen
    except Exception:
        if strict:
            raise
        return _fallback(view, rules)


def is_obliged(view: View, rules: RuleSet) -> bool:
    """True when the seat must act (a card to play, a bet to answer, a value to declare,
    a flor to announce): its legal actions are not only optional initiatives."""
    # A maldon claim is optional too: a seat holding one is not obliged to act by it.
    return any(
        call_family(a.call, rules) not in _INITIATIVES and a.call is not Call.MALDON
        for a in view.legal
    )


def _fallback(view: View, rules: RuleSet) -> Action | None:
    legal = view.legal
    if not is_obliged(view, rules):
        return None
    families = [(call_family(a.call, rules), a) for a in legal]
    plays = [a for f, a in families if f == PLAY]
    if plays:
        tables = _tables(rules, view.face_up)
        return min(plays, key=lambda a: tables.strength[a.card.code] if a.card else 0)
    wanted = [ACCEPT, DECLARE, SON_BUENAS, FLOR_ACCEPT, FLOR_PASS]
    if view.flor_status not in ("none", "done"):
        wanted.insert(1, FLOR_ANNOUNCE)  # the flor round: a holder must speak
    for want in wanted:
        for f, a in families:
            if f == want:
                return a
    unknown = [a for f, a in families if f == UNKNOWN]
    if unknown:
        best = min(unknown, key=lambda a: _unknown_rank(a.call))
        if _unknown_rank(best.call) <= 2:
            return best
    for want in (DECLINE, FLOR_CONCEDE):
        for f, a in families:
            if f == want:
                return a
    if unknown:
        return min(unknown, key=lambda a: _unknown_rank(a.call))
    for f, a in families:
        if f != MAZO:
            return a
    return legal[0]


def _decide(view: View, rules: RuleSet, rng: random.Random) -> Action | None:
    seat = _Seat(view, rules)
    for a in view.legal:
        if a.call is Call.PEDIR_FLOR:
            return a  # free information before answering the truco (offered once a hand)
    skip: set[Call] = set()
    if any(a.call in _LEY_CALLS for a in view.legal) or (
        view.flor_status == "none" and any(a.call is Call.FLOR for a in view.legal)
    ):
        chosen = _ley(seat, rng)
        if chosen is not None:
            return chosen
        skip = {Call.A_LEY, Call.FLOR}  # played plainly: no ley, La Reservada kept quiet
    by_family: dict[str, list[Action]] = {}
    for a in view.legal:
        if a.call not in skip:
            by_family.setdefault(call_family(a.call, rules), []).append(a)
    known = {f: acts for f, acts in by_family.items() if f != UNKNOWN}
    if not known:
        return _fallback(view, rules)

    flor_families = [f for f in known if f.startswith("flor_")]
    if flor_families:
        if view.flor_status not in ("none", "done") or seat.flor_value() is not None:
            return _flor(seat, known, rng)
        # A flor-family call outside a flor round, without a flor: never claim one.
        for f in flor_families:
            del known[f]
        if not known:
            return _fallback(view, rules)
    if DECLARE in known or SON_BUENAS in known:
        return _declare(seat, known)
    envido_betting = view.envido_status == "betting"
    answering = ACCEPT in known or DECLINE in known
    if answering and envido_betting:
        return _answer_envido(seat, known, rng)
    if answering:
        # A truco-ladder bet is waiting for our answer; the envido comes first.
        if ENVIDO_BET in known:
            opening = _open_envido(seat, known[ENVIDO_BET], rng)
            if opening is not None:
                return opening
        return _answer_truco(seat, known, rng)

    my_turn = view.turn == view.viewer
    if PLAY not in known and not my_turn:
        if ENVIDO_BET in known or TRUCO in known or MAZO in known:
            return None  # initiatives are taken on one's own turn only
        return _fallback(view, rules)
    if ENVIDO_BET in known:
        opening = _open_envido(seat, known[ENVIDO_BET], rng)
        if opening is not None:
            return opening
    if TRUCO in known:
        call = _call_truco(seat, known[TRUCO], rng)
        if call is not None:
            return call
    if PLAY in known:
        return _play(seat, known[PLAY], rng)
    return _fallback(view, rules)


# ---------------------------------------------------------------- a ley (Venezuelan)

_LEY_CALLS = (Call.A_LEY, Call.TENGO_FLOR)
LEY_WITH_FLOR = 0.25  # a holder (not El Pie) plays a ley, then says tengo flor at once
LEY_BLUFF = 0.05  # a player without flor plays a ley (he passes after trick 1)


def _ley(seat: _Seat, rng: random.Random) -> Action | None:
    """The a-ley calls of a first-card turn. A holder never loses his flor by accident:
    he says flor (or tengo flor right after a ley), except El Pie keeping La Reservada
    quiet while his opponents neither played a ley nor declared a flor (V-R4)."""
    view = seat.view
    legal = {a.call: a for a in view.legal}
    if Call.TENGO_FLOR in legal:
        return legal[Call.TENGO_FLOR]
    has_flor = seat.flor_value() is not None
    if Call.FLOR in legal and has_flor:
        if Call.A_LEY in legal and rng.random() < LEY_WITH_FLOR:
            return legal[Call.A_LEY]
        if not _quiet_reservada(seat):
            return legal[Call.FLOR]
        return None
    if Call.A_LEY in legal and not has_flor and rng.random() < LEY_BLUFF:
        return legal[Call.A_LEY]
    return None


def _quiet_reservada(seat: _Seat) -> bool:
    view = seat.view
    specials = view.special_cards
    if view.viewer != view.players[-1] or len(specials) != 2:
        return False
    if not any(a.call is Call.PLAY for a in view.legal):
        return False  # only on his own first-card turn, when every opponent has spoken
    if not all(c in view.own_cards for c in specials):
        return False
    opponents = [s for s in view.players if view.teams[s] != seat.team]
    return not any(s in view.ley_seats or s in view.flor_announced for s in opponents)


# ---------------------------------------------------------------- envido


def _envido_steps(rules: RuleSet) -> dict[str, Any]:
    return {step.call.value: step for step in rules.envido_ladder}


def _is_falta(step: Any) -> bool:
    return step.points == 0 or "falta" in step.call.value


def _stake(seat: _Seat, calls: Sequence[str]) -> int:
    steps = _envido_steps(seat.rules)
    total = 0
    for name in calls:
        step = steps.get(name)
        if step is None:
            total += 2
        elif _is_falta(step):
            return seat.falta_points()
        else:
            total += step.points
    return total


def _open_envido(seat: _Seat, openings: list[Action], rng: random.Random) -> Action | None:
    if seat.rules.flor and seat.flor_value() is not None:
        return None
    view = seat.view
    if view.flor_announced or seat.me in view.ley_seats:
        return None  # the envite would be con ley (a bet on a flor): not without one
    value = seat.envido_value()
    chance = seat.envido_chance(value)
    bluff = rng.random() < ENVIDO_BLUFF
    if chance < ENVIDO_CALL and not bluff:
        return None
    steps = _envido_steps(seat.rules)
    plain = [a for a in openings if not _is_falta(steps[a.call.value])]
    falta = [a for a in openings if _is_falta(steps[a.call.value])]
    plain.sort(key=lambda a: steps[a.call.value].points)
    if bluff and chance < ENVIDO_CALL:
        return plain[0] if plain else None
    behind = seat.my_score < seat.their_score
    if falta and chance > 0.95 and (behind or seat.falta_points() <= 6):
        return falta[0]
    if chance > 0.9 and len(plain) > 1:
        return plain[1]
    return plain[0] if plain else None


def _answer_envido(seat: _Seat, known: dict[str, list[Action]], rng: random.Random) -> Action:
    view = seat.view
    calls = view.envido_calls
    steps = _envido_steps(seat.rules)
    accept = known.get(ACCEPT, [None])[0]
    decline = known.get(DECLINE, [None])[0]
    raises = known.get(ENVIDO_BET, [])
    if seat.rules.flor and seat.flor_value() is not None and accept is not None:
        return accept  # a flor outranks any envido (only reachable in new variants)
    stake = _stake(seat, calls)
    refused = 1 if len(calls) <= 1 else _stake(seat, calls[:-1])
    last = steps.get(calls[-1]) if calls else None
    level = 0.45
    if last is not None and _is_falta(last):
        level = 0.65
    elif last is not None and last.points >= 3:
        level = 0.6
    if len(calls) > 1:
        level += 0.1
    value = seat.envido_value()
    chance = seat.envido_chance(value, caller_quantile=min(level, 0.9))
    if raises and chance > ENVIDO_RAISE:
        ordered = sorted(raises, key=lambda a: (_is_falta(steps[a.call.value]),
                                               steps[a.call.value].points))
        falta = [a for a in ordered if _is_falta(steps[a.call.value])]
        if falta and chance > 0.92 and seat.my_score < seat.their_score:
            return falta[0]
        return ordered[0]
    if accept is None:
        return decline if decline is not None else raises[0]
    if decline is None:
        return accept
    return accept if _take_bet(seat, chance, stake, refused, rng) else decline


def _take_bet(seat: _Seat, chance: float, stake: int, refused: int, rng: random.Random) -> bool:
    """Accept a bet worth `stake` (won or lost) whose refusal costs `refused` now?"""
    need_them = seat.target - seat.their_score
    need_us = seat.target - seat.my_score
    if refused >= need_them:
        return True  # refusing hands them the game: play for it
    if stake >= need_them and chance < 0.5:
        # Losing it loses the game; winning it must be likely to be worth it unless it
        # wins us the game too.
        return stake >= need_us and chance > 0.4
    gain = (2 * chance - 1) * stake
    margin = 0.25 * rng.random()  # a little noise near the edge
    return gain > -refused + margin


# ---------------------------------------------------------------- declaring and flor


def _declare(seat: _Seat, known: dict[str, list[Action]]) -> Action:
    if DECLARE in known:
        return known[DECLARE][0]
    return known[SON_BUENAS][0]


def _flor(seat: _Seat, known: dict[str, list[Action]], rng: random.Random) -> Action:
    view = seat.view
    value = seat.flor_value()
    announce = known.get(FLOR_ANNOUNCE, [])
    accept = known.get(FLOR_ACCEPT, [])
    raises = known.get(FLOR_RAISE, [])
    concede = known.get(FLOR_CONCEDE, [])
    pas = known.get(FLOR_PASS, [])
    opposing = sum(1 for s in view.flor_announced if view.teams[s] != seat.team)
    if value is None:
        # No flor of our own (a new variant's call): accept or announce, never raise.
        for group in (accept, announce, pas, concede):
            if group:
                return group[0]
        return _first_known(known)
    single = _share_below(seat.tables.flor, value)
    chance = single ** max(opposing, 1)
    pending = view.flor_pending_by is not None and view.flor_pending_by != seat.team
    if pending and accept:
        # A flor bet of the other team: quiero, raise once more, or give up.
        if raises and chance > 0.9:
            return _cheapest_raise(raises)
        bet_is_resto = view.flor_level >= 2
        stake = seat.falta_points() + 6 if bet_is_resto else 6
        if concede and not _take_bet(seat, 0.8 * chance + 0.1 * (1 - chance), stake, 4, rng):
            return concede[0]
        return accept[0]
    if opposing and raises and chance > FLOR_RAISE_AT:
        return _cheapest_raise(raises)
    if opposing and concede and chance < FLOR_CONCEDE_AT:
        return concede[0]
    for group in (announce, pas, accept, concede, raises):
        if group:
            return group[0]
    return _first_known(known)


def _cheapest_raise(raises: list[Action]) -> Action:
    plain = [a for a in raises if "resto" not in a.call.value]
    return (plain or raises)[0]


def _first_known(known: dict[str, list[Action]]) -> Action:
    for f in (PLAY, ACCEPT, DECLARE, SON_BUENAS, FLOR_ANNOUNCE, FLOR_ACCEPT, FLOR_PASS,
              DECLINE, FLOR_CONCEDE, ENVIDO_BET, TRUCO, FLOR_RAISE, MAZO):
        if f in known:
            return known[f][0]
    raise ValueError("no known action")


# ---------------------------------------------------------------- truco


def _ladder_index(rules: RuleSet, name: str | None) -> int:
    for i, step in enumerate(rules.truco_ladder):
        if step.call.value == name:
            return i
    return -1


def _call_truco(seat: _Seat, calls: list[Action], rng: random.Random) -> Action | None:
    rules = seat.rules
    call = calls[0]
    idx = _ladder_index(rules, call.call.value)
    threshold = TRUCO_CALL[min(max(idx, 0), len(TRUCO_CALL) - 1)]
    equity = seat.equity()
    if equity >= 0.999:
        return call  # the hand is ours: raise the stake
    if equity >= threshold:
        # Early in the hand a strong hand sometimes waits to be called (slow play).
        if not seat.view.tricks and rng.random() < TRUCO_SLOWPLAY:
            return None
        return call
    if idx <= 0 and equity < 0.35 and rng.random() < TRUCO_BLUFF:
        return call
    return None


def _answer_truco(seat: _Seat, known: dict[str, list[Action]], rng: random.Random) -> Action:
    view, rules = seat.view, seat.rules
    accept = known.get(ACCEPT, [None])[0]
    decline = known.get(DECLINE, [None])[0]
    counter = known.get(TRUCO, [])
    idx = _ladder_index(rules, view.truco_pending)
    if idx >= 0:
        stake = rules.truco_ladder[idx].accepted
        refused = rules.truco_ladder[idx].declined
    else:
        refused = view.truco_value
        stake = refused + 1
    equity = seat.equity() * CALLER_DISCOUNT
    if counter and equity > 0.8:
        return counter[0]
    if accept is None:
        if decline is not None and not counter:
            return decline
        return counter[0] if counter else _first_known(known)
    if decline is None or _decline_loses_game(seat, refused):
        return accept
    return accept if _take_bet(seat, equity, stake, refused, rng) else decline


def _decline_loses_game(seat: _Seat, refused: int) -> bool:
    """A ley: the callers' declared flores are paid at the end of the hand (3 each), so
    declining gives them those and the refused points; if that wins them the game, play."""
    view, rules = seat.view, seat.rules
    by = view.truco_pending_by
    if rules.flor_declaration != "a_ley" or by is None or len(view.scores) != 2:
        return False
    flores = sum(1 for s in view.flor_announced if view.teams[s] == by)
    return bool(flores) and view.scores[by] + refused + 3 * flores >= view.target


# ---------------------------------------------------------------- card play


def _play(seat: _Seat, plays: list[Action], rng: random.Random) -> Action:
    s = seat.s
    ordered = sorted(plays, key=lambda a: s(a.card) if a.card is not None else 0)  # low first
    if len(ordered) == 1:
        return ordered[0]
    low, high = ordered[0], ordered[-1]
    view = seat.view
    ours, theirs, opps_after, mates_after = seat.table()
    # Losing this trick loses the hand (or a parda already happened): it must be fought.
    critical = seat.lost > seat.won or seat.pardas > 0 or (seat.lost == 1 and seat.won == 1)

    if not view.current_trick:
        return _lead(seat, ordered, critical, rng)

    strengths = [s(a.card) for a in ordered]  # type: ignore[arg-type]
    winners = [a for a, st in zip(ordered, strengths) if st > theirs]
    ties = [a for a, st in zip(ordered, strengths) if st == theirs]

    if ours > theirs:
        # A partner holds the trick: keep good cards unless opponents are likely to beat it.
        hold = seat.trick_chance(ours, opps_after, 0)
        if hold >= 0.6 or not opps_after:
            return low
        better = [a for a in winners if s(a.card) > ours]  # type: ignore[arg-type]
        if better and (critical or hold < 0.35):
            return _safest(seat, better, opps_after, critical)
        return low

    if not opps_after:
        # Last of the opponents has played: take it as cheaply as possible, or tie, or throw.
        if winners:
            return winners[0]
        if ties and (critical or not view.tricks):
            return ties[0]
        return low

    # Opponents still to play after us.
    if winners:
        pick = _safest(seat, winners, opps_after, critical)
        chance = seat.trick_chance(s(pick.card), opps_after, mates_after)  # type: ignore[arg-type]
        if chance >= 0.5 or critical or not mates_after:
            return pick
    if ties and critical:
        return ties[-1]
    return low


def _safest(seat: _Seat, winners: list[Action], opps_after: int, critical: bool) -> Action:
    """Among cards that beat the table (low first): the cheapest one that will probably hold
    against the opponents still to play, else the best one if the trick matters."""
    for a in winners:
        if seat.trick_chance(seat.s(a.card), opps_after, 0) >= 0.7:  # type: ignore[arg-type]
            return a
    return winners[-1] if critical else winners[0]


def _lead(seat: _Seat, ordered: list[Action], critical: bool, rng: random.Random) -> Action:
    low, high = ordered[0], ordered[-1]
    if critical:
        return high
    if not seat.view.tricks:
        if seat.n_mate and rng.random() < 0.7:
            return low  # a partner plays after us: lead low and let him cover
        middle = ordered[len(ordered) // 2]
        return high if rng.random() < 0.15 else middle
    # We took the first trick: one more wins. Lead the best if it is strong, else keep it.
    if seat.won > seat.lost:
        return high if seat.pct(seat.s(high.card)) >= 0.6 else low  # type: ignore[arg-type]
    return high
