"""What a bot's partners told it with señas, and the seat's estimates once that is known.

    partners = read_partners(view, rules, partner_senas)   # what each partner signalled
    seat = TeamSeat(view, rules, partners)                 # a Seat whose chances count them

A seña is taken at its word (a human may lie; the bot cannot tell). A partner who made any
seña is read as a player who signals every card he has a seña for (the bots do, and it is
how the signs are played): his other cards are the ones without a seña, below the tres and
dos, and no envido seña means an envido under the seña's threshold. A partner who made none
is an unknown hand, as in the plain bot.

`TeamSeat` keeps the plain `Seat` arithmetic and changes its inputs: the opponents' unseen
cards lose the partners' cards, a trick a partner still plays counts his card instead of a
random one, the hand's equity is the team's best arrangement of the cards it holds, and the
envido is the team's best value. The moves of engine/bots/moves.py then decide with it.
"""

from __future__ import annotations

from bisect import bisect_left
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import permutations, product

from engine.bots.seat import Seat, _hand_chance, share_below
from engine.bots.style import DEFAULT, Style
from engine.core.cards import Card
from engine.core.ruleset import RuleSet
from engine.core.views import View
from engine.variants.senas import Sena, SenaKind, described_cards, senas_of

_CARD_KINDS = (SenaKind.CARDS, SenaKind.RANK, SenaKind.MARK)
FLOR_ENVIDO_CHANCE = 0.95  # a partner's flor: an envido against us meets the flor


@dataclass(frozen=True, slots=True)
class Partner:
    seat: int
    known: tuple[int, ...]  # strengths of the signalled cards he still holds, best first
    unknown: int  # the other cards he holds
    flor: bool
    envido: tuple[int, int] | None  # the range his envido lies in (inclusive); None: unknown


def read_partners(view: View, rules: RuleSet, partner_senas: Sequence[tuple[int, str]]) -> tuple[Partner, ...]:
    """The partners in this hand who made señas, read from the señas only (never their cards)."""
    me = view.viewer
    assert me is not None
    teams = view.teams
    variant_senas = senas_of(rules.variant)
    by_code = {s.code: s for s in variant_senas}
    made: dict[int, list[Sena]] = {}
    for seat, code in partner_senas:
        sena = by_code.get(code)
        if sena is None or seat == me or not 0 <= seat < len(teams) or teams[seat] != teams[me]:
            continue  # an opponent's seña (a catch) is not a partner's
        if seat not in view.players:
            continue  # not in this hand (a pica-pica duel)
        if sena not in made.setdefault(seat, []):
            made[seat].append(sena)
    played: dict[int, set[Card]] = {}
    for trick in (*view.tricks, view.current_trick):
        for seat, card in trick:
            played.setdefault(seat, set()).add(card)
    threshold = next((s.at_least for s in variant_senas if s.kind is SenaKind.ENVIDO), None)
    out: list[Partner] = []
    for seat, senas in sorted(made.items()):
        held = view.hand_sizes[seat] if seat < len(view.hand_sizes) else 0
        known: list[int] = []
        for sena in senas:
            if sena.kind not in _CARD_KINDS:
                continue
            cards = described_cards(sena, rules, view.face_up)
            if not cards or cards & played.get(seat, set()):
                continue  # already played: no longer in his hand
            known.append(min(rules.strength(c, view.face_up) for c in cards))
        known = sorted(known, reverse=True)[:held]
        flor = rules.flor and any(s.kind is SenaKind.FLOR for s in senas)
        envido: tuple[int, int] | None = None
        if not flor and threshold is not None:
            said = any(s.kind is SenaKind.ENVIDO for s in senas)
            envido = (threshold, 99) if said else (0, threshold - 1)
        out.append(Partner(seat, tuple(known), held - len(known), flor, envido))
    return tuple(out)


