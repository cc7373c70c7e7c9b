"""The engine's per-seat View as the protocol's TableView: the one place they meet.

Every field of ``engine.View`` is either copied here (cards as their text, actions and the
guide's records as protocol records) or named in ``NOT_SENT`` with the reason;
tests/server/test_table_view.py fails when the engine gains a field that is neither.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, TypeVar, cast

import engine
import protocol as p

if TYPE_CHECKING:  # annotations only: where the engine keeps its guide is its own business
    from engine.core.hand_guide import BetWorth, CardMark, TrucoWorth

# Engine View fields a viewer is not sent, and why.
NOT_SENT = {
    "viewer": "TableUpdate.seat already says whose view it is",
    "history": "the finished hands of the game grow with every hand and no client reads them: "
               "the log shows each hand from its events",
}

_A = TypeVar("_A")
_B = TypeVar("_B")
# Wire forms of values the engine builds once per rules and face-up card and shares between
# views (engine/core/hand_guide.py caches them): the ranking alone is the whole deck, which
# would otherwise be turned into text for every viewer on every update. Keyed by identity;
# the entry keeps the engine value alive so that its id is never reused.
_SHARED: dict[int, tuple[object, object]] = {}


def _shared(value: _A, convert: Callable[[_A], _B]) -> _B:
    hit = _SHARED.get(id(value))
    if hit is None or hit[0] is not value:
        hit = _SHARED[id(value)] = (value, convert(value))
    return cast(_B, hit[1])


def _cards(cards: tuple[engine.Card, ...]) -> tuple[str, ...]:
    return tuple(str(c) for c in cards)


def _played(trick: tuple[tuple[int, engine.Card], ...]) -> tuple[tuple[int, str], ...]:
    return tuple((seat, str(card)) for seat, card in trick)


def _ranking(ranking: tuple[tuple[engine.Card, ...], ...]) -> tuple[tuple[str, ...], ...]:
    return tuple(_cards(group) for group in ranking)


def _marks(marks: tuple[CardMark, ...]) -> tuple[p.CardMark, ...]:
    return tuple(p.CardMark(card=str(m.card), role=m.role, envido=m.envido) for m in marks)


def _steps(steps: tuple[TrucoWorth, ...]) -> tuple[p.TrucoStep, ...]:
    return tuple(p.TrucoStep(call=s.call, wanted=s.wanted, refused=s.refused, wins_game=s.wins_game)
                 for s in steps)


def _legal(action: engine.Action) -> p.LegalCall:
    return p.LegalCall(seat=action.seat, call=action.call.value,
                       card=None if action.card is None else str(action.card), amount=action.amount)


def _bet(bet: BetWorth) -> p.BetWorth:
    return p.BetWorth(kind=bet.kind, calls=bet.calls, wanted=bet.wanted, refused=bet.refused,
                      wins_game=bet.wins_game)


def table_view(view: engine.View) -> p.TableView:
    """What ``view``'s viewer is sent."""
    return p.TableView(
        variant=view.variant,
        options=view.options,
        n_players=view.n_players,
        teams=view.teams,
        phase=view.phase,
        deal_kind=view.deal_kind,
        game_no=view.game_no,
        deal_no=view.deal_no,
        duel=view.duel,
        dealer=view.dealer,
        mano=view.mano,
        players=view.players,
        target=view.target,
        scores=view.scores,
        scores_text=view.scores_text,
        games_won=view.games_won,
        match_games=view.match_games,
        turn=view.turn,
        awaiting=view.awaiting,
        own_cards=_cards(view.own_cards),
        hand_sizes=view.hand_sizes,
        tricks=tuple(_played(trick) for trick in view.tricks),
        trick_results=view.trick_results,
        trick_winners=view.trick_winners,
        current_trick=_played(view.current_trick),
        face_up=None if view.face_up is None else str(view.face_up),
        truco_value=view.truco_value,
        truco_pending=view.truco_pending,
        truco_pending_by=view.truco_pending_by,
        truco_pending_seat=view.truco_pending_seat,
        truco_right=view.truco_right,
        envido_status=view.envido_status,
        envido_calls=view.envido_calls,
        envido_by=view.envido_by,
        envido_pending_seat=view.envido_pending_seat,
        envido_declarations=view.envido_declarations,
        envido_result=view.envido_result,
        flor_status=view.flor_status,
        flor_announced=view.flor_announced,
        flor_level=view.flor_level,
        flor_pending_by=view.flor_pending_by,
        flor_pending_seat=view.flor_pending_seat,
        flor_conceded=view.flor_conceded,
        flor_result=view.flor_result,
        game_winner=view.game_winner,
        match_over=view.match_over,
        winner=view.winner,
        legal=tuple(_legal(a) for a in view.legal),
        card_notation=view.card_notation,
        truco_ladder=view.truco_ladder,
        truco_level=view.truco_level,
        truco_pending_level=view.truco_pending_level,
        raises_barred=view.raises_barred,
        score_holders=view.score_holders,
        winners=view.winners,
        envido_stake=view.envido_stake,
        special_cards=_cards(view.special_cards),
        trick_players=view.trick_players,
        passed_cards=view.passed_cards,
        passed_seats=view.passed_seats,
        truco_forced=view.truco_forced,
        cantando=view.cantando,
        ley_seats=view.ley_seats,
        envite_ley=view.envite_ley,
        penalties=view.penalties,
        card_marks=_shared(view.card_marks, _marks),
        ranking=_shared(view.ranking, _ranking),
        count_rule=view.count_rule,
        own_envido=view.own_envido,
        own_envido_cards=_cards(view.own_envido_cards),
        own_flor=view.own_flor,
        bets=tuple(_bet(b) for b in view.bets),
        truco_steps=_shared(view.truco_steps, _steps),
        malas=view.malas,
        card_refusals=tuple((str(card), reason) for card, reason in view.card_refusals),
        call_refusals=view.call_refusals,
    )
