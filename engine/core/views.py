"""Per-seat views: everything a UI shows, and nothing a seat may not see.

A seat sees its own cards; everybody sees cards played face up, calls, declared values,
scores, and the cards shown at the end of a hand to prove an envido or flor. Nobody sees
another seat's hidden cards or the undealt deck; a spectator (seat None) sees no hidden card.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable
from dataclasses import dataclass, fields, is_dataclass
from typing import Any

from engine.core.actions import Action
from engine.core.cards import Card
from engine.core.game import legal_actions
from engine.core.ledger import truco_value
from engine.core import hand_guide as guide
from engine.core.state import (
    NO_TEAM, PARDA, DealKind, EnvidoStatus, FlorStatus, HandSummary, Phase, State,
)


def malas_buenas(score: int, malas: int = 15) -> str:
    """docs/RULES.md 1.11: 12 -> "12 malas", 18 -> "3 buenas" (with the boundary at 15); one is
    "1 mala", "1 buena"."""
    if score <= malas:
        return f"{score} mala" if score == 1 else f"{score} malas"
    buenas = score - malas
    return f"{buenas} buena" if buenas == 1 else f"{buenas} buenas"


@dataclass(frozen=True, slots=True)
class View:
    viewer: int | None
    variant: str
    options: tuple[tuple[str, bool | int | str], ...]
    n_players: int
    teams: tuple[int, ...]  # team of each seat in this hand (3 players: mano 0, others 1)
    phase: str
    deal_kind: str
    game_no: int
    deal_no: int
    duel: int
    dealer: int
    mano: int
    players: tuple[int, ...]  # seats in the current hand, mano first
    target: int
    scores: tuple[int, ...]  # per team; per seat in the Uruguayan 3-player game
    scores_text: tuple[str, ...]  # malas / buenas, or plain numbers (Brazil)
    games_won: tuple[int, ...]  # indexed like scores
    match_games: int
    turn: int | None  # seat to play a card
    awaiting: tuple[int, ...]  # every seat that may act now
    own_cards: tuple[Card, ...]
    hand_sizes: tuple[int, ...]
    tricks: tuple[tuple[tuple[int, Card], ...], ...]  # finished tricks, in play order
    trick_results: tuple[int | None, ...]  # winning team, None for parda
    trick_winners: tuple[int | None, ...]  # the seat that took each trick, None for parda
    current_trick: tuple[tuple[int, Card], ...]
    face_up: Card | None
    truco_value: int  # what the hand is worth now
    truco_pending: str | None  # the call waiting for an answer
    truco_pending_by: int | None  # the TEAM that made it; the seat is truco_pending_seat
    # The seat that said the pending call; None when nobody did: the Brazilian mão de onze
    # (the team on 11 decides whether to play) and the Venezuelan "privo y truco".
    truco_pending_seat: int | None
    truco_right: int | None  # the team that may raise next (None: either)
    envido_status: str
    envido_calls: tuple[str, ...]
    envido_by: int | None
    envido_pending_seat: int | None  # the seat whose envido / envite call waits for an answer
    envido_declarations: tuple[tuple[int, int | None], ...]  # None: son buenas
    envido_result: tuple[int, int] | None
    flor_status: str
    flor_announced: tuple[int, ...]
    flor_level: int
    flor_pending_by: int | None
    flor_pending_seat: int | None  # the seat whose contraflor (al resto) waits for an answer
    flor_conceded: int | None
    flor_result: tuple[int, int] | None
    history: tuple[HandSummary, ...]  # finished hands of this game, with shown proofs
    game_winner: int | None  # set between a game's end and the next game's first deal
    match_over: bool
    winner: int | None
    legal: tuple[Action, ...]
    # ---- added for the muestra / manilha variants ----
    card_notation: str  # "spanish" or "french": how to read card text of this table
    truco_ladder: tuple[str, ...]  # the ladder's calls in order (their Call values)
    truco_level: int  # accepted steps (0: no bet); truco_ladder[level-1] is the last one
    truco_pending_level: int | None  # the ladder step of truco_pending (1-based)
    raises_barred: bool  # no raising in this hand (Brazilian eleven / blind hand)
    score_holders: tuple[tuple[int, ...], ...]  # seats credited by each entry of scores
    winners: tuple[int, ...]  # seats that won the match (empty until it is over)
    # ---- added with venezolano (generic; empty or None where a variant has none) ----
    envido_stake: int | None  # piedras at stake in the pending or accepted envite (piedras games)
    special_cards: tuple[Card, ...]  # cards the face-up card promotes (perico, perica)
    trick_players: tuple[int, ...]  # seats taking part in the current trick, in playing order
    passed_cards: tuple[tuple[int, int], ...]  # (trick number, seat): a card with no truco value
    passed_seats: tuple[int, ...]  # seats that passed all three cards (face down)
    truco_forced: bool  # the pending truco may not be declined
    cantando: int | None  # the team that needs one point and plays the special hand
    # ---- added with the Venezuelan a ley (flor_declaration="a_ley") ----
    ley_seats: tuple[int, ...]  # seats that played their first card a ley in this hand
    envite_ley: bool | None  # the current envite is con ley (True) or sin ley (False)
    penalties: tuple[tuple[int, str, int], ...]  # (team, rule, points withheld) at hand end
    # ---- the table explains the variant (engine/core/hand_guide.py); filled by _guide_fields ----
    card_marks: tuple[guide.CardMark, ...]  # special cards of this hand, highest first
    ranking: tuple[tuple[Card, ...], ...]  # playable cards, strongest first; ties together
    count_rule: str  # how envido is counted: argentine, uruguayan, venezolano, none
    own_envido: int | None  # the viewer's envido value (None: no envido in this game)
    own_envido_cards: tuple[Card, ...]  # the cards that make it
    own_flor: int | None  # the viewer's flor value (None: no flor)
    bets: tuple[guide.BetWorth, ...]  # bets waiting for an answer, with their worth
    truco_steps: tuple[guide.TrucoWorth, ...]  # the truco ladder with its values
    malas: int  # the malas/buenas boundary shown with the scores (0: plain points)
    card_refusals: tuple[tuple[Card, str], ...]  # own cards not playable now, reason code
    call_refusals: tuple[tuple[str, str], ...]  # common calls not possible now, reason code

    def to_wire(self) -> dict[str, Any]:
        return {
            f.name: _static_wire(value) if f.name in _STATIC_FIELDS else _wire(value)
            for f in fields(self)
            for value in (getattr(self, f.name),)
        }


# Fields whose values are built once per rules (and face-up card) and shared by every view
# (engine/hand_guide.py caches them): their wire form is built once too. The ranking alone
# is the whole deck, which would otherwise be turned into text for every viewer and update.
_STATIC_FIELDS = frozenset(("ranking", "card_marks", "truco_steps"))
_STATIC_WIRE: dict[int, tuple[object, Any]] = {}


def _static_wire(value: Any) -> Any:
    """The wire form of a shared (cached, immutable) value; the cache holds the value too,
    so its id cannot be reused by another object. Callers must not mutate the result."""
    if not value:
        return []
    hit = _STATIC_WIRE.get(id(value))
    if hit is None or hit[0] is not value:
        hit = _STATIC_WIRE[id(value)] = (value, _wire(value))
    return hit[1]


def _wire(value: Any) -> Any:
    if isinstance(value, Card):
        return str(value)
    if isinstance(value, Action):
        return value.to_wire()
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, tuple):
        return [_wire(v) for v in value]
    if is_dataclass(value) and not isinstance(value, type):
        return {f.name: _wire(getattr(value, f.name)) for f in fields(value)}
    return value


def _team(team: int) -> int | None:
    return None if team == NO_TEAM else team


def _seat(seat: int) -> int | None:
    return None if seat < 0 else seat


def view(state: State, seat: int | None, *, lean: bool = False) -> View:
    """`seat`'s view of `state` (None: a spectator's). `lean=True` leaves out what explains
    the table to a person and costs the most to build (`awaiting` and the hand guide's
    fields, blank): the searching bot's playouts build thousands of views and read none of
    them (engine/bots/hard.py)."""
    if not lean:
        return views(state, (seat,))[seat]
    _check_seat(state, seat)
    legal = tuple(legal_actions(state, seat)) if seat is not None else ()
    return View(**_shared_fields(state, (), True), **_seat_fields(state, seat, legal, True))


def views(state: State, seats: Iterable[int | None]) -> dict[int | None, View]:
    """``view(state, seat)`` for each of ``seats``: what every viewer of a table sees after a
    move. What is the same for all of them (the scores, the tricks, whose turn it is, the
    ranking...) is worked out once, and each seat's legal actions once."""
    wanted = list(dict.fromkeys(seats))
    for seat in wanted:
        _check_seat(state, seat)
    legal = {s: tuple(legal_actions(state, s)) for s in range(state.n)}
    shared = _shared_fields(state, tuple(s for s in range(state.n) if legal[s]), False)
    return {seat: View(**shared, **_seat_fields(state, seat, () if seat is None else legal[seat], False))
            for seat in wanted}


