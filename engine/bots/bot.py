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

from engine.bots.seat import (
    card_tables,
    ACCEPT,
    DECLARE,
    DECLINE,
    ENVIDO_BET,
    FLOR_ACCEPT,
    FLOR_ANNOUNCE,
    FLOR_CONCEDE,
    FLOR_PASS,
    INITIATIVES,
    MAZO,
    PLAY,
    SON_BUENAS,
    Beliefs,
    Seat,
    TRUCO,
    UNKNOWN,
    call_family,
    unknown_rank,
)
from engine.bots.moves import (
    answer_bet,
    answer_envido,
    bet_first,
    declare,
    flor,
    play,
)
from engine.bots.style import DEFAULT, Style
from engine.core.actions import Action
from engine.core.calls import Call
from engine.core.ruleset import RuleSet
from engine.core.views import View


# ---------------------------------------------------------------- the decision


def choose_action(
    view: View, rules: RuleSet, rng: random.Random, *, strict: bool = False,
    style: Style = DEFAULT, beliefs: Beliefs | None = None,
) -> Action | None:
    """The bot's action for `view.viewer`: an element of `view.legal`, or None when the seat
    is not obliged to act and chooses to wait (see the module docstring).

    Never raises for a seat with legal actions: if the heuristics fail (a call this module
    does not know in a shape it does not expect), a conservative legal action is returned.
    `strict=True` lets such errors propagate (tests). `style` and `beliefs` are the levels'
    tunables and inferences (engine/bots/levels.py); the defaults are the bot of issue 6.
    """
    legal = view.legal
    if view.viewer is None or not legal:
        return None
    try:
        chosen = _decide(view, rules, rng, style, beliefs)
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
        call_family(a.call, rules) not in INITIATIVES and a.call is not Call.MALDON
        for a in view.legal
    )


def _fallback(view: View, rules: RuleSet) -> Action | None:
    legal = view.legal
    if not is_obliged(view, rules):
        return None
    families = [(call_family(a.call, rules), a) for a in legal]
    plays = [a for f, a in families if f == PLAY]
    if plays:
        tables = card_tables(rules, view.face_up)
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
        best = min(unknown, key=lambda a: unknown_rank(a.call))
        if unknown_rank(best.call) <= 2:
            return best
    for want in (DECLINE, FLOR_CONCEDE):
        for f, a in families:
            if f == want:
                return a
    if unknown:
        return min(unknown, key=lambda a: unknown_rank(a.call))
    for f, a in families:
        if f != MAZO:
            return a
    return legal[0]


def _decide(view: View, rules: RuleSet, rng: random.Random, style: Style,
            beliefs: Beliefs | None) -> Action | None:
    seat = Seat(view, rules, style, beliefs)
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
            return flor(seat, known, rng)
        # A flor-family call outside a flor round, without a flor: never claim one.
        for f in flor_families:
            del known[f]
        if not known:
            return _fallback(view, rules)
    if DECLARE in known or SON_BUENAS in known:
        return declare(seat, known)
    envido_betting = view.envido_status == "betting"
    answering = ACCEPT in known or DECLINE in known
    if answering and envido_betting:
        return answer_envido(seat, known, rng)
    if answering:
        return answer_bet(seat, known, rng)

    my_turn = view.turn == view.viewer
    if PLAY not in known and not my_turn:
        if ENVIDO_BET in known or TRUCO in known or MAZO in known:
            return None  # initiatives are taken on one's own turn only
        return _fallback(view, rules)
    bet = bet_first(seat, known, rng)
    if bet is not None:
        return bet
    if PLAY in known:
        return play(seat, known[PLAY], rng)
    return _fallback(view, rules)


# ---------------------------------------------------------------- a ley (Venezuelan)

_LEY_CALLS = (Call.A_LEY, Call.TENGO_FLOR)
LEY_WITH_FLOR = 0.25  # a holder (not El Pie) plays a ley, then says tengo flor at once
LEY_BLUFF = 0.05  # a player without flor plays a ley (he passes after trick 1)


def _ley(seat: Seat, rng: random.Random) -> Action | None:
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


def _quiet_reservada(seat: Seat) -> bool:
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
