"""The bot and señas: what it signals to its partners, and how their señas change its mind.

    senas = bot_senas(view, rules)                                  # honest, at the deal
    action = choose_with_senas(view, rules, rng, partner_senas)     # the table's bot move

Bots are honest: they signal only the cards they hold (engine/variants/senas.py says what
each seña stands for). A partner's seña is taken at its word (a human may lie; the bot
cannot tell), and a partner who signalled is read as one who signals every card he has a
seña for (engine/bots/partners.py). `choose_with_senas` asks the level first; when a
partner in the hand made señas, the bets and the card are decided again with the team's
cards counted (`TeamSeat`), through the same moves as the plain bot:

  * truco: called, accepted, raised or refused on the team's chance of the hand (the
    partner's ancho makes a weak hand worth a quiero; a partner with nothing, a refusal);
  * envido: opened, accepted or raised on the team's best value (the partner's envido seña
    or its absence); with a partner's flor it is never opened (the flor settles it);
  * cards: a partner still to play in the trick counts with his card; when he signalled a
    top card the bot plays its lowest and keeps the good ones ("al pie, una carta floja").

Flor rounds, declaring, a ley and calls the bot does not know stay the level's own.
Pure, like the bot: the señas arrive as data; no memory between decisions.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence

from engine.bots import easy
from engine.bots.bot import choose_action, is_obliged
from engine.bots.moves import answer_bet, answer_envido, bet_first, play
from engine.bots.normal import style_for
from engine.bots.partners import Partner, TeamSeat, read_partners
from engine.bots.seat import ACCEPT, DECLINE, ENVIDO_BET, MAZO, PLAY, TRUCO, Seat, call_family
from engine.bots.style import DEFAULT, Style
from engine.core.actions import Action
from engine.core.calls import Call
from engine.core.ruleset import RuleSet
from engine.core.views import View
from engine.variants.senas import honest_senas

TOP_CARD = 0.85  # share of the unseen cards a signalled card must beat to count as a top card
_BET_AND_PLAY = frozenset({PLAY, TRUCO, ACCEPT, DECLINE, ENVIDO_BET, MAZO})
_SPECIAL = frozenset({Call.MALDON, Call.PEDIR_FLOR, Call.A_LEY, Call.TENGO_FLOR})

Chooser = Callable[[View, RuleSet, random.Random], Action | None]


def bot_senas(view: View, rules: RuleSet) -> tuple[str, ...]:
    """The señas a bot makes to its partners about the cards in `view` (its own)."""
    points_open = view.envido_status in ("none", "open") and not view.tricks
    return honest_senas(tuple(view.own_cards), rules, view.face_up, with_points=points_open)


_KEEP = object()  # the level's own action stands


def choose_with_senas(view: View, rules: RuleSet, rng: random.Random,
                      partner_senas: Sequence[tuple[int, str]] = (),
                      choose: Chooser = choose_action, *, level: str | None = None) -> Action | None:
    """The bot's action for `view.viewer` (as `choose`, the level's decision), its partners'
    señas weighed. `level` "normal" and "hard" bet with the score-aware tunables; "hard"
    keeps its searched card play (its search draws worlds from the view only); "easy"
    overlooks the señas as often as it makes a mistake (it stays a careless partner)."""
    action = choose(view, rules, rng)
    if view.viewer is None or not partner_senas or not view.legal:
        return action
    if level == "easy" and rng.random() < easy.MISTAKE:
        return action
    style = style_for(view) if level in ("normal", "hard") else DEFAULT
    try:
        better = _with_senas(view, rules, rng, action, partner_senas, style, level != "hard")
    except Exception:  # the señas are a refinement: never let them break a move
        return action
    if better is _KEEP:
        return action
    if better is None:
        return None if not is_obliged(view, rules) else action
    return better if isinstance(better, Action) and better in view.legal else action


def _with_senas(view: View, rules: RuleSet, rng: random.Random, action: Action | None,
                partner_senas: Sequence[tuple[int, str]], style: Style,
                plays: bool) -> Action | None | object:
    """The decision again with the partners' señas (the flow of engine/bots/bot.py for
    the bets and the cards); _KEEP where the señas do not bear on it."""
    partners = read_partners(view, rules, partner_senas)
    if not partners:
        return _KEEP
    known: dict[str, list[Action]] = {}
    for a in view.legal:
        known.setdefault(call_family(a.call, rules), []).append(a)
    if set(known) - _BET_AND_PLAY or any(a.call in _SPECIAL for a in view.legal):
        return _KEEP  # flor, declaring, a ley, calls the bot does not know: the level's own
    seat = TeamSeat(view, rules, partners, style)
    can_envido = ENVIDO_BET in known and not seat.partner_flor()  # his flor settles it
    if ACCEPT in known or DECLINE in known:
        if view.envido_status == "betting":
            return answer_envido(seat, known, rng)
        return answer_bet(seat, known, rng, envido=can_envido)
    my_turn = view.turn == view.viewer
    if not my_turn:
        return _KEEP  # initiatives are taken on one's own turn only
    bet = bet_first(seat, known, rng, envido=can_envido)
    if bet is not None:
        return bet
    if PLAY not in known:
        return None
    if not plays:
        return action if action is not None and call_family(action.call, rules) == PLAY else _KEEP
    low = _low_before_partner(view, rules, known[PLAY], partners)
    return low if low is not None else play(seat, known[PLAY], rng)


def _low_before_partner(view: View, rules: RuleSet, plays: list[Action],
                        partners: Sequence[Partner]) -> Action | None:
    """The lowest card, when a partner still to play in this trick signalled a top card."""
    me = view.viewer
    order = list(view.trick_players)
    if me not in order:
        return None
    after = set(order[order.index(me) + 1:])
    seat = Seat(view, rules)
    if not any(seat.pct(card) >= TOP_CARD for p in partners if p.seat in after for card in p.known):
        return None
    return min((a for a in plays if a.card is not None),
               key=lambda a: seat.s(a.card) if a.card is not None else 0, default=None)