def _check_seat(state: State, seat: int | None) -> None:
    if seat is not None and not 0 <= seat < state.n:
        raise ValueError(f"there is no seat {seat}")


def _seat_fields(state: State, seat: int | None, legal: tuple[Action, ...], lean: bool) -> dict[str, Any]:
    """The fields of a view that depend on whose it is."""
    blind = state.deal_kind is DealKind.BLIND and state.phase is not Phase.DEAL
    own = state.hands[seat] if seat is not None and not blind else ()
    out: dict[str, Any] = {"viewer": seat, "own_cards": own, "legal": legal}
    out.update(_LEAN_SEAT_GUIDE if lean else _seat_guide_fields(state, seat, own, legal, blind))
    return out


def _shared_fields(state: State, awaiting: tuple[int, ...], lean: bool) -> dict[str, Any]:
    """The fields of a view that are the same for every viewer of ``state``."""
    rules = state.rules
    playing = state.phase is Phase.PLAY
    pending = state.truco_pending
    envido_live = state.envido_status is not EnvidoStatus.CLOSED
    team_of = state.team_of
    per_seat = len(state.scores) != 2
    holders = (
        tuple((s,) for s in range(state.n))
        if per_seat
        else tuple(tuple(s for s in range(state.n) if s % 2 == t) for t in (0, 1))
    )
    malas = guide.malas_shown(rules)
    return dict(
        variant=rules.variant,
        options=rules.options,
        n_players=state.n,
        teams=team_of,
        phase=state.phase.value,
        deal_kind=state.deal_kind.value,
        game_no=state.game_no,
        deal_no=state.deal_no,
        duel=state.duel,
        dealer=state.dealer,
        mano=state.mano,
        players=state.players,
        target=rules.target,
        scores=state.scores,
        scores_text=tuple(
            malas_buenas(score, malas) if malas else str(score) for score in state.scores
        ),
        games_won=state.games_won,
        match_games=rules.match_games,
        turn=state.turn if playing and state.turn >= 0 else None,
        awaiting=awaiting,
        hand_sizes=tuple(len(h) for h in state.hands),
        tricks=state.tricks,
        trick_results=tuple(None if r == PARDA else r for r in state.trick_results),
        trick_winners=tuple(None if s < 0 else s for s in state.trick_winners),
        current_trick=state.current,
        face_up=state.face_up,
        truco_value=truco_value(state) if state.truco_level else 1,
        truco_pending=rules.truco_ladder[pending - 1].call.value if pending else None,
        truco_pending_by=state.truco_by if pending else None,
        truco_pending_seat=_seat(state.truco_seat) if pending else None,
        truco_right=_team(state.truco_right),
        envido_status=state.envido_status.value,
        envido_calls=tuple(c.value for c in state.envido_calls) if envido_live else (),
        envido_by=_team(state.envido_by),
        envido_pending_seat=(
            _seat(state.envido_seat) if state.envido_status is EnvidoStatus.BETTING else None
        ),
        envido_declarations=state.envido_decl,
        envido_result=state.envido_result,
        flor_status=state.flor_status.value,
        flor_announced=state.flor_announced,
        flor_level=state.flor_level,
        flor_pending_by=_team(state.flor_by) if not state.flor_accepted else None,
        flor_pending_seat=_seat(state.flor_seat) if _flor_betting(state) else None,
        flor_conceded=_team(state.flor_conceded),
        flor_result=state.flor_result,
        history=state.history,
        game_winner=state.game_winner,
        match_over=state.phase is Phase.MATCH_OVER,
        winner=state.winner,
        card_notation=rules.card_notation,
        truco_ladder=tuple(step.call.value for step in rules.truco_ladder),
        truco_level=state.truco_level,
        truco_pending_level=pending if pending else None,
        raises_barred=state.raise_barred,
        score_holders=holders,
        winners=(
            tuple(s for s, h in enumerate(state.team_of) if _won(state, s))
            if state.phase is Phase.MATCH_OVER
            else ()
        ),
        envido_stake=_envido_stake(state),
        special_cards=tuple(c for c in rules.specials(state.face_up) if c is not None),
        trick_players=state.active if playing else (),
        passed_cards=rules.hooks.passed_cards(state),
        passed_seats=rules.hooks.passed_seats(state),
        truco_forced=bool(state.truco_pending) and not rules.hooks.truco_declinable(state),
        cantando=_team(rules.hooks.cantando(state)),
        ley_seats=rules.hooks.ley_seats(state),
        envite_ley=rules.hooks.envite_ley(state),
        penalties=rules.hooks.penalties(state),
        **(_LEAN_SHARED_GUIDE if lean else _shared_guide_fields(state, malas)),
    )


