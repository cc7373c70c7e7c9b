"""The bot and señas: what it signals to its partners, and how their señas change its mind.

    senas = bot_senas(view, rules)                                  # honest, at the deal
    action = choose_with_senas(view, rules, rng, partner_senas)     # the table's bot move

Bots are honest: they signal only the cards they hold (engine/variants/senas.py says what
each seña stands for). A partner's seña is taken at its word (a human may lie; the bot
cannot tell). `choose_with_senas` asks the bot (`choose_action`) first and only overrides
a few answers where a partner's signalled cards change the picture:

  * a truco it would refuse is accepted when a partner signalled a top card still unplayed;
  * an envido it would refuse (not a falta envido) is accepted when a partner signalled a
    flor or a good envido;
  * on its own turn it opens the envido when a partner signalled a flor or a good envido
    (the team's best envido counts), and opens the truco when a partner's top card and its
    own best card make the hand likely;
  * when a partner who plays after it in this trick signalled a top card, it plays its
    lowest card and keeps the good ones ("al pie, una carta floja").

Pure, like the bot: the señas arrive as data; no memory between decisions.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence

from engine.bots.bot import choose_action
from engine.bots.seat import ACCEPT, DECLINE, ENVIDO_BET, PLAY, TRUCO, Seat, call_family
from engine.core.actions import Action
from engine.core.cards import Card
from engine.core.ruleset import RuleSet
from engine.core.views import View
from engine.variants.senas import SenaKind, described_cards, honest_senas, senas_of

TOP_CARD = 0.85  # share of the unseen cards a signalled card must beat to count as a top card
OWN_FOR_TRUCO = 0.6  # ... the bot's own best card, to open the truco on a partner's top card

Chooser = Callable[[View, RuleSet, random.Random], Action | None]


def bot_senas(view: View, rules: RuleSet) -> tuple[str, ...]:
    """The señas a bot makes to its partners about the cards in `view` (its own)."""
    points_open = view.envido_status in ("none", "open") and not view.tricks
    return honest_senas(tuple(view.own_cards), rules, view.face_up, with_points=points_open)


def partner_tops(view: View, rules: RuleSet, partner_senas: Sequence[tuple[int, str]]) -> list[int]:
    """Strengths of the cards partners signalled that they have not played yet (for a seña
    that stands for several cards, the weakest of them)."""
    assert view.viewer is not None
    me, teams = view.viewer, view.teams
    by_code = {s.code: s for s in senas_of(rules.variant)}
    played: dict[int, set[Card]] = {}
    for trick in (*view.tricks, view.current_trick):
        for seat, card in trick:
            played.setdefault(seat, set()).add(card)
    out: list[int] = []
    for seat, code in partner_senas:
        sena = by_code.get(code)
        if sena is None or seat == me or not 0 <= seat < len(teams) or teams[seat] != teams[me]:
            continue
        if seat not in view.players:
            continue  # not in this hand (a pica-pica duel)
        cards = described_cards(sena, rules, view.face_up)
        if not cards or cards & played.get(seat, set()):
            continue
        out.append(min(rules.strength(c, view.face_up) for c in cards))
    return out


def partner_points(view: View, rules: RuleSet, partner_senas: Sequence[tuple[int, str]]) -> bool:
    """A partner signalled a flor or a good envido."""
    assert view.viewer is not None
    kinds = {s.code: s.kind for s in senas_of(rules.variant)}
    teams, me = view.teams, view.viewer
    return any(
        kinds.get(code) in (SenaKind.FLOR, SenaKind.ENVIDO)
        for seat, code in partner_senas
        if seat != me and 0 <= seat < len(teams) and teams[seat] == teams[me]
    )


def choose_with_senas(view: View, rules: RuleSet, rng: random.Random,
                      partner_senas: Sequence[tuple[int, str]] = (),
                      choose: Chooser = choose_action) -> Action | None:
    """The bot's action for `view.viewer` (as `choose_action`), its partners' señas weighed."""
    action = choose(view, rules, rng)
    if view.viewer is None or not partner_senas or not view.legal:
        return action
    try:
        better = _with_senas(view, rules, action, partner_senas)
    except Exception:  # the señas are a refinement: never let them break a move
        return action
    return better if better is not None and better in view.legal else action


def _with_senas(view: View, rules: RuleSet, action: Action | None,
                partner_senas: Sequence[tuple[int, str]]) -> Action | None:
    families = {a: call_family(a.call, rules) for a in view.legal}
    accept = next((a for a, f in families.items() if f == ACCEPT), None)
    chosen = families.get(action) if action is not None else None
    if chosen == DECLINE and accept is not None:
        if view.envido_status == "betting":
            # Not a falta envido: its stake is the game, and its caller usually holds more.
            falta = any("falta" in c for c in view.envido_calls)
            return accept if partner_points(view, rules, partner_senas) and not falta else None
        if view.truco_pending is not None:
            seat = Seat(view, rules)
            tops = [s for s in partner_tops(view, rules, partner_senas) if seat.pct(s) >= TOP_CARD]
            return accept if tops else None
        return None
    my_turn = view.turn == view.viewer and view.truco_pending is None
    opening = _envido_opening(view, rules, families)
    if chosen in (None, PLAY) and my_turn and opening is not None and partner_points(view, rules, partner_senas):
        return opening
    truco = next((a for a, f in families.items() if f == TRUCO), None)
    if chosen in (None, PLAY) and truco is not None and my_turn and view.truco_level == 0:
        seat = Seat(view, rules)
        tops = [s for s in partner_tops(view, rules, partner_senas) if seat.pct(s) >= TOP_CARD]
        own = max((seat.pct(seat.s(c)) for c in view.own_cards), default=0.0)
        if tops and (own >= OWN_FOR_TRUCO or len(tops) >= 2):
            return truco
    if chosen == PLAY:
        return _low_before_partner(view, rules, families, partner_senas)
    return None


def _envido_opening(view: View, rules: RuleSet, families: dict[Action, str]) -> Action | None:
    """The plain envido (the ladder's first step), if it may be opened now."""
    if view.envido_status != "open" or not rules.envido_ladder:
        return None
    first = rules.envido_ladder[0].call
    return next((a for a, f in families.items() if f == ENVIDO_BET and a.call is first), None)


def _low_before_partner(view: View, rules: RuleSet, families: dict[Action, str],
                        partner_senas: Sequence[tuple[int, str]]) -> Action | None:
    """The lowest card, when a partner still to play in this trick signalled a top card."""
    me = view.viewer
    order = list(view.trick_players)
    if me not in order:
        return None
    after = {s for s in order[order.index(me) + 1:]}
    later = [(s, c) for s, c in partner_senas if s in after]
    if not later:
        return None
    seat = Seat(view, rules)
    if not any(seat.pct(s) >= TOP_CARD for s in partner_tops(view, rules, later)):
        return None
    plays = [a for a, f in families.items() if f == PLAY and a.card is not None]
    return min(plays, key=lambda a: seat.s(a.card) if a.card is not None else 0, default=None)