def _quantiles(pool: Sequence[int], n: int) -> list[int]:
    """`n` representative values of a sorted pool (its (i+1)/(n+1) quantiles), best first."""
    if not pool or n <= 0:
        return []
    return sorted((pool[min(len(pool) - 1, (i + 1) * len(pool) // (n + 1))] for i in range(n)),
                  reverse=True)


def _without(pool: list[int], values: Sequence[int]) -> list[int]:
    """The sorted pool with one entry nearest to each value removed."""
    out = list(pool)
    for v in values:
        if not out:
            break
        i = min(bisect_left(out, v), len(out) - 1)
        if i > 0 and abs(out[i - 1] - v) < abs(out[i] - v):
            i -= 1
        out.pop(i)
    return out


class TeamSeat(Seat):
    """A Seat whose chances count what the partners signalled (see the module docstring)."""

    def __init__(self, view: View, rules: RuleSet, partners: Sequence[Partner],
                 style: Style = DEFAULT) -> None:
        super().__init__(view, rules, style)
        self.partners = tuple(partners)
        unseen = self.unseen
        # Cards without a seña: those below the weakest card any card seña stands for.
        signalled = [rules.strength(c, view.face_up)
                     for s in senas_of(rules.variant) if s.kind in _CARD_KINDS
                     for c in described_cards(s, rules, view.face_up)]
        floor = min(signalled, default=0)
        low = [x for x in unseen if x < floor] or unseen
        self.cards: dict[int, list[int]] = {}
        for p in self.partners:
            rest = _quantiles(low, p.unknown)  # he signalled: the rest have no seña
            self.cards[p.seat] = [*p.known, *rest]
            unseen = _without(unseen, [*p.known, *rest])
        self.unseen = unseen or self.unseen

    def _partner_best(self, seat: int) -> int | None:
        cards = self.cards.get(seat)
        return max(cards) if cards else None

    # -- cards

    def trick_chance(self, strength: int, opps: int, mates: int) -> float:
        """As Seat's, with the best card of each signalling partner still to play in the
        current trick in place of a random partner card."""
        if not mates or not self.partners:
            return super().trick_chance(strength, opps, mates)
        done = {s for s, _ in self.view.current_trick}
        best = strength
        counted = 0
        for p in self.partners:
            if p.seat not in done and counted < mates:
                card = self._partner_best(p.seat)
                if card is not None:
                    best = max(best, card)
                counted += 1
        if best < 0:
            return 0.0
        return super().trick_chance(best, opps, mates - counted)

    def equity(self) -> float:
        """The team's chance to win the hand with its best arrangement of the cards it holds
        (each player one card a trick; opponents' cards are unseen cards)."""
        if not self.partners:
            return super().equity()
        view = self.view
        ours, theirs, opps_now, _ = self.table()
        started = bool(view.current_trick)
        done = {s for s, _ in view.current_trick}
        members: list[tuple[list[int], int]] = [([self.s(c) for c in self.hand], self.me)]
        known = {p.seat for p in self.partners}
        for seat in view.players:
            if seat == self.me or view.teams[seat] != self.team:
                continue
            if seat in known:
                members.append((self.cards[seat], seat))
            else:  # a partner who said nothing: random unseen cards
                members.append((_quantiles(self.unseen, view.hand_sizes[seat]), seat))
        tricks = max(len(cards) + (1 if started and seat in done else 0) for cards, seat in members)
        if tricks == 0:
            return super().equity()
        options: list[set[tuple[int, ...]]] = []
        for cards, seat in members:
            first = 1 if started and seat in done else 0
            slots = tricks - first
            padded = (cards + [-1] * slots)[:slots]  # -1: no card for that trick
            options.append({(-1,) * first + perm for perm in permutations(padded)})
        best = 0.0
        tried: set[tuple[int, ...]] = set()
        pct: dict[int, float] = {}
        for combo in product(*options):
            team = tuple(max(c[t] for c in combo) for t in range(tricks))  # the team's card a trick
            if team in tried:
                continue  # another arrangement with the same tricks
            tried.add(team)
            chances: list[float] = []
            for t, st in enumerate(team):
                if st not in pct:
                    pct[st] = self.pct(st)
                if t == 0 and started:
                    st = max(st, ours)
                    beat = self.pct(st) ** opps_now
                    chances.append(beat if st > theirs else 0.5 * beat if st == theirs else 0.0)
                else:
                    chances.append(pct[st] ** self.n_opp if st >= 0 else 0.0)
            eq = _hand_chance(self.won, self.lost, self.pardas, chances, view.trick_results, self.team)
            best = max(best, eq)
        return best

    # -- envido

    def partner_flor(self) -> bool:
        return any(p.flor for p in self.partners)

    def envido_chance(self, value: int, caller_quantile: float | None = None) -> float:
        """The team's best envido against the opponents': each signalling partner's value
        drawn from random hands in the range his señas give."""
        told = [p for p in self.partners if p.envido is not None]
        if self.partner_flor():
            return max(FLOR_ENVIDO_CHANCE, super().envido_chance(value, caller_quantile))
        if not told:
            return super().envido_chance(value, caller_quantile)
        values = self.tables.envido
        lo = None
        if caller_quantile is not None:
            lo = min(int(caller_quantile * len(values)), len(values) - 1)

        beaten: dict[int, float] = {}

        def single(v: int) -> float:
            """The chance the opponents' values are all below `v` (memoised: the team's best
            takes few values)."""
            if v not in beaten:
                plain = share_below(values, v)
                one = plain if lo is None else 0.65 * share_below(values, v, lo) + 0.35 * plain
                beaten[v] = one ** self.n_opp if self.n_opp else 1.0
            return beaten[v]

        dists: list[Counter[int]] = []
        for p in told:
            assert p.envido is not None
            low, high = p.envido
            dist = Counter(v for v in values if low <= v <= high)
            dists.append(dist or Counter({low: 1}))
        total = weight = 0.0
        for combo in product(*(d.items() for d in dists)):
            w = 1.0
            for _, n in combo:
                w *= n
            team = max([value, *(v for v, _ in combo)])
            total += w * single(team)
            weight += w
        chance = total / weight if weight else 0.5
        silent = max(self.n_mate - len(told), 0)
        help_share = 1.0 / (self.n_opp + 1) if self.n_opp else 0.0
        return 1.0 - (1.0 - chance) * (1.0 - help_share) ** silent