# The hand guide's fields of a lean view: blank (see `view`).
_LEAN_SHARED_GUIDE: dict[str, Any] = {
    "card_marks": (), "ranking": (), "count_rule": "none", "bets": (), "truco_steps": (), "malas": 0,
}
_LEAN_SEAT_GUIDE: dict[str, Any] = {
    "own_envido": None, "own_envido_cards": (), "own_flor": None, "card_refusals": (), "call_refusals": (),
}


def _flor_betting(state: State) -> bool:
    return not state.flor_accepted and state.flor_status in (
        FlorStatus.ANNOUNCING, FlorStatus.ANSWERING, FlorStatus.ROUND_TWO
    )


def _shared_guide_fields(state: State, malas: int) -> dict[str, Any]:
    """The fields that explain the variant at the table (engine/core/hand_guide.py), the
    same for every viewer."""
    rules = state.rules
    return {
        "card_marks": guide.card_marks(rules, state.face_up),
        "ranking": guide.ranking(rules, state.face_up),
        "count_rule": guide.count_rule(rules),
        "bets": guide.bets(state),
        "truco_steps": guide.truco_steps(rules),
        "malas": malas,
    }


def _seat_guide_fields(state: State, seat: int | None, own: tuple[Card, ...], legal: tuple[Action, ...],
                       blind: bool) -> dict[str, Any]:
    """The hand guide's fields about the viewer's own hand and moves."""
    mine = None if blind else seat  # a blind hand hides the viewer's own cards too
    envido, proof = guide.own_envido(state, mine)
    return {
        "own_envido": envido,
        "own_envido_cards": proof,
        "own_flor": guide.own_flor(state, mine),
        "card_refusals": guide.card_refusals(state, seat, own, legal),
        "call_refusals": guide.call_refusals(state, seat, legal),
    }


def _won(state: State, seat: int) -> bool:
    holder = seat if len(state.scores) != 2 else seat % 2
    return state.games_won[holder] >= state.rules.match_games


def _envido_stake(state: State) -> int | None:
    if not state.envido_calls or state.envido_status is EnvidoStatus.CLOSED:
        return None
    return state.rules.hooks.envido_stake(state)
